-- memory_diff — per framework op name, memory the comparison run's ops allocated against the baseline run's.
-- Grain:     one row per framework op name compared on either side; runs chosen by run.role; ordered by diff_memory_bytes descending.
-- Source:    memory_diff_between(baseline, comparison).
-- Reference: msprof-analyze compare MemoryCompareStatistic; totals per rank.
-- Units:     *_bytes bytes; *_ns integer nanoseconds; *_calls per rank; *_ratio plain ratio.
CREATE OR REPLACE VIEW memory_diff AS
SELECT
    baseline_run,
    comparison_run,
    op_name,
    baseline_calls,
    baseline_memory_bytes,
    baseline_alloc_ns,
    comparison_calls,
    comparison_memory_bytes,
    comparison_alloc_ns,
    diff_memory_bytes,
    memory_ratio
FROM memory_diff_between(
    (SELECT min(run_name) FROM run WHERE role = 'baseline'),
    (SELECT min(run_name) FROM run WHERE role = 'comparison')
);
