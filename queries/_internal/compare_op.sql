-- compare_op — the framework ops the compare views count, with their comparison key.
-- Grain:     one row per op of table op except ProfilerStep#N, in the steps compare_step keeps
--            (every op when its run has no compare_step rows).
-- Source:    op (the op tree), op_name_map (op_key = the mapped name), compare_step.
-- Reference: msprof-analyze compare: top layer = children of ProfilerStep#N plus root ops outside
--            steps (all steps, or only --base_step / --comparison_step, then no roots outside steps).
--            is_top is per host thread; is_top_msprof is msprof-analyze's (one tree over all
--            threads: an op inside a "## backward ##" annotation of another thread is not top).
-- Units:     *_ns integer nanoseconds; *_count kernels.
CREATE OR REPLACE VIEW tracedb_internal.compare_op AS
SELECT
    o.run_id::INTEGER                                AS run_id,             -- run
    o.rank::INTEGER                                  AS rank,               -- rank
    o.op_id::BIGINT                                  AS op_id,              -- op (op.op_id)
    o.step::INTEGER                                  AS step,               -- step holding the op start
    o.tid::VARCHAR                                   AS tid,                -- host thread
    o.ts_ns::BIGINT                                  AS ts_ns,              -- op start on the host, ns
    o.dur_ns::BIGINT                                 AS dur_ns,             -- op duration on the host, ns
    o.name::VARCHAR                                  AS name,               -- op name as written
    coalesce(m.comparison_name, o.name)::VARCHAR     AS op_key,             -- op name after op_name_map
    o.parent_op_id::BIGINT                           AS parent_op_id,       -- enclosing op
    o.input_dims::VARCHAR                            AS input_dims,         -- args Input Dims
    o.input_types::VARCHAR                           AS input_types,        -- args Input type
    o.is_backward::BOOLEAN                           AS is_backward,        -- on the autograd thread
    o.module_path::VARCHAR                           AS module_path,        -- nn.Module path
    coalesce(o.kernel_total_count, 0)::BIGINT        AS kernel_total_count, -- kernels launched by the op and its subtree
    coalesce(o.device_self_ns, 0)::BIGINT            AS device_self_ns,     -- device time of the kernels the op launched itself, ns
    coalesce(o.device_total_ns, 0)::BIGINT           AS device_total_ns,    -- device time of the op and its subtree, ns
    (o.parent_op_id IS NULL OR p.name LIKE 'ProfilerStep#%')::BOOLEAN AS is_top,  -- a top-level op (child of ProfilerStep#N or a root)
    o.msprof_parent_op_id::BIGINT                    AS msprof_parent_op_id, -- parent in msprof-analyze's cross-thread op tree
    coalesce(o.is_top_level_msprof, o.parent_op_id IS NULL)::BOOLEAN AS is_top_msprof,  -- top level as msprof-analyze picks it (no op of any thread running at the start)
    coalesce(o.msprof_kernel_total_count, 0)::BIGINT AS msprof_kernel_total_count,  -- tasks in the op's msprof-analyze subtree (its kernel_num)
    coalesce(o.msprof_device_total_ns, 0)::BIGINT    AS msprof_device_total_ns      -- msprof-analyze's Device Duration: its tasks, copies included, in its subtree, ns
FROM op AS o
LEFT JOIN op AS p
    ON p.run_id = o.run_id AND p.rank = o.rank AND p.op_id = o.parent_op_id
LEFT JOIN (SELECT baseline_name, min(comparison_name) AS comparison_name
           FROM op_name_map GROUP BY baseline_name) AS m
    ON m.baseline_name = o.name
LEFT JOIN (SELECT DISTINCT run_id FROM compare_step) AS rs
    ON rs.run_id = o.run_id
LEFT JOIN (SELECT DISTINCT run_id, step FROM compare_step) AS cs
    ON cs.run_id = o.run_id AND cs.step = o.step
WHERE o.name NOT LIKE 'ProfilerStep#%'
  AND (rs.run_id IS NULL OR cs.step IS NOT NULL);
