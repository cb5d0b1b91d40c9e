-- comm_only_step — steps whose computing is unknown: MindSpore step_trace_raw steps without
-- computing kernels (the file gives communication intervals only).
-- Grain:     one row per such (run, rank, step).
-- Source:    step (fp_ns / bp_ns from step_trace_raw), tracedb_internal.kernel_class.
-- Reference: free time and uncovered communication need the computing intervals; for these
--            steps free_time has no rows and uncovered_communication gives NULL.
-- Units:     none.
CREATE OR REPLACE VIEW tracedb_internal.comm_only_step AS
SELECT
    s.run_id::INTEGER  AS run_id,  -- run
    s.rank::INTEGER    AS rank,    -- rank
    s.step::INTEGER    AS step     -- step
FROM step AS s
LEFT JOIN (
    SELECT DISTINCT run_id, rank, step
    FROM tracedb_internal.kernel_class
    WHERE NOT is_communication AND NOT is_copy AND step IS NOT NULL
) AS c
    ON c.run_id = s.run_id AND c.rank = s.rank AND c.step = s.step
WHERE (s.fp_ns IS NOT NULL OR s.bp_ns IS NOT NULL) AND c.run_id IS NULL;
