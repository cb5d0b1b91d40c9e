-- api_diff_between — per framework op name at every tree level, host time of a comparison run against a baseline run.
-- Grain:     one row per framework op name (after op_name_map) present in either run, ProfilerStep#N
--            excluded; steps restricted by compare_step; ordered by diff_total_ns descending.
-- Source:    op.dur_ns (trace event dur of the cpu_op) of every op; self time = dur_ns − Σ dur_ns of
--            the op's direct children (op.parent_op_id).
-- Reference: msprof-analyze compare ApiCompare (Total Duration, Self Time, Avg Duration, Calls per
--            side; Diff Total/Self/Avg/Calls Ratio = comparison / baseline). msprof-analyze nests ops
--            of all threads in one tree by start time; tracedb's op tree is per thread, so an op
--            another thread's op overlaps is not its child here: *_msprof_self_ns subtracts the
--            children of msprof-analyze's tree (op.msprof_parent_op_id; its GPU tree also holds the
--            CUDA runtime calls, which tracedb's op table does not). Totals and calls per rank.
-- Units:     *_ns integer nanoseconds (per-rank totals rounded to the ns); *_calls per rank;
--            *_ratio plain ratio.
-- Parameters: baseline_run, comparison_run — run names (run.run_name), positional.
-- Browse:    api_diff(baseline, comparison)
CREATE OR REPLACE MACRO api_diff_between(baseline_run, comparison_run) AS TABLE
WITH child AS (
    SELECT run_id, rank, parent_op_id, sum(dur_ns) AS child_ns
    FROM op
    WHERE parent_op_id IS NOT NULL
    GROUP BY run_id, rank, parent_op_id
),
msprof_child AS (
    SELECT run_id, rank, msprof_parent_op_id, sum(dur_ns) AS child_ns
    FROM op
    WHERE msprof_parent_op_id IS NOT NULL
    GROUP BY run_id, rank, msprof_parent_op_id
),
api AS (
    SELECT o.run_id, o.rank, o.op_key, o.dur_ns, o.dur_ns - coalesce(ch.child_ns, 0) AS self_ns,
           o.dur_ns - coalesce(mc.child_ns, 0) AS msprof_self_ns
    FROM tracedb_internal.compare_op AS o
    LEFT JOIN child AS ch ON ch.run_id = o.run_id AND ch.rank = o.rank AND ch.parent_op_id = o.op_id
    LEFT JOIN msprof_child AS mc ON mc.run_id = o.run_id AND mc.rank = o.rank AND mc.msprof_parent_op_id = o.op_id
),
b_a AS (
    SELECT api.* FROM api JOIN run AS r ON r.run_id = api.run_id WHERE r.run_name = baseline_run
),
c_a AS (
    SELECT api.* FROM api JOIN run AS r ON r.run_id = api.run_id WHERE r.run_name = comparison_run
),
b AS (
    SELECT op_key, count(*) AS calls, sum(dur_ns) AS total_ns, sum(self_ns) AS self_ns,
           sum(msprof_self_ns) AS msprof_self_ns, (SELECT count(DISTINCT rank) FROM b_a) AS ranks
    FROM b_a GROUP BY op_key
),
c AS (
    SELECT op_key, count(*) AS calls, sum(dur_ns) AS total_ns, sum(self_ns) AS self_ns,
           sum(msprof_self_ns) AS msprof_self_ns, (SELECT count(DISTINCT rank) FROM c_a) AS ranks
    FROM c_a GROUP BY op_key
),
joined AS (
    SELECT
        coalesce(b.op_key, c.op_key) AS op_key,
        coalesce(b.calls, 0) AS b_calls, coalesce(b.total_ns, 0) AS b_total,
        CASE WHEN b.ranks > 0 THEN b.calls::DOUBLE / b.ranks ELSE 0 END AS b_calls_pr,
        CASE WHEN b.ranks > 0 THEN round(b.total_ns::DOUBLE / b.ranks) ELSE 0 END AS b_total_pr,
        CASE WHEN b.ranks > 0 THEN round(b.self_ns::DOUBLE / b.ranks) ELSE 0 END AS b_self_pr,
        coalesce(c.calls, 0) AS c_calls, coalesce(c.total_ns, 0) AS c_total,
        CASE WHEN c.ranks > 0 THEN c.calls::DOUBLE / c.ranks ELSE 0 END AS c_calls_pr,
        CASE WHEN c.ranks > 0 THEN round(c.total_ns::DOUBLE / c.ranks) ELSE 0 END AS c_total_pr,
        CASE WHEN c.ranks > 0 THEN round(c.self_ns::DOUBLE / c.ranks) ELSE 0 END AS c_self_pr,
        CASE WHEN b.ranks > 0 THEN round(b.msprof_self_ns::DOUBLE / b.ranks) ELSE 0 END AS b_msprof_self_pr,
        CASE WHEN c.ranks > 0 THEN round(c.msprof_self_ns::DOUBLE / c.ranks) ELSE 0 END AS c_msprof_self_pr
    FROM b
    FULL OUTER JOIN c ON b.op_key = c.op_key
)
SELECT
    CAST(baseline_run AS VARCHAR)                  AS baseline_run,          -- baseline run name
    CAST(comparison_run AS VARCHAR)                AS comparison_run,        -- comparison run name
    op_key::VARCHAR                                AS op_name,               -- framework op name after op_name_map (Name)
    b_calls_pr::DOUBLE                             AS baseline_calls,        -- ops per baseline rank (Calls)
    b_total_pr::BIGINT                             AS baseline_total_ns,     -- host time per baseline rank, ns (Total Duration)
    b_self_pr::BIGINT                              AS baseline_self_ns,      -- host time minus direct children per baseline rank, ns (Self Time)
    CASE WHEN b_calls > 0 THEN b_total // b_calls END::BIGINT AS baseline_avg_ns,  -- host time per baseline op, ns (Avg Duration; integer division)
    c_calls_pr::DOUBLE                             AS comparison_calls,      -- ops per comparison rank (Calls)
    c_total_pr::BIGINT                             AS comparison_total_ns,   -- host time per comparison rank, ns (Total Duration)
    c_self_pr::BIGINT                              AS comparison_self_ns,    -- host time minus direct children per comparison rank, ns (Self Time)
    CASE WHEN c_calls > 0 THEN c_total // c_calls END::BIGINT AS comparison_avg_ns,  -- host time per comparison op, ns (Avg Duration; integer division)
    (c_total_pr - b_total_pr)::BIGINT              AS diff_total_ns,         -- comparison − baseline host time per rank, ns
    CASE WHEN b_total_pr > 0 THEN c_total_pr::DOUBLE / b_total_pr END::DOUBLE AS total_ratio,  -- comparison / baseline host time (Diff Total Ratio); NULL when the baseline has none
    CASE WHEN b_self_pr > 0 THEN c_self_pr::DOUBLE / b_self_pr END::DOUBLE    AS self_ratio,   -- comparison / baseline self time (Diff Self Ratio); NULL when the baseline has none
    CASE WHEN b_calls > 0 AND c_calls > 0 AND b_total > 0
         THEN (c_total::DOUBLE / c_calls) / (b_total::DOUBLE / b_calls) END::DOUBLE AS avg_ratio,  -- comparison / baseline time per op (Diff Avg Ratio); NULL when a side has none
    CASE WHEN b_calls_pr > 0 THEN c_calls_pr / b_calls_pr END::DOUBLE        AS calls_ratio,  -- comparison / baseline calls (Diff Calls Ratio); NULL when the baseline has none
    b_msprof_self_pr::BIGINT                       AS baseline_msprof_self_ns,   -- msprof-analyze's Self Time per baseline rank: minus the direct children in its tree over all threads (op.msprof_parent_op_id), ns
    c_msprof_self_pr::BIGINT                       AS comparison_msprof_self_ns  -- msprof-analyze's Self Time per comparison rank (op.msprof_parent_op_id), ns
FROM joined
ORDER BY diff_total_ns DESC, op_name;
