-- overall_comparison — msprof-analyze compare's overall table (OverallMetrics) for the baseline
-- run against the comparison run: what tracedb compare prints first.
-- Grain:     one row per (metric, parent_metric) present in either run; runs chosen by run.role
--            (tracedb ingest --role baseline|comparison); ordered as msprof-analyze's sheet.
-- Source:    overall_comparison_between(baseline, comparison) over overall_summary.
-- Reference: msprof-analyze compare OverallMetrics (diff = comparison − baseline, ratio =
--            comparison / baseline, Duration Ratio = duration / E2E); per rank averaged.
-- Units:     *_ns integer nanoseconds; *_count kernels; *_bytes bytes; *_gbps GB/s; *_ratio plain ratios.
CREATE OR REPLACE VIEW overall_comparison AS
SELECT
    baseline_run,
    comparison_run,
    metric,
    parent_metric,
    baseline_dur_ns,
    baseline_kernel_count,
    baseline_e2e_ratio,
    comparison_dur_ns,
    comparison_kernel_count,
    comparison_e2e_ratio,
    diff_ns,
    diff_ratio,
    baseline_size_bytes,
    comparison_size_bytes,
    baseline_bandwidth_gbps,
    comparison_bandwidth_gbps,
    sort_key,
    baseline_msprof_dur_ns,
    comparison_msprof_dur_ns
FROM overall_comparison_between(
    (SELECT min(run_name) FROM run WHERE role = 'baseline'),
    (SELECT min(run_name) FROM run WHERE role = 'comparison')
);
