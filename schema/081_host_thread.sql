-- What the host threads did: the scheduler's view of each thread (Nsight Systems SCHED_EVENTS),
-- and the memory kinds of a copy (Nsight CUPTI_ACTIVITY_KIND_MEMCPY srcKind / dstKind: a
-- pageable host buffer makes a copy synchronous). The OS runtime calls (OSRT_API) and the CUDA
-- runtime calls of an Nsight export are event rows (cat osrt / cuda_runtime), like Kineto's.
-- Read by host_thread_state, sync_copy and host_wait.

CREATE TABLE IF NOT EXISTS thread_state (
    run_id       INTEGER NOT NULL,
    rank         INTEGER NOT NULL,
    file_id      INTEGER NOT NULL,
    pid          VARCHAR,
    tid          VARCHAR NOT NULL,
    thread_name  VARCHAR,
    ts_ns        BIGINT NOT NULL,
    dur_ns       BIGINT NOT NULL,
    state        VARCHAR NOT NULL,
    cpu          INTEGER,
    block_reason VARCHAR,
    source       VARCHAR NOT NULL
);
COMMENT ON TABLE thread_state IS 'One row per interval a host thread spent in one scheduler state, from Nsight Systems SCHED_EVENTS (nsys profile --cpuctxsw=process-tree / system-wide): running from a schedule-in to the next schedule-out of the thread, off CPU from a schedule-out to the next schedule-in (its state and reason are those the schedule-out recorded). A thread''s last event opens no interval.';
COMMENT ON COLUMN thread_state.run_id IS 'Run (run.run_id).';
COMMENT ON COLUMN thread_state.rank IS 'Rank (rank.rank).';
COMMENT ON COLUMN thread_state.file_id IS 'Input file (source_file.file_id).';
COMMENT ON COLUMN thread_state.pid IS 'Process id, as text ((globalTid >> 24) & 0xFFFFFF).';
COMMENT ON COLUMN thread_state.tid IS 'Thread id, as text (globalTid & 0xFFFFFF), as event.tid of the same file.';
COMMENT ON COLUMN thread_state.thread_name IS 'ThreadNames name of the thread; NULL if the export has none.';
COMMENT ON COLUMN thread_state.ts_ns IS 'Interval start, integer ns since the epoch (session start utcEpochNs + start).';
COMMENT ON COLUMN thread_state.dur_ns IS 'Interval length, integer ns (next event of the thread minus this one).';
COMMENT ON COLUMN thread_state.state IS 'running (scheduled in on cpu), else the thread state the schedule-out recorded (ENUM_SAMPLING_THREAD_STATE label: Interruptible = sleeping / waiting, Uninterruptible = I/O, Waiting, Stopped ...; preempted when it stayed runnable: Running at schedule-out), or off_cpu when the export records no state.';
COMMENT ON COLUMN thread_state.cpu IS 'CPU the thread ran on (running intervals); the CPU it left (off-CPU intervals).';
COMMENT ON COLUMN thread_state.block_reason IS 'Why the thread left the CPU (ENUM_SCHEDULING_THREAD_BLOCK label: Mutex, CondVar, Sem, Nanosleep, Futex-like waits, PageIn ...); NULL for running intervals and exports without the column.';
COMMENT ON COLUMN thread_state.source IS 'nsys.';

ALTER TABLE kernel ADD COLUMN IF NOT EXISTS src_kind VARCHAR;
ALTER TABLE kernel ADD COLUMN IF NOT EXISTS dst_kind VARCHAR;
COMMENT ON COLUMN kernel.src_kind IS 'Copies: memory kind of the source (Pageable, Pinned, Device, Array, Managed ...): Nsight MEMCPY srcKind (ENUM_CUDA_MEM_KIND); NULL when the source does not say (Kineto writes it into the copy name, "Memcpy HtoD (Pageable -> Device)", which sync_copy reads).';
COMMENT ON COLUMN kernel.dst_kind IS 'Copies: memory kind of the destination (Nsight MEMCPY dstKind); NULL when unknown.';
