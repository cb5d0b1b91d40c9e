-- module_alignment_between — the aligned modules of a baseline and a comparison run, pair by pair.
-- Grain:     one row per module_match row of the pair (written by tracedb compare with the op
--            alignment): a matched pair of modules, or a module one side lacks with the other side
--            NULL; ordered by order_id (baseline module start, comparison-only modules by theirs).
-- Source:    module_match (tracedb/compare.py align_modules: per tree, breadth first, the children
--            of each matched pair aligned with SequenceMatcher on the module path), module
--            (module_path, device_self_ns, device_total_ns).
-- Reference: msprof-analyze compare ModuleCompare "TOTAL" rows (Module Class, Module Name, Device
--            Self Time, Device Total Time per side, Device Total/Self Time Diff = comparison −
--            baseline, Diff Total Ratio = comparison / baseline). Its Module Level counts the tree
--            root (one more than module_level here, and 2 for every backward module).
-- Units:     *_ns integer nanoseconds; *_ratio plain ratio.
-- Parameters: baseline_run, comparison_run — run names (run.run_name), positional.
-- Browse:    module_alignment(baseline, comparison)
CREATE OR REPLACE MACRO module_alignment_between(baseline_run, comparison_run) AS TABLE
WITH pair AS (
    SELECT m.*
    FROM module_match AS m
    JOIN run AS rb ON rb.run_id = m.baseline_run_id
    JOIN run AS rc ON rc.run_id = m.comparison_run_id
    WHERE rb.run_name = baseline_run AND rc.run_name = comparison_run
)
SELECT
    CAST(baseline_run AS VARCHAR)                     AS baseline_run,               -- baseline run name
    CAST(comparison_run AS VARCHAR)                   AS comparison_run,             -- comparison run name
    m.order_id::BIGINT                                AS order_id,                   -- position in the alignment (Order Id)
    regexp_replace(regexp_extract(coalesce(b.module_path, c.module_path), '[^/]*$', 0), '_[0-9]+$', '')::VARCHAR
                                                      AS module_class,               -- last path part without its _N suffix (Module Class)
    coalesce(b.module_level, c.module_level)::INTEGER AS module_level,               -- parts of the module path, 1 = outermost
    m.baseline_rank::INTEGER                          AS baseline_rank,              -- rank of the baseline module
    m.baseline_module_id::BIGINT                      AS baseline_module_id,         -- baseline module (module.module_id); NULL when unmatched on this side
    b.module_path::VARCHAR                            AS baseline_module_path,       -- baseline module path (Module Name)
    b.device_self_ns::BIGINT                          AS baseline_self_ns,           -- device time of the kernels launched directly in the baseline module, ns (Device Self Time)
    b.device_total_ns::BIGINT                         AS baseline_total_ns,          -- device time of the baseline module and those below it, ns (Device Total Time)
    m.comparison_rank::INTEGER                        AS comparison_rank,            -- rank of the comparison module
    m.comparison_module_id::BIGINT                    AS comparison_module_id,       -- comparison module (module.module_id); NULL when unmatched on this side
    c.module_path::VARCHAR                            AS comparison_module_path,     -- comparison module path
    c.device_self_ns::BIGINT                          AS comparison_self_ns,         -- device self time of the comparison module, ns
    c.device_total_ns::BIGINT                         AS comparison_total_ns,        -- device total time of the comparison module, ns
    (coalesce(c.device_total_ns, 0) - coalesce(b.device_total_ns, 0))::BIGINT AS diff_total_ns,  -- comparison − baseline total device time, ns (Device Total Time Diff)
    (coalesce(c.device_self_ns, 0) - coalesce(b.device_self_ns, 0))::BIGINT AS diff_self_ns,     -- comparison − baseline self device time, ns (Device Self Time Diff)
    CASE WHEN coalesce(b.device_total_ns, 0) > 0
         THEN coalesce(c.device_total_ns, 0)::DOUBLE / b.device_total_ns END::DOUBLE AS total_ratio  -- comparison / baseline total device time (Diff Total Ratio); NULL when the baseline has none
FROM pair AS m
LEFT JOIN module AS b
    ON b.run_id = m.baseline_run_id AND b.rank = m.baseline_rank AND b.module_id = m.baseline_module_id
LEFT JOIN module AS c
    ON c.run_id = m.comparison_run_id AND c.rank = m.comparison_rank AND c.module_id = m.comparison_module_id
ORDER BY order_id;
