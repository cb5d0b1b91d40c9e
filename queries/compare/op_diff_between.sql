-- op_diff_between — per framework op name, device time of a comparison run against a baseline run.
-- Grain:     one row per framework op name (after op_name_map) compared on either side; the ops
--            both sides have first, then by |diff_total_ns| descending (the top degraded op of
--            tracedb compare, summary and report is the first row), then op_name. The ops compared are those of the stored alignment
--            (op_match of the pair, written by tracedb compare: top-level ops, drilled down with
--            --max-kernel-num); without an alignment, the top-level ops (children of ProfilerStep#N
--            and roots outside steps). Steps restricted by compare_step.
-- Source:    op.device_total_ns (Σ kernel.dur_ns of the kernels the op and its subtree launched),
--            op.name, op_name_map, op_match, compare_step.
-- Reference: msprof-analyze compare OperatorCompareStatistic (Base/Comparison Device Duration,
--            Operator Number, Diff Duration = comparison − baseline, Diff Ratio = comparison /
--            baseline); totals are per rank (Σ over the run's ranks ÷ its ranks with ops), equal to
--            msprof-analyze's for one rank against one rank.
-- Units:     *_ns integer nanoseconds (per-rank totals rounded to the ns); *_calls per rank; *_count ranks;
--            *_ratio plain ratio (1.0 = unchanged); change_pct percent change of the total (+93.5 =
--            93.5 % longer in the comparison).
-- Parameters: baseline_run, comparison_run — run names (run.run_name), positional.
-- Browse:    op_diff(baseline, comparison)
CREATE OR REPLACE MACRO op_diff_between(baseline_run, comparison_run) AS TABLE
WITH b_run AS (
    SELECT run_id FROM run WHERE run_name = baseline_run
),
c_run AS (
    SELECT run_id FROM run WHERE run_name = comparison_run
),
ops AS (
    -- the two runs' ops, named once: compare_op is a view (op, its parent op, the name map and
    -- the compared steps), and each use of it is planned again
    SELECT run_id, rank, op_id, op_key, device_total_ns, is_top
    FROM tracedb_internal.compare_op
    WHERE run_id IN (SELECT run_id FROM b_run UNION ALL SELECT run_id FROM c_run)
),
pair AS (
    SELECT m.*
    FROM op_match AS m
    JOIN b_run ON m.baseline_run_id = b_run.run_id
    JOIN c_run ON m.comparison_run_id = c_run.run_id
),
aligned AS (
    SELECT count(*) AS n FROM pair
),
b_ops AS (
    SELECT o.op_key, o.rank, o.device_total_ns
    FROM ops AS o
    JOIN b_run ON o.run_id = b_run.run_id
    JOIN pair AS m ON m.baseline_rank = o.rank AND m.baseline_op_id = o.op_id
    UNION ALL
    SELECT o.op_key, o.rank, o.device_total_ns
    FROM ops AS o
    JOIN b_run ON o.run_id = b_run.run_id
    WHERE o.is_top AND (SELECT n FROM aligned) = 0
),
c_ops AS (
    SELECT o.op_key, o.rank, o.device_total_ns
    FROM ops AS o
    JOIN c_run ON o.run_id = c_run.run_id
    JOIN pair AS m ON m.comparison_rank = o.rank AND m.comparison_op_id = o.op_id
    UNION ALL
    SELECT o.op_key, o.rank, o.device_total_ns
    FROM ops AS o
    JOIN c_run ON o.run_id = c_run.run_id
    WHERE o.is_top AND (SELECT n FROM aligned) = 0
),
b_ranks AS (
    SELECT count(DISTINCT o.rank) AS n
    FROM ops AS o JOIN b_run ON o.run_id = b_run.run_id
),
c_ranks AS (
    SELECT count(DISTINCT o.rank) AS n
    FROM ops AS o JOIN c_run ON o.run_id = c_run.run_id
),
b AS (
    SELECT op_key, count(*) AS calls, sum(device_total_ns) AS total_ns FROM b_ops GROUP BY op_key
),
c AS (
    SELECT op_key, count(*) AS calls, sum(device_total_ns) AS total_ns FROM c_ops GROUP BY op_key
),
joined AS (
    SELECT
        coalesce(b.op_key, c.op_key) AS op_key,
        (SELECT n FROM b_ranks) AS b_ranks,
        (SELECT n FROM c_ranks) AS c_ranks,
        coalesce(b.calls, 0) AS b_calls,
        coalesce(b.total_ns, 0) AS b_total,
        coalesce(c.calls, 0) AS c_calls,
        coalesce(c.total_ns, 0) AS c_total
    FROM b
    FULL OUTER JOIN c ON b.op_key = c.op_key
),
per_rank AS (
    SELECT
        op_key, b_ranks, c_ranks, b_calls, b_total, c_calls, c_total,
        CASE WHEN b_ranks > 0 THEN b_calls::DOUBLE / b_ranks ELSE 0 END AS b_calls_pr,
        CASE WHEN b_ranks > 0 THEN round(b_total::DOUBLE / b_ranks) ELSE 0 END AS b_total_pr,
        CASE WHEN c_ranks > 0 THEN c_calls::DOUBLE / c_ranks ELSE 0 END AS c_calls_pr,
        CASE WHEN c_ranks > 0 THEN round(c_total::DOUBLE / c_ranks) ELSE 0 END AS c_total_pr
    FROM joined
)
SELECT
    op_key::VARCHAR                               AS op_name,              -- framework op name after op_name_map (msprof-analyze Operator Name)
    b_total_pr::BIGINT                            AS baseline_total_ns,    -- device time of these ops and their subtrees per baseline rank, ns (Base Device Duration)
    c_total_pr::BIGINT                            AS comparison_total_ns,  -- device time of these ops and their subtrees per comparison rank, ns (Comparison Device Duration)
    (c_total_pr - b_total_pr)::BIGINT             AS diff_total_ns,        -- comparison − baseline device time per rank, ns (Diff Duration)
    CASE WHEN b_total_pr > 0
         THEN (c_total_pr - b_total_pr) * 100.0 / b_total_pr END::DOUBLE AS change_pct,  -- (comparison − baseline) / baseline device time × 100; NULL when the baseline has none
    b_calls_pr::DOUBLE                            AS baseline_calls,       -- ops of this name per baseline rank (Base Operator Number)
    c_calls_pr::DOUBLE                            AS comparison_calls,     -- ops of this name per comparison rank (Comparison Operator Number)
    (c_calls_pr - b_calls_pr)::DOUBLE             AS diff_calls,           -- comparison − baseline ops per rank
    CASE WHEN b_calls > 0
         THEN b_total // b_calls END::BIGINT      AS baseline_avg_ns,      -- device time per baseline op, ns (integer division)
    CASE WHEN c_calls > 0
         THEN c_total // c_calls END::BIGINT      AS comparison_avg_ns,    -- device time per comparison op, ns (integer division)
    CASE WHEN b_total_pr > 0
         THEN c_total_pr::DOUBLE / b_total_pr END::DOUBLE AS total_ratio,  -- comparison / baseline device time (Diff Ratio); NULL when the baseline has none
    CASE WHEN b_calls > 0 AND c_calls > 0 AND b_total > 0
         THEN (c_total::DOUBLE / c_calls) / (b_total::DOUBLE / b_calls) END::DOUBLE AS avg_ratio,  -- comparison / baseline device time per op; NULL when a side has none
    b_ranks::BIGINT                               AS baseline_rank_count,  -- ranks of the baseline run with framework ops (the per-rank divisor)
    c_ranks::BIGINT                               AS comparison_rank_count, -- ranks of the comparison run with framework ops (the per-rank divisor)
    CAST(baseline_run AS VARCHAR)                 AS baseline_run,         -- baseline run name
    CAST(comparison_run AS VARCHAR)               AS comparison_run,       -- comparison run name
    op_key::VARCHAR                               AS op_type               -- same as op_name (schema 1 had kernel.op_type here: that comparison is kernel_diff now)
FROM per_rank
ORDER BY (b_calls > 0 AND c_calls > 0) DESC, abs(c_total_pr - b_total_pr) DESC, op_name;
