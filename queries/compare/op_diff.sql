-- op_diff — per op type, the comparison run's device time against the baseline run's.
-- Grain:     one row per op type present in either run; runs chosen by run.role
--            (tracedb ingest --role baseline|comparison); ordered by diff_total_ns descending.
-- Source:    op_diff_between(baseline, comparison) on kernel.op_type / kernel.dur_ns.
-- Reference: msprof-analyze compare (diff = comparison − baseline, ratio = comparison / baseline).
-- Units:     *_ns integer nanoseconds; *_ratio plain ratio.
CREATE OR REPLACE VIEW op_diff AS
SELECT
    baseline_run,         -- baseline run name (run.role = baseline)
    comparison_run,       -- comparison run name (run.role = comparison)
    op_type,              -- op type
    baseline_calls,       -- kernel count in the baseline run
    baseline_total_ns,    -- total device time in the baseline run, ns
    baseline_avg_ns,      -- average kernel time in the baseline run, ns
    comparison_calls,     -- kernel count in the comparison run
    comparison_total_ns,  -- total device time in the comparison run, ns
    comparison_avg_ns,    -- average kernel time in the comparison run, ns
    diff_total_ns,        -- comparison − baseline total device time, ns
    diff_calls,           -- comparison − baseline kernel count
    total_ratio           -- comparison / baseline total time; NULL when the baseline has none
FROM op_diff_between(
    (SELECT min(run_name) FROM run WHERE role = 'baseline'),
    (SELECT min(run_name) FROM run WHERE role = 'comparison')
);
