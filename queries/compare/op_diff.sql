-- op_diff — per op type, the comparison run's device time against the baseline run's.
-- Grain:     one row per op type present in either run; runs chosen by run.role
--            (tracedb ingest --role baseline|comparison); ordered by diff_total_ns descending.
-- Source:    op_diff_between(baseline, comparison) on kernel.op_type / kernel.dur_ns.
-- Reference: msprof-analyze compare (diff = comparison − baseline, ratio = comparison / baseline).
-- Units:     *_ns integer nanoseconds; *_ratio plain ratio.
CREATE OR REPLACE VIEW op_diff AS
SELECT
    baseline_run,
    comparison_run,
    op_type,
    baseline_calls,
    baseline_total_ns,
    baseline_avg_ns,
    comparison_calls,
    comparison_total_ns,
    comparison_avg_ns,
    diff_total_ns,
    diff_calls,
    total_ratio
FROM op_diff_between(
    (SELECT min(run_name) FROM run WHERE role = 'baseline'),
    (SELECT min(run_name) FROM run WHERE role = 'comparison')
);
