-- GPU-side records of a Kineto trace that are not kernels or copies: the GPU copy of each
-- ProfilerStep#N annotation (cat gpu_user_annotation) and the records Kineto writes on a device
-- stream for synchronisation (cat cuda_sync: Stream Sync, Stream Wait Event, Event Sync ...) and
-- events (cudaEventRecord). Written by derive/131; read by the HTA reference views
-- (temporal_breakdown scope hta, idle_time_hta), whose window these records bound.

-- The GPU-side window of a step: Kineto writes a second ProfilerStep#N slice on the GPU timeline,
-- from the first to the last GPU activity launched inside the host step. A database written
-- before these columns existed gets them here (NULL until the rank is derived again).
ALTER TABLE step ADD COLUMN IF NOT EXISTS gpu_start_ns BIGINT;
ALTER TABLE step ADD COLUMN IF NOT EXISTS gpu_end_ns BIGINT;
COMMENT ON COLUMN step.gpu_start_ns IS 'Start of the GPU-side ProfilerStep#N annotation (Kineto cat gpu_user_annotation, on the GPU timeline: the first GPU activity launched in the step), integer ns; NULL without one (older Kineto, NPU, MindSpore).';
COMMENT ON COLUMN step.gpu_end_ns IS 'End of the GPU-side ProfilerStep#N annotation (ts + dur), integer ns; NULL without one.';

CREATE TABLE IF NOT EXISTS stream_event (
    run_id         INTEGER NOT NULL,
    rank           INTEGER NOT NULL,
    file_id        INTEGER NOT NULL,
    cat            VARCHAR,
    name           VARCHAR,
    stream_id      VARCHAR,
    ts_ns          BIGINT NOT NULL,
    dur_ns         BIGINT NOT NULL,
    correlation_id BIGINT,
    launch_name    VARCHAR,
    launch_ts_ns   BIGINT
);
COMMENT ON TABLE stream_event IS 'One row per Kineto complete event (ph X) on a device stream that is neither a kernel nor a copy (those are kernel rows): args "stream" an integer >= 0 and cat not a host category. In practice cat cuda_sync (Stream Sync, Stream Wait Event, Event Sync: the device waiting) and cuda_event. HolisticTraceAnalysis counts them as GPU time in its temporal breakdown (not in its idle-time breakdown).';
COMMENT ON COLUMN stream_event.run_id IS 'Run (run.run_id).';
COMMENT ON COLUMN stream_event.rank IS 'Rank (rank.rank).';
COMMENT ON COLUMN stream_event.file_id IS 'Input file (source_file.file_id).';
COMMENT ON COLUMN stream_event.cat IS 'Event "cat" as written (cuda_sync, cuda_event ...).';
COMMENT ON COLUMN stream_event.name IS 'Event "name" (Stream Sync, Stream Wait Event, Event Sync ...).';
COMMENT ON COLUMN stream_event.stream_id IS 'Device stream: args "stream", as text (as kernel.stream_id).';
COMMENT ON COLUMN stream_event.ts_ns IS 'Start, integer ns since the epoch (exact, as event.ts_ns).';
COMMENT ON COLUMN stream_event.dur_ns IS 'Duration, integer ns (0 when the event has none).';
COMMENT ON COLUMN stream_event.correlation_id IS 'args "correlation": the id it shares with the host call that issued it; NULL if absent.';
COMMENT ON COLUMN stream_event.launch_name IS 'Host runtime call with the same correlation id (cudaStreamSynchronize, cudaStreamWaitEvent ...; of several, the first to start); NULL if none is in the trace.';
COMMENT ON COLUMN stream_event.launch_ts_ns IS 'Start of that host call, integer ns since the epoch; NULL when launch_name is.';
