-- op_diff_between — per op type, device time of a comparison run against a baseline run.
-- Grain:     one row per op type present in either run; ordered by diff_total_ns descending.
-- Source:    kernel.op_type (kernel_details.csv "Type"; GPU: kernel name), kernel.dur_ns
--            ("Duration(us)"), all ranks and steps of each run.
-- Reference: msprof-analyze compare OperatorCompareStatistic / kernel compare: diff =
--            comparison − baseline, ratio = comparison / baseline (NULL when the baseline is 0).
-- Units:     *_ns integer nanoseconds; *_ratio plain ratio (1.0 = unchanged).
-- Parameters: baseline_run, comparison_run — run names (run.run_name), positional.
CREATE OR REPLACE MACRO op_diff_between(baseline_run, comparison_run) AS TABLE
WITH baseline AS (
    SELECT s.*
    FROM tracedb_internal.op_stat AS s
    JOIN run AS r ON r.run_id = s.run_id
    WHERE r.run_name = baseline_run
),
comparison AS (
    SELECT s.*
    FROM tracedb_internal.op_stat AS s
    JOIN run AS r ON r.run_id = s.run_id
    WHERE r.run_name = comparison_run
),
joined AS (
    SELECT
        coalesce(b.op_type, c.op_type) AS op_type,
        coalesce(b.call_count, 0) AS baseline_calls,
        coalesce(b.total_ns, 0) AS baseline_total_ns,
        coalesce(c.call_count, 0) AS comparison_calls,
        coalesce(c.total_ns, 0) AS comparison_total_ns
    FROM baseline AS b
    FULL OUTER JOIN comparison AS c
        ON b.op_type IS NOT DISTINCT FROM c.op_type
)
SELECT
    CAST(baseline_run AS VARCHAR)                           AS baseline_run,         -- baseline run name
    CAST(comparison_run AS VARCHAR)                         AS comparison_run,       -- comparison run name
    op_type::VARCHAR                                        AS op_type,              -- op type (kernel_details.csv Type; GPU kernel name)
    baseline_calls::BIGINT                                  AS baseline_calls,       -- kernel count in the baseline run
    baseline_total_ns::BIGINT                               AS baseline_total_ns,    -- total device time in the baseline run, ns
    CASE WHEN baseline_calls > 0
         THEN baseline_total_ns // baseline_calls END::BIGINT AS baseline_avg_ns,    -- average kernel time in the baseline run, ns (integer division)
    comparison_calls::BIGINT                                AS comparison_calls,     -- kernel count in the comparison run
    comparison_total_ns::BIGINT                             AS comparison_total_ns,  -- total device time in the comparison run, ns
    CASE WHEN comparison_calls > 0
         THEN comparison_total_ns // comparison_calls END::BIGINT AS comparison_avg_ns,  -- average kernel time in the comparison run, ns (integer division)
    (comparison_total_ns - baseline_total_ns)::BIGINT       AS diff_total_ns,        -- comparison − baseline total device time, ns
    (comparison_calls - baseline_calls)::BIGINT             AS diff_calls,           -- comparison − baseline kernel count
    CASE WHEN baseline_total_ns > 0
         THEN comparison_total_ns::DOUBLE / baseline_total_ns END::DOUBLE AS total_ratio     -- comparison / baseline total time; NULL when the baseline has none
FROM joined
ORDER BY diff_total_ns DESC, op_type;
