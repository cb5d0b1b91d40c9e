-- compare_module — the modules the module comparison counts, with their comparison key.
-- Grain:     one row per module row with a path (table module), in the steps compare_step keeps
--            (every module when its run has no compare_step rows).
-- Source:    module (derive/125), op_name_map (module_key = the whole path renamed), compare_step.
-- Reference: msprof-analyze compare module mode (only the modules of --base_step /
--            --comparison_step when chosen); its module name map has no effect.
-- Units:     *_ns integer nanoseconds; *_count ops.
CREATE OR REPLACE VIEW tracedb_internal.compare_module AS
SELECT
    m.run_id::INTEGER                                    AS run_id,            -- run
    m.rank::INTEGER                                      AS rank,              -- rank
    m.module_id::BIGINT                                  AS module_id,         -- module (module.module_id)
    m.parent_module_id::BIGINT                           AS parent_module_id,  -- enclosing module of the same tree
    m.kind::VARCHAR                                      AS kind,              -- forward, optimizer or backward
    m.step::INTEGER                                      AS step,              -- step holding the module start
    m.ts_ns::BIGINT                                      AS ts_ns,             -- module start on the host, ns
    m.module_path::VARCHAR                               AS module_path,       -- module path as derived
    coalesce(nm.comparison_name, m.module_path)::VARCHAR AS module_key,        -- module path after op_name_map
    m.op_count::BIGINT                                   AS op_count,          -- ops directly in the module
    m.device_self_ns::BIGINT                             AS device_self_ns,    -- device time of kernels launched directly in it, ns
    m.device_total_ns::BIGINT                            AS device_total_ns    -- device time of it and the modules below, ns
FROM module AS m
LEFT JOIN (SELECT baseline_name, min(comparison_name) AS comparison_name
           FROM op_name_map GROUP BY baseline_name) AS nm
    ON nm.baseline_name = m.module_path
LEFT JOIN (SELECT DISTINCT run_id FROM compare_step) AS rs
    ON rs.run_id = m.run_id
LEFT JOIN (SELECT DISTINCT run_id, step FROM compare_step) AS cs
    ON cs.run_id = m.run_id AND cs.step = m.step
WHERE m.module_path IS NOT NULL
  AND (rs.run_id IS NULL OR cs.step IS NOT NULL);
