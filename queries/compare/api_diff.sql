-- api_diff — per framework op name at every tree level, the comparison run's host time against the baseline run's.
-- Grain:     one row per framework op name present in either run; runs chosen by run.role; ordered by diff_total_ns descending.
-- Source:    api_diff_between(baseline, comparison).
-- Reference: msprof-analyze compare ApiCompare; totals per rank.
-- Units:     *_ns integer nanoseconds; *_calls per rank; *_ratio plain ratio.
CREATE OR REPLACE VIEW api_diff AS
SELECT
    baseline_run,
    comparison_run,
    op_name,
    baseline_calls,
    baseline_total_ns,
    baseline_self_ns,
    baseline_avg_ns,
    comparison_calls,
    comparison_total_ns,
    comparison_self_ns,
    comparison_avg_ns,
    diff_total_ns,
    total_ratio,
    self_ratio,
    avg_ratio,
    calls_ratio,
    baseline_msprof_self_ns,
    comparison_msprof_self_ns
FROM api_diff_between(
    (SELECT min(run_name) FROM run WHERE role = 'baseline'),
    (SELECT min(run_name) FROM run WHERE role = 'comparison')
);
