-- communication_diff — per collective type, the comparison run's communication time against the baseline run's.
-- Grain:     one row per normalised communication op type present in either run; runs chosen by
--            run.role; ordered by diff_total_ns descending.
-- Source:    communication_diff_between(baseline, comparison) on the communication kernel rows.
-- Reference: msprof-analyze compare CommunicationCompare; totals per rank.
-- Units:     *_ns integer nanoseconds; *_calls per rank; *_ratio plain ratio.
CREATE OR REPLACE VIEW communication_diff AS
SELECT
    baseline_run,
    comparison_run,
    comm_type,
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
    total_ratio
FROM communication_diff_between(
    (SELECT min(run_name) FROM run WHERE role = 'baseline'),
    (SELECT min(run_name) FROM run WHERE role = 'comparison')
);
