-- module_alignment — the aligned modules of the baseline and the comparison run, pair by pair.
-- Grain:     one row per module_match row of the pair; runs chosen by run.role; ordered by order_id.
-- Source:    module_alignment_between(baseline, comparison) over module_match (written by tracedb
--            compare) and module.
-- Reference: msprof-analyze compare ModuleCompare ("TOTAL" rows).
-- Units:     *_ns integer nanoseconds; *_ratio plain ratio.
CREATE OR REPLACE VIEW module_alignment AS
SELECT
    baseline_run,
    comparison_run,
    order_id,
    module_class,
    module_level,
    baseline_rank,
    baseline_module_id,
    baseline_module_path,
    baseline_self_ns,
    baseline_total_ns,
    comparison_rank,
    comparison_module_id,
    comparison_module_path,
    comparison_self_ns,
    comparison_total_ns,
    diff_total_ns,
    diff_self_ns,
    total_ratio
FROM module_alignment_between(
    (SELECT min(run_name) FROM run WHERE role = 'baseline'),
    (SELECT min(run_name) FROM run WHERE role = 'comparison')
);
