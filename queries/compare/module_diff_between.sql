-- module_diff_between — per nn.Module path, device time of a comparison run against a baseline run.
-- Grain:     one row per module path present in either run (table module: nn.Module calls of
--            with_stack traces, optimizer ops, "[ BACKWARD ]/…" backward modules); modules in
--            the steps compare_step keeps; ordered by diff_total_ns descending, then path.
-- Source:    tracedb_internal.compare_module (table module, derive/125; op_name_map, compare_step):
--            module_key, device_self_ns, device_total_ns, op_count.
--            A path called several times (the same module path in several steps, a module's
--            several backward ops) sums its calls.
--            op_name_map renames a whole path (an optimizer module: Optimizer.step#SGD.step =
--            Optimizer.step#NpuFusedSGD.step); msprof-analyze's module mode ignores the map.
-- Reference: msprof-analyze compare ModuleCompareStatistic "[ TOTAL ]" rows: Module Class,
--            Module Level, Module Name (without "nn.Module: "), Device Self Time, Number (here
--            *_calls), Device Total Time; Diff Total = comparison − baseline. msprof-analyze
--            groups the calls by module name as here (its aligned tree only orders the rows).
--            Totals per rank (sums over a run's ranks ÷ its number of ranks with modules).
-- Units:     *_ns integer nanoseconds (per-rank totals rounded to the ns); *_calls module calls per
--            rank; *_op_count ops per rank; *_ratio plain ratio.
-- Parameters: baseline_run, comparison_run — run names (run.run_name), positional.
-- Browse:    module_diff(baseline, comparison)
CREATE OR REPLACE MACRO module_diff_between(baseline_run, comparison_run) AS TABLE
WITH sided AS (
    SELECT CASE WHEN r.run_name = baseline_run THEN 'b' ELSE 'c' END AS side, m.rank,
           m.module_key AS module_path, m.op_count, m.device_self_ns, m.device_total_ns
    FROM tracedb_internal.compare_module AS m
    JOIN run AS r ON r.run_id = m.run_id
    WHERE r.run_name IN (baseline_run, comparison_run)
),
ranks AS (
    SELECT count(DISTINCT CASE WHEN side = 'b' THEN rank END) AS b_n,
           count(DISTINCT CASE WHEN side = 'c' THEN rank END) AS c_n
    FROM sided
),
agg AS (
    SELECT module_path,
           count(*) FILTER (WHERE side = 'b')                           AS b_calls,
           coalesce(sum(op_count) FILTER (WHERE side = 'b'), 0)         AS b_ops,
           coalesce(sum(device_self_ns) FILTER (WHERE side = 'b'), 0)   AS b_self,
           coalesce(sum(device_total_ns) FILTER (WHERE side = 'b'), 0)  AS b_total,
           count(*) FILTER (WHERE side = 'c')                           AS c_calls,
           coalesce(sum(op_count) FILTER (WHERE side = 'c'), 0)         AS c_ops,
           coalesce(sum(device_self_ns) FILTER (WHERE side = 'c'), 0)   AS c_self,
           coalesce(sum(device_total_ns) FILTER (WHERE side = 'c'), 0)  AS c_total
    FROM sided
    GROUP BY module_path
),
per_rank AS (
    SELECT module_path,
        CASE WHEN r.b_n > 0 THEN round(b_calls::DOUBLE / r.b_n) ELSE 0 END AS b_calls_pr,
        CASE WHEN r.b_n > 0 THEN round(b_self::DOUBLE / r.b_n) ELSE 0 END AS b_self_pr,
        CASE WHEN r.b_n > 0 THEN round(b_total::DOUBLE / r.b_n) ELSE 0 END AS b_total_pr,
        CASE WHEN r.b_n > 0 THEN round(b_ops::DOUBLE / r.b_n) ELSE 0 END AS b_ops_pr,
        CASE WHEN r.c_n > 0 THEN round(c_calls::DOUBLE / r.c_n) ELSE 0 END AS c_calls_pr,
        CASE WHEN r.c_n > 0 THEN round(c_self::DOUBLE / r.c_n) ELSE 0 END AS c_self_pr,
        CASE WHEN r.c_n > 0 THEN round(c_total::DOUBLE / r.c_n) ELSE 0 END AS c_total_pr,
        CASE WHEN r.c_n > 0 THEN round(c_ops::DOUBLE / r.c_n) ELSE 0 END AS c_ops_pr
    FROM agg CROSS JOIN ranks AS r
)
SELECT
    CAST(baseline_run AS VARCHAR)                  AS baseline_run,            -- baseline run name
    CAST(comparison_run AS VARCHAR)                AS comparison_run,          -- comparison run name
    module_path::VARCHAR                           AS module_path,             -- module.module_path after op_name_map (Module Name)
    regexp_replace(regexp_extract(module_path, '[^/]*$', 0), '_[0-9]+$', '')::VARCHAR AS module_class,  -- last path part without its _N instance suffix (Module Class)
    (length(module_path) - length(replace(module_path, '/', '')) + 1)::INTEGER AS module_level,  -- parts of the path, 1 = outermost (Module Level)
    b_ops_pr::BIGINT                               AS baseline_op_count,       -- framework ops directly in the module per baseline rank
    b_self_pr::BIGINT                              AS baseline_self_ns,        -- device time of kernels launched directly in the module per baseline rank, ns (Device Self Time)
    b_total_pr::BIGINT                             AS baseline_total_ns,       -- device time of the module and the modules below it per baseline rank, ns (Device Total Time)
    c_ops_pr::BIGINT                               AS comparison_op_count,     -- framework ops directly in the module per comparison rank
    c_self_pr::BIGINT                              AS comparison_self_ns,      -- device time of kernels launched directly in the module per comparison rank, ns
    c_total_pr::BIGINT                             AS comparison_total_ns,     -- device time of the module and the modules below it per comparison rank, ns
    (c_total_pr - b_total_pr)::BIGINT              AS diff_total_ns,           -- comparison − baseline total device time per rank, ns (Device Total Time Diff)
    (c_self_pr - b_self_pr)::BIGINT                AS diff_self_ns,            -- comparison − baseline self device time per rank, ns (Device Self Time Diff)
    CASE WHEN b_total_pr > 0 THEN c_total_pr::DOUBLE / b_total_pr END::DOUBLE AS total_ratio,  -- comparison / baseline total device time; NULL when the baseline has none
    b_calls_pr::BIGINT                             AS baseline_calls,          -- calls of the module per baseline rank (Number)
    c_calls_pr::BIGINT                             AS comparison_calls         -- calls of the module per comparison rank (Number)
FROM per_rank
ORDER BY diff_total_ns DESC, module_path;
