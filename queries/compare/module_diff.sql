-- module_diff — per nn.Module path, the comparison run's device time against the baseline run's.
-- Grain:     one row per nn.Module path present in either run; runs chosen by run.role; ordered by
--            diff_total_ns descending.
-- Source:    module_diff_between(baseline, comparison) over table module (nn.Module calls,
--            optimizer ops, backward modules) and its device times.
-- Reference: msprof-analyze compare ModuleCompareStatistic ("[ TOTAL ]" rows); totals per rank.
-- Units:     *_ns integer nanoseconds; *_calls module calls per rank; *_op_count ops per rank;
--            *_ratio plain ratio.
CREATE OR REPLACE VIEW module_diff AS
SELECT
    baseline_run,
    comparison_run,
    module_path,
    module_class,
    module_level,
    baseline_op_count,
    baseline_self_ns,
    baseline_total_ns,
    comparison_op_count,
    comparison_self_ns,
    comparison_total_ns,
    diff_total_ns,
    diff_self_ns,
    total_ratio,
    baseline_calls,
    comparison_calls
FROM module_diff_between(
    (SELECT min(run_name) FROM run WHERE role = 'baseline'),
    (SELECT min(run_name) FROM run WHERE role = 'comparison')
);
