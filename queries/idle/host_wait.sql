-- host_wait — the host side of each device idle interval: which framework op, runtime call,
-- synchronization or data-loader step was running on the launching host thread while the
-- stream waited, so "the device waited for the data loader" is one query.
-- Grain:     one row per (host_wait or other idle interval of idle_interval, host event on the
--            thread that launched the kernel after the gap) that overlap in time; an interval
--            whose launch thread is unknown, or on which nothing ran, has no row. Kernel-wait gaps
--            (back-to-back launches: the launch cost itself) are left out. Nested events each get a row
--            (aten::copy_ inside aten::to ...): sum overlap_ns per host_kind or name, not over
--            all rows of an interval.
--            Scope: whole capture (the rows of idle_interval); step is the kernel.step of the
--            kernel after the gap.
-- Source:    idle_interval (kernel ts / launch_tid / launch_ts_ns); event: framework ops (cat
--            cpu_op / operator / user_annotation, ProfilerStep#N excluded; torch_npu's task-queue
--            thread, where CANN launches run: cat dequeue, named after the op), runtime calls (cat
--            cuda_runtime / hip_runtime / runtime / cuda_driver / privateuse1_*; NPU: process
--            CANN, AscendCL@... / Node@launch ...), OS runtime calls (cat osrt: Nsight Systems
--            OSRT_API, pthread_mutex_lock, sem_wait, read ...), all ph X with ts and dur.
-- Reference: HolisticTraceAnalysis's idle-time "host wait" (the launch call came after the
--            stream went idle) and the PyTorch / Ascend performance guides' CPU-bound and
--            I/O-bound cases: sync = a name containing "synchroni" (cudaStreamSynchronize,
--            cudaDeviceSynchronize, cudaEventSynchronize, hipStreamSynchronize,
--            aclrtSynchronizeStream, aclrtSynchronizeDevice ...); dataloader = a name starting
--            enumerate(DataLoader) (enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__,
--            _MultiProcessingDataLoaderIter ...); osrt = an OS runtime call; runtime = other
--            runtime / CANN calls; framework_op = other host ops. launch_thread_call answers "the
--            launch thread was in <call>": of the interval's sync, osrt, runtime and dataloader host
--            events (not the framework ops around them), the one covering most of the interval
--            (ties: the earlier, then the name), the same on every row of the interval.
-- Method:    intervals and host events are cut into 2^20 ns (~1 ms) time buckets per (run, rank,
--            thread) and joined on the bucket (an equi-join), each overlapping pair kept once, in
--            the bucket where the overlap starts; a range join would pair every event with
--            every interval of the thread.
-- Units:     *_ns integer nanoseconds (ts since the epoch).
CREATE OR REPLACE VIEW host_wait AS
WITH iv AS (
    SELECT r.run_id, i.*
    FROM idle_interval AS i
    JOIN run AS r
        ON r.run_name = i.run_name
    WHERE i.launch_tid IS NOT NULL AND i.cause <> 'kernel_wait'
),
host AS (
    SELECT
        run_id, rank, tid, ts_ns, ts_ns + dur_ns AS end_ns, name,
        CASE WHEN lower(name) LIKE '%synchroni%' THEN 'sync'
             WHEN name LIKE 'enumerate(DataLoader)%' THEN 'dataloader'
             WHEN lower(cat) = 'osrt' THEN 'osrt'
             WHEN lower(cat) IN ('cpu_op', 'operator', 'user_annotation', 'dequeue') AND coalesce(process_name, '') <> 'CANN'
                 THEN 'framework_op'
             ELSE 'runtime' END AS host_kind
    FROM event
    WHERE ph = 'X' AND ts_ns IS NOT NULL AND dur_ns > 0 AND tid IS NOT NULL
      AND (lower(cat) IN ('cpu_op', 'operator', 'user_annotation', 'dequeue', 'cuda_runtime', 'hip_runtime',
                          'runtime', 'cuda_driver', 'privateuse1_runtime', 'privateuse1_driver', 'osrt')
           OR process_name = 'CANN')
      AND name NOT LIKE 'ProfilerStep#%'
),
iv_bucket AS (
    SELECT iv.*, unnest(generate_series(start_ns // 1048576, (end_ns - 1) // 1048576)) AS bucket
    FROM iv
),
host_bucket AS (
    SELECT h.*, unnest(generate_series(h.ts_ns // 1048576, (h.end_ns - 1) // 1048576)) AS bucket
    FROM host AS h
    JOIN (SELECT DISTINCT run_id, rank, launch_tid FROM iv) AS t
        ON t.run_id = h.run_id AND t.rank = h.rank AND t.launch_tid = h.tid
),
pair AS (
    SELECT i.run_name, i.rank, i.step, i.stream_id, i.cause, i.start_ns, i.end_ns, i.dur_ns, i.kernel_after,
           i.launch_name, i.launch_tid, h.host_kind, h.name, h.ts_ns, h.end_ns AS host_end_ns,
           least(h.end_ns, i.end_ns) - greatest(h.ts_ns, i.start_ns) AS overlap_ns
    FROM iv_bucket AS i
    JOIN host_bucket AS h
        ON h.run_id = i.run_id AND h.rank = i.rank AND h.tid = i.launch_tid AND h.bucket = i.bucket
    WHERE h.ts_ns < i.end_ns AND h.end_ns > i.start_ns
      AND i.bucket = greatest(h.ts_ns, i.start_ns) // 1048576
),
thread_call AS (
    -- per interval, the call the launch thread spent most of it in
    SELECT run_name, rank, stream_id, start_ns, name, overlap_ns
    FROM (
        SELECT run_name, rank, stream_id, start_ns, name, overlap_ns,
               row_number() OVER (PARTITION BY run_name, rank, stream_id, start_ns
                                  ORDER BY overlap_ns DESC, ts_ns, name) AS pick
        FROM pair
        WHERE host_kind IN ('sync', 'osrt', 'runtime', 'dataloader')
    ) AS ranked
    WHERE pick = 1
)
SELECT
    i.run_name::VARCHAR                                                    AS run_name,       -- run name
    i.rank::INTEGER                                                        AS rank,           -- global rank
    i.step::INTEGER                                                        AS step,           -- step of the kernel after the gap
    i.stream_id::VARCHAR                                                   AS stream_id,      -- device stream that was idle
    i.cause::VARCHAR                                                       AS cause,          -- idle cause: host_wait or other (idle_interval)
    i.start_ns::BIGINT                                                     AS idle_start_ns,  -- idle interval start, ns since the epoch
    i.end_ns::BIGINT                                                       AS idle_end_ns,    -- idle interval end (start of the kernel after the gap), ns since the epoch
    i.dur_ns::BIGINT                                                       AS idle_ns,        -- idle interval length, ns
    i.kernel_after::VARCHAR                                                AS kernel_after,   -- kernel the stream waited for
    i.launch_name::VARCHAR                                                 AS launch_name,    -- its launch call
    i.launch_tid::VARCHAR                                                  AS tid,            -- host thread (the launch call's)
    i.host_kind::VARCHAR                                                   AS host_kind,      -- sync, dataloader, osrt, runtime or framework_op
    i.name::VARCHAR                                                        AS host_name,      -- host event name (aten::item, cudaStreamSynchronize, enumerate(DataLoader)#..., AscendCL@aclrtSynchronizeStream, pthread_mutex_lock ...)
    i.ts_ns::BIGINT                                                        AS host_ts_ns,     -- host event start, ns since the epoch
    (i.host_end_ns - i.ts_ns)::BIGINT                                      AS host_dur_ns,    -- host event duration, ns
    i.overlap_ns::BIGINT                                                   AS overlap_ns,     -- part of the idle interval the host event covers, ns
    c.name::VARCHAR                                                        AS launch_thread_call,     -- the launch thread was in this call for most of the interval (sync, OS runtime, runtime call or DataLoader fetch); NULL when none overlaps it
    c.overlap_ns::BIGINT                                                   AS launch_thread_call_ns   -- part of the interval that call covers, ns
FROM pair AS i
LEFT JOIN thread_call AS c
    ON c.run_name = i.run_name AND c.rank = i.rank AND c.stream_id = i.stream_id AND c.start_ns = i.start_ns
ORDER BY i.run_name, i.rank, i.start_ns, i.stream_id, i.ts_ns, i.host_end_ns DESC, i.name;
