-- sync_copy — host calls that block the host inside a step: synchronous copies, copies from or to
-- pageable host memory, and stream / device / event synchronisations, with the host time they cost
-- per step.
-- Grain:     one row per (run, rank, step, reason, call name, copy kind, memory kinds, framework
--            op); step NULL for calls outside every host step window (or a rank without steps).
-- Source:    kernel copy rows (copy_kind, size_bytes, launch_name / launch_dur_ns: the launch
--            call, src_kind / dst_kind: Nsight MEMCPY srcKind / dstKind; Kineto writes the memory
--            kinds into the copy's name, "Memcpy HtoD (Pageable -> Device)"; op_id: the launching
--            op); event (runtime calls named *synchroni*: cat cuda_runtime / hip_runtime / runtime
--            / cuda_driver / privateuse1_runtime, Nsight CUDA runtime rows, NPU process CANN
--            AscendCL@aclrtSynchronizeStream ...); op (the innermost framework op running the
--            synchronisation on its thread: aten::item, aten::_local_scalar_dense ...); step (host
--            windows).
-- Reference: the CUDA runtime's synchronous behaviour (CUDA Runtime API, "API synchronization
--            behavior"): cudaMemcpy returns when the copy is done; cudaMemcpyAsync from or to
--            pageable host memory is staged through a pinned buffer and blocks the host too
--            (Nsight Systems flags such copies in its CUDA Async Memcpy with Pageable Memory rule,
--            cuda_memcpy_async); cuda*Synchronize waits for the device. NPU: aclrtMemcpy (not
--            Async) and aclrtSynchronize*. reason: sync_copy_call (a copy launched by a memcpy call
--            without Async in its name), pageable_copy (an async copy with a Pageable side),
--            synchronize (a synchronisation call). host_ns is the blocking call's duration (the
--            copy's launch call, the synchronisation call): what the step lost on the host.
-- Units:     *_ns integer nanoseconds; *_bytes bytes; *_count calls; *_ratio host_ns / step_ns.
CREATE OR REPLACE VIEW sync_copy AS
WITH host_step AS (
    SELECT run_id, rank, step, host_start_ns AS start_ns, host_end_ns AS end_ns
    FROM step
    WHERE host_start_ns IS NOT NULL AND host_end_ns > host_start_ns
),
copy_call AS (
    SELECT k.run_id, k.rank, k.launch_ts_ns AS ts_ns, k.launch_dur_ns AS host_ns, k.launch_name AS call_name,
           k.copy_kind, k.size_bytes, k.op_id,
           coalesce(k.src_kind, nullif(regexp_extract(k.name, '\(([A-Za-z ]+) -> ', 1), '')) AS src_kind,
           coalesce(k.dst_kind, nullif(regexp_extract(k.name, ' -> ([A-Za-z ]+)\)', 1), '')) AS dst_kind
    FROM kernel AS k
    WHERE k.copy_kind IS NOT NULL AND k.copy_kind <> 'Memset' AND k.launch_ts_ns IS NOT NULL
),
blocking_copy AS (
    SELECT c.*,
           CASE WHEN lower(c.call_name) LIKE '%memcpy%' AND lower(c.call_name) NOT LIKE '%async%' THEN 'sync_copy_call'
                WHEN c.src_kind = 'Pageable' OR c.dst_kind = 'Pageable' THEN 'pageable_copy' END AS reason
    FROM copy_call AS c
),
sync_call AS (
    SELECT e.run_id, e.rank, e.file_id, e.tid, e.ts_ns, e.dur_ns, e.name
    FROM event AS e
    WHERE e.ph = 'X' AND e.dur_ns >= 0 AND lower(e.name) LIKE '%synchroni%'
      AND (lower(e.cat) IN ('cuda_runtime', 'hip_runtime', 'runtime', 'cuda_driver', 'privateuse1_runtime',
                            'privateuse1_driver')
           OR e.process_name = 'CANN')
),
sync_op AS (
    -- the innermost framework op of the thread running each synchronisation
    SELECT s.run_id, s.rank, s.ts_ns, s.tid, s.name, o.name AS op_name,
           row_number() OVER (PARTITION BY s.run_id, s.rank, s.tid, s.ts_ns, s.name
                              ORDER BY o.depth DESC, o.op_id DESC) AS pick
    FROM sync_call AS s
    JOIN op AS o
        ON o.run_id = s.run_id AND o.rank = s.rank AND o.file_id = s.file_id AND o.tid = s.tid
       AND o.ts_ns <= s.ts_ns AND s.ts_ns + s.dur_ns <= o.ts_ns + o.dur_ns
),
blocking AS (
    SELECT b.run_id, b.rank, b.ts_ns, b.host_ns, b.reason, b.call_name, b.copy_kind, b.size_bytes,
           CASE WHEN b.src_kind IS NOT NULL OR b.dst_kind IS NOT NULL
                THEN coalesce(b.src_kind, '?') || ' -> ' || coalesce(b.dst_kind, '?') END AS memory_kinds,
           o.name AS op_name
    FROM blocking_copy AS b
    LEFT JOIN op AS o
        ON o.run_id = b.run_id AND o.rank = b.rank AND o.op_id = b.op_id
    WHERE b.reason IS NOT NULL
    UNION ALL
    SELECT s.run_id, s.rank, s.ts_ns, s.dur_ns, 'synchronize', s.name, NULL, NULL, NULL, so.op_name
    FROM sync_call AS s
    LEFT JOIN sync_op AS so
        ON so.run_id = s.run_id AND so.rank = s.rank AND so.tid = s.tid AND so.ts_ns = s.ts_ns AND so.name = s.name
       AND so.pick = 1
),
stepped AS (
    SELECT b.*, h.step, h.end_ns - h.start_ns AS step_ns
    FROM blocking AS b
    LEFT JOIN host_step AS h
        ON h.run_id = b.run_id AND h.rank = b.rank AND b.ts_ns >= h.start_ns AND b.ts_ns < h.end_ns
)
SELECT
    r.run_name::VARCHAR                                      AS run_name,        -- run name
    s.rank::INTEGER                                          AS rank,            -- global rank
    s.step::INTEGER                                          AS step,            -- step whose host window holds the call start; NULL outside every step
    s.reason::VARCHAR                                        AS reason,          -- sync_copy_call, pageable_copy or synchronize
    s.call_name::VARCHAR                                     AS call_name,       -- the blocking host call (cudaMemcpy, cudaMemcpyAsync, cudaStreamSynchronize, aclrtSynchronizeStream ...)
    s.copy_kind::VARCHAR                                     AS copy_kind,       -- HtoD, DtoH, DtoD ... for a copy; NULL for a synchronisation
    s.memory_kinds::VARCHAR                                  AS memory_kinds,    -- source -> destination memory kinds of a copy (Pageable -> Device ...); NULL when unknown
    s.op_name::VARCHAR                                       AS framework_op,    -- framework op that launched the copy / ran the synchronisation (aten::copy_, aten::item ...); NULL when unknown
    count(*)::BIGINT                                         AS call_count,      -- calls
    sum(s.host_ns)::BIGINT                                   AS host_ns,         -- host time the calls blocked, ns (sum of their durations)
    sum(s.size_bytes)::BIGINT                                AS copy_bytes,      -- bytes the copies moved; NULL for synchronisations
    any_value(s.step_ns)::BIGINT                             AS step_ns,         -- the step's host window, ns
    (sum(s.host_ns) / any_value(s.step_ns))::DOUBLE          AS host_ratio       -- host_ns / step_ns: the step's share lost blocking
FROM stepped AS s
JOIN run AS r
    ON r.run_id = s.run_id
GROUP BY r.run_name, s.rank, s.step, s.reason, s.call_name, s.copy_kind, s.memory_kinds, s.op_name
ORDER BY r.run_name, s.rank, s.step, host_ns DESC, s.reason, s.call_name;
