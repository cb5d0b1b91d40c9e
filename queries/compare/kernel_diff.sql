-- kernel_diff — per kernel type and input shapes, the comparison run's device time against the baseline run's.
-- Grain:     one row per (kernel type, input shapes) present in either run; runs chosen by run.role;
--            ordered by diff_total_ns descending.
-- Source:    kernel_diff_between(baseline, comparison) on kernel.op_type, input_shapes, dur_ns.
-- Reference: msprof-analyze compare KernelCompare; totals per rank. (Before schema 2 this was op_diff.)
-- Units:     *_ns integer nanoseconds; *_calls per rank; *_ratio plain ratio.
CREATE OR REPLACE VIEW kernel_diff AS
SELECT
    baseline_run,
    comparison_run,
    kernel_type,
    input_shapes,
    baseline_calls,
    baseline_total_ns,
    baseline_avg_ns,
    baseline_max_ns,
    baseline_min_ns,
    comparison_calls,
    comparison_total_ns,
    comparison_avg_ns,
    comparison_max_ns,
    comparison_min_ns,
    diff_total_ns,
    diff_calls,
    total_ratio,
    avg_ratio
FROM kernel_diff_between(
    (SELECT min(run_name) FROM run WHERE role = 'baseline'),
    (SELECT min(run_name) FROM run WHERE role = 'comparison')
);
