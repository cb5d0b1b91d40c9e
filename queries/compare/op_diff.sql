-- op_diff — per framework op name, the comparison run's device time against the baseline run's.
-- Grain:     one row per framework op name (after op_name_map) compared on either side; runs chosen
--            by run.role (tracedb compare, tracedb ingest --role); ordered by diff_total_ns descending.
-- Source:    op_diff_between(baseline, comparison): op.device_total_ns of the aligned ops (op_match),
--            else of the top-level ops.
-- Reference: msprof-analyze compare OperatorCompareStatistic; totals per rank.
-- Units:     *_ns integer nanoseconds; *_calls per rank; *_count ranks; *_ratio plain ratio.
CREATE OR REPLACE VIEW op_diff AS
SELECT
    baseline_run,
    comparison_run,
    op_name,
    op_type,
    baseline_rank_count,
    baseline_calls,
    baseline_total_ns,
    baseline_avg_ns,
    comparison_rank_count,
    comparison_calls,
    comparison_total_ns,
    comparison_avg_ns,
    diff_total_ns,
    diff_calls,
    total_ratio,
    avg_ratio,
    baseline_precision,
    comparison_precision
FROM op_diff_between(
    (SELECT min(run_name) FROM run WHERE role = 'baseline'),
    (SELECT min(run_name) FROM run WHERE role = 'comparison')
);
