-- op_alignment_between — the aligned framework ops of a baseline and a comparison run, pair by pair in execution order.
-- Grain:     one row per op_match row of the pair (written by tracedb compare): a matched pair, or an
--            op one side lacks with the other side NULL; ordered by order_id.
-- Source:    op_match (tracedb/compare.py: SequenceMatcher over the top-level ops per
--            forward/backward segment, drill-down by --max-kernel-num), op (name, input_dims,
--            input_types, kernel_total_count, device_total_ns), op_precision (derive/141). The
--            kernels of an op: kernel.op_id of the op and the ops below it.
--            op.msprof_device_total_ns (derive/126) for the msprof_* columns.
-- Reference: msprof-analyze compare OperatorCompare (Order Id, Operator Name, Input Shape, Input
--            Type, Device Duration per side, Diff Duration = comparison − baseline, Diff Ratio =
--            comparison / baseline). Its Device Duration also counts the copies its flows link to
--            the op (torch_npu MEMCPY_ASYNC tasks, Kineto gpu_memcpy) and sums over its cross-thread
--            op tree: the msprof_* columns; tracedb's device_ns counts kernels of the op's own thread
--            subtree (docs/msprof-analyze.md).
-- Units:     *_ns integer nanoseconds; *_count kernels; *_ratio plain ratio.
-- Parameters: baseline_run, comparison_run — run names (run.run_name), positional.
-- Browse:    op_alignment(baseline, comparison)
CREATE OR REPLACE MACRO op_alignment_between(baseline_run, comparison_run) AS TABLE
WITH pair AS (
    SELECT m.*
    FROM op_match AS m
    JOIN run AS rb ON rb.run_id = m.baseline_run_id
    JOIN run AS rc ON rc.run_id = m.comparison_run_id
    WHERE rb.run_name = baseline_run AND rc.run_name = comparison_run
)
SELECT
    CAST(baseline_run AS VARCHAR)                     AS baseline_run,               -- baseline run name
    CAST(comparison_run AS VARCHAR)                   AS comparison_run,             -- comparison run name
    m.order_id::BIGINT                                AS order_id,                   -- position in the alignment (Order Id)
    m.baseline_rank::INTEGER                          AS baseline_rank,              -- rank of the baseline op
    m.baseline_op_id::BIGINT                          AS baseline_op_id,             -- baseline op (op.op_id); NULL when unmatched on this side
    b.name::VARCHAR                                   AS baseline_op_name,           -- baseline op name as written (Operator Name)
    b.input_dims::VARCHAR                             AS baseline_input_shape,       -- baseline args Input Dims (Input Shape)
    b.input_types::VARCHAR                            AS baseline_input_type,        -- baseline args Input type (Input Type)
    b.kernel_total_count::BIGINT                      AS baseline_kernel_count,      -- kernels launched by the baseline op and its subtree
    b.device_total_ns::BIGINT                         AS baseline_device_ns,         -- device time of those kernels, ns (Device Duration)
    m.comparison_rank::INTEGER                        AS comparison_rank,            -- rank of the comparison op
    m.comparison_op_id::BIGINT                        AS comparison_op_id,           -- comparison op (op.op_id); NULL when unmatched on this side
    c.name::VARCHAR                                   AS comparison_op_name,         -- comparison op name as written (Operator Name)
    c.input_dims::VARCHAR                             AS comparison_input_shape,     -- comparison args Input Dims (Input Shape)
    c.input_types::VARCHAR                            AS comparison_input_type,      -- comparison args Input type (Input Type)
    c.kernel_total_count::BIGINT                      AS comparison_kernel_count,    -- kernels launched by the comparison op and its subtree
    c.device_total_ns::BIGINT                         AS comparison_device_ns,       -- device time of those kernels, ns (Device Duration)
    (coalesce(c.device_total_ns, 0) - coalesce(b.device_total_ns, 0))::BIGINT AS diff_ns,  -- comparison − baseline device time, ns (Diff Duration)
    CASE WHEN coalesce(b.device_total_ns, 0) > 0
         THEN coalesce(c.device_total_ns, 0)::DOUBLE / b.device_total_ns END::DOUBLE AS device_ratio,  -- comparison / baseline device time (Diff Ratio); NULL when the baseline has none
    m.match_key::VARCHAR                              AS match_key,                  -- key the pair matched on; NULL for an unmatched row
    b.msprof_device_total_ns::BIGINT                  AS baseline_msprof_device_ns,  -- msprof-analyze's Device Duration of the baseline op: its tasks in its cross-thread tree, NPU copies (MEMCPY_ASYNC) and Kineto gpu_memcpy included (op.msprof_device_total_ns), ns
    c.msprof_device_total_ns::BIGINT                  AS comparison_msprof_device_ns, -- msprof-analyze's Device Duration of the comparison op (op.msprof_device_total_ns), ns
    bp.precision::VARCHAR                             AS baseline_precision,         -- precision of the baseline op (op_precision: its first floating-point input type; fp32, bf16, fp16 ...)
    cp.precision::VARCHAR                             AS comparison_precision        -- precision of the comparison op
FROM pair AS m
LEFT JOIN op AS b
    ON b.run_id = m.baseline_run_id AND b.rank = m.baseline_rank AND b.op_id = m.baseline_op_id
LEFT JOIN op AS c
    ON c.run_id = m.comparison_run_id AND c.rank = m.comparison_rank AND c.op_id = m.comparison_op_id
LEFT JOIN op_precision AS bp
    ON bp.run_id = m.baseline_run_id AND bp.rank = m.baseline_rank AND bp.op_id = m.baseline_op_id
LEFT JOIN op_precision AS cp
    ON cp.run_id = m.comparison_run_id AND cp.rank = m.comparison_rank AND cp.op_id = m.comparison_op_id
ORDER BY order_id;
