-- The profiler's own numbers, kept to cross-check the views (never used to compute them).

CREATE TABLE IF NOT EXISTS profiler_step_trace (
    run_id                                          INTEGER NOT NULL,
    rank                                            INTEGER NOT NULL,
    file_id                                         INTEGER NOT NULL,
    device_id                                       INTEGER,
    step                                            INTEGER,
    computing_ns                                    BIGINT,
    communication_not_overlapped_ns                 BIGINT,
    overlapped_ns                                   BIGINT,
    communication_ns                                BIGINT,
    free_ns                                         BIGINT,
    stage_ns                                        BIGINT,
    bubble_ns                                       BIGINT,
    communication_not_overlapped_exclude_receive_ns BIGINT,
    preparing_ns                                    BIGINT
);
COMMENT ON TABLE profiler_step_trace IS 'step_trace_time.csv rows as the profiler wrote them (µs converted to integer ns, exact decimal parse). Reference only: step_breakdown never reads it; step_breakdown_check compares with it.';
COMMENT ON COLUMN profiler_step_trace.run_id IS 'Run (run.run_id).';
COMMENT ON COLUMN profiler_step_trace.rank IS 'Rank (rank.rank).';
COMMENT ON COLUMN profiler_step_trace.file_id IS 'Input file (source_file.file_id).';
COMMENT ON COLUMN profiler_step_trace.device_id IS 'Device_id column (newer torch_npu); NULL if absent.';
COMMENT ON COLUMN profiler_step_trace.step IS 'Step column; NULL when empty (no step information: one row covers the capture).';
COMMENT ON COLUMN profiler_step_trace.computing_ns IS 'Computing x 1000.';
COMMENT ON COLUMN profiler_step_trace.communication_not_overlapped_ns IS 'Communication(Not Overlapped) x 1000.';
COMMENT ON COLUMN profiler_step_trace.overlapped_ns IS 'Overlapped x 1000.';
COMMENT ON COLUMN profiler_step_trace.communication_ns IS 'Communication x 1000.';
COMMENT ON COLUMN profiler_step_trace.free_ns IS 'Free x 1000.';
COMMENT ON COLUMN profiler_step_trace.stage_ns IS 'Stage x 1000.';
COMMENT ON COLUMN profiler_step_trace.bubble_ns IS 'Bubble x 1000.';
COMMENT ON COLUMN profiler_step_trace.communication_not_overlapped_exclude_receive_ns IS 'Communication(Not Overlapped and Exclude Receive) x 1000.';
COMMENT ON COLUMN profiler_step_trace.preparing_ns IS 'Preparing x 1000; NULL in files older than the column.';
