-- kernel_diff_between — per kernel type and input shapes, device time of a comparison run against a baseline run.
-- Grain:     one row per (kernel type, input shapes) present in either run; kernels whose type is
--            empty or N/A (Level0 compute kernels) and NPU copy tasks are left out; steps restricted by compare_step;
--            ordered by diff_total_ns descending.
-- Source:    kernel.op_type (kernel_details.csv "Type"; GPU and trace-only NPU: the kernel name),
--            kernel.input_shapes ("Input Shapes", N/A when empty), kernel.dur_ns ("Duration(us)").
-- Reference: msprof-analyze compare KernelCompare (NPU↔NPU): Total/Avg/Max/Min Duration, Calls per
--            side, Diff Total Ratio and Diff Avg Ratio = comparison / baseline. Totals and calls are
--            per rank (Σ over the run's ranks ÷ its ranks with kernels); max/min over all ranks.
-- Units:     *_ns integer nanoseconds (per-rank totals rounded to the ns); *_calls per rank;
--            *_ratio plain ratio (1.0 = unchanged).
-- Parameters: baseline_run, comparison_run — run names (run.run_name), positional.
-- Browse:    kernel_diff(baseline, comparison)
CREATE OR REPLACE MACRO kernel_diff_between(baseline_run, comparison_run) AS TABLE
WITH kept AS (
    SELECT k.run_id, k.rank, k.op_type, coalesce(nullif(k.input_shapes, ''), 'N/A') AS input_shapes, k.dur_ns
    FROM kernel AS k
    LEFT JOIN (SELECT DISTINCT run_id FROM compare_step) AS rs ON rs.run_id = k.run_id
    LEFT JOIN (SELECT DISTINCT run_id, step FROM compare_step) AS cs
        ON cs.run_id = k.run_id AND cs.step = k.step
    WHERE k.op_type IS NOT NULL AND k.op_type NOT IN ('', 'N/A')
      -- NPU copy tasks (trace_view.json / DB MEMCPY_ASYNC) are not kernel_details.csv rows, which
      -- KernelCompare compares
      AND NOT (k.copy_kind IS NOT NULL AND k.source IN ('trace_view', 'ascend_db'))
      AND (rs.run_id IS NULL OR cs.step IS NOT NULL)
),
b_k AS (
    SELECT kept.* FROM kept JOIN run AS r ON r.run_id = kept.run_id WHERE r.run_name = baseline_run
),
c_k AS (
    SELECT kept.* FROM kept JOIN run AS r ON r.run_id = kept.run_id WHERE r.run_name = comparison_run
),
b AS (
    SELECT op_type, input_shapes, count(*) AS calls, sum(dur_ns) AS total_ns, max(dur_ns) AS max_ns,
           min(dur_ns) AS min_ns, (SELECT count(DISTINCT rank) FROM b_k) AS ranks
    FROM b_k GROUP BY op_type, input_shapes
),
c AS (
    SELECT op_type, input_shapes, count(*) AS calls, sum(dur_ns) AS total_ns, max(dur_ns) AS max_ns,
           min(dur_ns) AS min_ns, (SELECT count(DISTINCT rank) FROM c_k) AS ranks
    FROM c_k GROUP BY op_type, input_shapes
),
joined AS (
    SELECT
        coalesce(b.op_type, c.op_type) AS op_type,
        coalesce(b.input_shapes, c.input_shapes) AS input_shapes,
        coalesce(b.calls, 0) AS b_calls, coalesce(b.total_ns, 0) AS b_total, b.max_ns AS b_max, b.min_ns AS b_min,
        CASE WHEN b.ranks > 0 THEN round(b.total_ns::DOUBLE / b.ranks) ELSE 0 END AS b_total_pr,
        CASE WHEN b.ranks > 0 THEN b.calls::DOUBLE / b.ranks ELSE 0 END AS b_calls_pr,
        coalesce(c.calls, 0) AS c_calls, coalesce(c.total_ns, 0) AS c_total, c.max_ns AS c_max, c.min_ns AS c_min,
        CASE WHEN c.ranks > 0 THEN round(c.total_ns::DOUBLE / c.ranks) ELSE 0 END AS c_total_pr,
        CASE WHEN c.ranks > 0 THEN c.calls::DOUBLE / c.ranks ELSE 0 END AS c_calls_pr
    FROM b
    FULL OUTER JOIN c ON b.op_type = c.op_type AND b.input_shapes = c.input_shapes
)
SELECT
    CAST(baseline_run AS VARCHAR)                  AS baseline_run,          -- baseline run name
    CAST(comparison_run AS VARCHAR)                AS comparison_run,        -- comparison run name
    op_type::VARCHAR                               AS kernel_type,           -- kernel type (kernel_details.csv Type; GPU: kernel name)
    input_shapes::VARCHAR                          AS input_shapes,          -- kernel_details.csv Input Shapes as written, N/A when empty
    b_calls_pr::DOUBLE                             AS baseline_calls,        -- kernels per baseline rank (Calls)
    b_total_pr::BIGINT                             AS baseline_total_ns,     -- device time per baseline rank, ns (Total Duration)
    CASE WHEN b_calls > 0 THEN b_total // b_calls END::BIGINT AS baseline_avg_ns,  -- device time per baseline kernel, ns (Avg Duration; integer division)
    b_max::BIGINT                                  AS baseline_max_ns,       -- longest baseline kernel, ns (Max Duration)
    b_min::BIGINT                                  AS baseline_min_ns,       -- shortest baseline kernel, ns (Min Duration)
    c_calls_pr::DOUBLE                             AS comparison_calls,      -- kernels per comparison rank (Calls)
    c_total_pr::BIGINT                             AS comparison_total_ns,   -- device time per comparison rank, ns (Total Duration)
    CASE WHEN c_calls > 0 THEN c_total // c_calls END::BIGINT AS comparison_avg_ns,  -- device time per comparison kernel, ns (Avg Duration; integer division)
    c_max::BIGINT                                  AS comparison_max_ns,     -- longest comparison kernel, ns (Max Duration)
    c_min::BIGINT                                  AS comparison_min_ns,     -- shortest comparison kernel, ns (Min Duration)
    (c_total_pr - b_total_pr)::BIGINT              AS diff_total_ns,         -- comparison − baseline device time per rank, ns
    (c_calls_pr - b_calls_pr)::DOUBLE              AS diff_calls,            -- comparison − baseline kernels per rank
    CASE WHEN b_total_pr > 0 THEN c_total_pr::DOUBLE / b_total_pr END::DOUBLE AS total_ratio,  -- comparison / baseline device time (Diff Total Ratio); NULL when the baseline has none
    CASE WHEN b_calls > 0 AND c_calls > 0 AND b_total > 0
         THEN (c_total::DOUBLE / c_calls) / (b_total::DOUBLE / b_calls) END::DOUBLE AS avg_ratio  -- comparison / baseline time per kernel (Diff Avg Ratio); NULL when a side has none
FROM joined
ORDER BY diff_total_ns DESC, kernel_type, input_shapes;
