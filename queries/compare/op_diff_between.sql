-- op_diff_between — per framework op name, device time of a comparison run against a baseline run.
-- Grain:     one row per framework op name (after op_name_map) compared on either side; the ops
--            both sides have first, then by |diff_total_ns| descending (the top degraded op of
--            tracedb compare, summary and report is the first row), then op_name. The ops compared are those of the stored alignment
--            (op_match of the pair, written by tracedb compare: top-level ops, drilled down with
--            --max-kernel-num); without an alignment, the top-level ops (children of ProfilerStep#N
--            and roots outside steps). Steps restricted by compare_step.
-- Source:    op.device_total_ns (Σ kernel.dur_ns of the kernels the op and its subtree launched),
--            op.name, op_name_map, op_match, compare_step; op_precision (derive/141: the op's first
--            floating-point input type, Kineto / trace_view "Input type").
-- Reference: msprof-analyze compare OperatorCompareStatistic (Base/Comparison Device Duration,
--            Operator Number, Diff Duration = comparison − baseline, Diff Ratio = comparison /
--            baseline); totals are per rank (Σ over the run's ranks ÷ its ranks with ops), equal to
--            msprof-analyze's for one rank against one rank where it counts kernels only.
--            msprof-analyze also counts the copies its flows link to an op (torch_npu MEMCPY_ASYNC /
--            SDMA tasks: aten::to 0.845 ms there against 2.6 µs of kernels; Kineto gpu_memcpy) and
--            sums an op's subtree over all host threads: *_msprof_total_ns, from
--            op.msprof_device_total_ns (derive/126), over the same ops.
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
    SELECT o.run_id, o.rank, o.op_id, o.op_key, o.device_total_ns, o.msprof_device_total_ns, o.is_top, p.precision
    FROM tracedb_internal.compare_op AS o
    LEFT JOIN op_precision AS p
        ON p.run_id = o.run_id AND p.rank = o.rank AND p.op_id = o.op_id
    WHERE o.run_id IN (SELECT run_id FROM b_run UNION ALL SELECT run_id FROM c_run)
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
    SELECT o.op_key, o.rank, o.device_total_ns, o.msprof_device_total_ns, o.precision
    FROM ops AS o
    JOIN b_run ON o.run_id = b_run.run_id
    JOIN pair AS m ON m.baseline_rank = o.rank AND m.baseline_op_id = o.op_id
    UNION ALL
    SELECT o.op_key, o.rank, o.device_total_ns, o.msprof_device_total_ns, o.precision
    FROM ops AS o
    JOIN b_run ON o.run_id = b_run.run_id
    WHERE o.is_top AND (SELECT n FROM aligned) = 0
),
c_ops AS (
    SELECT o.op_key, o.rank, o.device_total_ns, o.msprof_device_total_ns, o.precision
    FROM ops AS o
    JOIN c_run ON o.run_id = c_run.run_id
    JOIN pair AS m ON m.comparison_rank = o.rank AND m.comparison_op_id = o.op_id
    UNION ALL
    SELECT o.op_key, o.rank, o.device_total_ns, o.msprof_device_total_ns, o.precision
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
    SELECT op_key, count(*) AS calls, sum(device_total_ns) AS total_ns, sum(msprof_device_total_ns) AS msprof_ns
    FROM b_ops GROUP BY op_key
),
c AS (
    SELECT op_key, count(*) AS calls, sum(device_total_ns) AS total_ns, sum(msprof_device_total_ns) AS msprof_ns
    FROM c_ops GROUP BY op_key
),
side_precision AS (
    -- per side and op name, the precision with the most device time (then the most ops, then
    -- the name): "fp32 on the NPU, bf16 on the GPU"
    SELECT side AS p_side, op_key AS p_key, precision AS p_precision
    FROM (
        SELECT side, op_key, precision,
               row_number() OVER (PARTITION BY side, op_key ORDER BY ns DESC, n DESC, precision) AS pick
        FROM (
            SELECT 'b' AS side, op_key, precision, sum(device_total_ns) AS ns, count(*) AS n
            FROM b_ops WHERE precision IS NOT NULL GROUP BY op_key, precision
            UNION ALL
            SELECT 'c', op_key, precision, sum(device_total_ns), count(*)
            FROM c_ops WHERE precision IS NOT NULL GROUP BY op_key, precision
        ) AS per_precision
    ) AS ranked
    WHERE pick = 1
),
joined AS (
    SELECT
        coalesce(b.op_key, c.op_key) AS op_key,
        (SELECT n FROM b_ranks) AS b_ranks,
        (SELECT n FROM c_ranks) AS c_ranks,
        coalesce(b.calls, 0) AS b_calls,
        coalesce(b.total_ns, 0) AS b_total,
        coalesce(c.calls, 0) AS c_calls,
        coalesce(c.total_ns, 0) AS c_total,
        coalesce(b.msprof_ns, 0) AS b_msprof,
        coalesce(c.msprof_ns, 0) AS c_msprof
    FROM b
    FULL OUTER JOIN c ON b.op_key = c.op_key
),
per_rank AS (
    SELECT
        op_key, b_ranks, c_ranks, b_calls, b_total, c_calls, c_total,
        CASE WHEN b_ranks > 0 THEN round(b_msprof::DOUBLE / b_ranks) ELSE 0 END AS b_msprof_pr,
        CASE WHEN c_ranks > 0 THEN round(c_msprof::DOUBLE / c_ranks) ELSE 0 END AS c_msprof_pr,
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
    b_msprof_pr::BIGINT                           AS baseline_msprof_total_ns,   -- msprof-analyze's Base Device Duration of the same ops per baseline rank: copies its flows link (NPU MEMCPY_ASYNC, Kineto gpu_memcpy) included, subtrees over all threads (op.msprof_device_total_ns), ns
    c_msprof_pr::BIGINT                           AS comparison_msprof_total_ns, -- msprof-analyze's Comparison Device Duration of the same ops per comparison rank (op.msprof_device_total_ns), ns
    bp.p_precision::VARCHAR                       AS baseline_precision,   -- precision of the baseline's ops of this name (op_precision: the first floating-point input type; fp32, bf16, fp16 ...), the one with the most device time; NULL when no type was recorded
    cp.p_precision::VARCHAR                       AS comparison_precision, -- as baseline_precision, comparison side
    b_ranks::BIGINT                               AS baseline_rank_count,  -- ranks of the baseline run with framework ops (the per-rank divisor)
    c_ranks::BIGINT                               AS comparison_rank_count, -- ranks of the comparison run with framework ops (the per-rank divisor)
    CAST(baseline_run AS VARCHAR)                 AS baseline_run,         -- baseline run name
    CAST(comparison_run AS VARCHAR)               AS comparison_run,       -- comparison run name
    op_key::VARCHAR                               AS op_type               -- same as op_name (schema 1 had kernel.op_type here: that comparison is kernel_diff now)
FROM per_rank
LEFT JOIN side_precision AS bp
    ON bp.p_side = 'b' AND bp.p_key = per_rank.op_key
LEFT JOIN side_precision AS cp
    ON cp.p_side = 'c' AND cp.p_key = per_rank.op_key
ORDER BY (b_calls > 0 AND c_calls > 0) DESC, abs(c_total_pr - b_total_pr) DESC, op_name;
