-- module_diff_between — per nn.Module path, device time of a comparison run against a baseline run.
-- Grain:     one row per nn.Module path present in either run (ops with a module_path: with_stack
--            traces with python_function events); steps restricted by compare_step; ordered by
--            diff_total_ns descending.
-- Source:    op.module_path (innermost enclosing python_function "nn.Module: ..." chain),
--            op.device_self_ns (kernels the op launched itself, so each kernel counts once).
--            Self = kernels launched by ops directly in the module; total = in the module or any
--            module below it (paths that start with the module's path and "/").
-- Reference: msprof-analyze compare ModuleCompareStatistic "[ TOTAL ]" rows (Module Class, Module
--            Level, Module Name, Device Self Time, Device Total Time; Diff Total = comparison −
--            baseline). msprof-analyze aligns the module trees before grouping by name; here
--            modules meet by path. Totals per rank.
-- Units:     *_ns integer nanoseconds (per-rank totals rounded to the ns); *_count ops per rank;
--            *_ratio plain ratio.
-- Parameters: baseline_run, comparison_run — run names (run.run_name), positional.
CREATE OR REPLACE MACRO module_diff_between(baseline_run, comparison_run) AS TABLE
WITH sided AS (
    SELECT CASE WHEN r.run_name = baseline_run THEN 'b' ELSE 'c' END AS side, o.rank, o.module_path,
           o.device_self_ns
    FROM tracedb_internal.compare_op AS o
    JOIN run AS r ON r.run_id = o.run_id
    WHERE o.module_path IS NOT NULL AND r.run_name IN (baseline_run, comparison_run)
),
self_ns AS (
    SELECT side, module_path, count(*) AS ops, sum(device_self_ns) AS self_ns
    FROM sided
    GROUP BY side, module_path
),
ranks AS (
    SELECT count(DISTINCT CASE WHEN side = 'b' THEN rank END) AS b_n,
           count(DISTINCT CASE WHEN side = 'c' THEN rank END) AS c_n
    FROM sided
),
modules AS (
    SELECT DISTINCT module_path FROM self_ns
),
agg AS (
    SELECT m.module_path,
           sum(CASE WHEN s.side = 'b' AND s.module_path = m.module_path THEN s.self_ns ELSE 0 END) AS b_self,
           sum(CASE WHEN s.side = 'b' THEN s.self_ns ELSE 0 END) AS b_total,
           sum(CASE WHEN s.side = 'b' AND s.module_path = m.module_path THEN s.ops ELSE 0 END) AS b_ops,
           sum(CASE WHEN s.side = 'c' AND s.module_path = m.module_path THEN s.self_ns ELSE 0 END) AS c_self,
           sum(CASE WHEN s.side = 'c' THEN s.self_ns ELSE 0 END) AS c_total,
           sum(CASE WHEN s.side = 'c' AND s.module_path = m.module_path THEN s.ops ELSE 0 END) AS c_ops
    FROM modules AS m
    JOIN self_ns AS s
        ON s.module_path = m.module_path OR starts_with(s.module_path, m.module_path || '/')
    GROUP BY m.module_path
),
per_rank AS (
    SELECT module_path,
        CASE WHEN r.b_n > 0 THEN round(b_self::DOUBLE / r.b_n) ELSE 0 END AS b_self_pr,
        CASE WHEN r.b_n > 0 THEN round(b_total::DOUBLE / r.b_n) ELSE 0 END AS b_total_pr,
        CASE WHEN r.b_n > 0 THEN round(b_ops::DOUBLE / r.b_n) ELSE 0 END AS b_ops_pr,
        CASE WHEN r.c_n > 0 THEN round(c_self::DOUBLE / r.c_n) ELSE 0 END AS c_self_pr,
        CASE WHEN r.c_n > 0 THEN round(c_total::DOUBLE / r.c_n) ELSE 0 END AS c_total_pr,
        CASE WHEN r.c_n > 0 THEN round(c_ops::DOUBLE / r.c_n) ELSE 0 END AS c_ops_pr
    FROM agg CROSS JOIN ranks AS r
)
SELECT
    CAST(baseline_run AS VARCHAR)                  AS baseline_run,            -- baseline run name
    CAST(comparison_run AS VARCHAR)                AS comparison_run,          -- comparison run name
    module_path::VARCHAR                           AS module_path,             -- nn.Module path as op.module_path writes it (Module Name)
    regexp_replace(regexp_extract(module_path, '[^/]*$', 0), '_[0-9]+$', '')::VARCHAR AS module_class,  -- last path part without its _N instance suffix (Module Class)
    (length(module_path) - length(replace(module_path, '/', '')) + 1)::INTEGER AS module_level,  -- depth of the module in the path, 1 = outermost (Module Level)
    b_ops_pr::BIGINT                               AS baseline_op_count,       -- framework ops directly in the module per baseline rank
    b_self_pr::BIGINT                              AS baseline_self_ns,        -- device time of kernels launched directly in the module per baseline rank, ns (Device Self Time)
    b_total_pr::BIGINT                             AS baseline_total_ns,       -- device time of the module and the modules below it per baseline rank, ns (Device Total Time)
    c_ops_pr::BIGINT                               AS comparison_op_count,     -- framework ops directly in the module per comparison rank
    c_self_pr::BIGINT                              AS comparison_self_ns,      -- device time of kernels launched directly in the module per comparison rank, ns
    c_total_pr::BIGINT                             AS comparison_total_ns,     -- device time of the module and the modules below it per comparison rank, ns
    (c_total_pr - b_total_pr)::BIGINT              AS diff_total_ns,           -- comparison − baseline total device time per rank, ns (Device Total Time Diff)
    (c_self_pr - b_self_pr)::BIGINT                AS diff_self_ns,            -- comparison − baseline self device time per rank, ns (Device Self Time Diff)
    CASE WHEN b_total_pr > 0 THEN c_total_pr::DOUBLE / b_total_pr END::DOUBLE AS total_ratio  -- comparison / baseline total device time; NULL when the baseline has none
FROM per_rank
ORDER BY diff_total_ns DESC, module_path;
