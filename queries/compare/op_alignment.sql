-- op_alignment — the aligned framework ops of the baseline and the comparison run, pair by pair in execution order.
-- Grain:     one row per op_match row of the pair; runs chosen by run.role; ordered by order_id.
-- Source:    op_alignment_between(baseline, comparison) over op_match (written by tracedb compare) and op.
-- Reference: msprof-analyze compare OperatorCompare.
-- Units:     *_ns integer nanoseconds; *_count kernels; *_ratio plain ratio.
CREATE OR REPLACE VIEW op_alignment AS
SELECT
    baseline_run,
    comparison_run,
    order_id,
    baseline_rank,
    baseline_op_id,
    baseline_op_name,
    baseline_input_shape,
    baseline_input_type,
    baseline_kernel_count,
    baseline_device_ns,
    comparison_rank,
    comparison_op_id,
    comparison_op_name,
    comparison_input_shape,
    comparison_input_type,
    comparison_kernel_count,
    comparison_device_ns,
    diff_ns,
    device_ratio,
    match_key,
    baseline_precision,
    comparison_precision
FROM op_alignment_between(
    (SELECT min(run_name) FROM run WHERE role = 'baseline'),
    (SELECT min(run_name) FROM run WHERE role = 'comparison')
);
