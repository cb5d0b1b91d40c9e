-- Kineto events of category kernel, and the copies (gpu_memcpy / gpu_memset; Memcpy / Memset in
-- 2021 traces) → kernel, numbered by start, name, then event order, copies among the kernels.
-- Step: the ProfilerStep#N host window that holds the runtime call with the same correlation
-- (HolisticTraceAnalysis's rule; a launch outside every step leaves the kernel outside, NULL).
-- A trace without any runtime event falls back to the window rule (the last step whose host
-- window started at or before the kernel). Communication: names starting nccl/rccl or
-- containing ncclKernel/ncclDevKernel (the views classify again by kernel_class_rule). Copies:
-- copy_kind from args "kind" (ROCm), else the direction in the name ("Memcpy HtoD (Pageable ->
-- Device)" → HtoD; DtoH, DtoD, PtoP, HtoH), Memset for memsets; size_bytes = args "bytes";
-- accelerator_core MEMCPY or MEMSET; never communication. Rows are written in kernel_id order (a parallel INSERT
-- leaves a partial row group per thread, which the next checkpoint rewrites).
-- when-format: kineto
INSERT INTO kernel BY NAME
WITH kineto AS (
    SELECT file_id FROM derive_files(['kineto'])
),
k AS (
    SELECT run_id, rank, erow, file_id, name, ts_ns, dur_ns, pid, tid, a[1] AS corr,
           TRY_CAST(a[2] AS INTEGER) AS device, a[3] AS stream,
           CASE WHEN lc IN ('gpu_memset', 'memset') THEN 'Memset'
                WHEN lc IN ('gpu_memcpy', 'memcpy')
                THEN coalesce(a[4], nullif(regexp_extract(name, 'Memcpy\s+([A-Za-z]+)', 1), ''), 'Unknown') END
               AS copy_kind,
           CASE WHEN lc <> 'kernel' THEN TRY_CAST(a[5] AS BIGINT) END AS size_bytes
    FROM (SELECT run_id, rank, rowid AS erow, file_id, name, ts_ns, dur_ns, pid, tid, lower(cat) AS lc,
                 json_extract_string(args, ['$.correlation', '$.device', '$.stream', '$.kind', '$.bytes']) AS a
          FROM event
          WHERE (run_id, rank) IN (FROM derive_rank()) AND file_id IN (FROM kineto)
            AND ph = 'X' AND lower(cat) IN ('kernel', 'gpu_memcpy', 'gpu_memset', 'memcpy', 'memset')
            AND ts_ns IS NOT NULL)
),
ids AS (
    -- numbered over (ts, name, row) alone and joined back: a window over the full rows ran
    -- the whole INSERT on one thread
    SELECT erow, row_number() OVER (PARTITION BY run_id, rank ORDER BY ts_ns, name, erow) AS n FROM k
),
runtime AS (
    SELECT run_id, rank, json_extract_string(args, '$.correlation') AS corr, ts_ns
    FROM event
    WHERE (run_id, rank) IN (FROM derive_rank()) AND file_id IN (FROM kineto)
      AND ph = 'X' AND lower(cat) IN ('cuda_runtime', 'runtime', 'cuda_driver', 'privateuse1_runtime',
                                      'privateuse1_driver', 'hip_runtime')
),
launch AS (
    SELECT run_id, rank, corr, min(ts_ns) AS ts_ns FROM runtime WHERE corr IS NOT NULL GROUP BY run_id, rank, corr
),
launch_step AS (
    SELECT l.run_id, l.rank, l.corr, min(s.step) AS step
    FROM launch AS l
    JOIN step AS s
      ON s.run_id = l.run_id AND s.rank = l.rank
     AND l.ts_ns >= s.host_start_ns AND l.ts_ns < s.host_end_ns
    GROUP BY l.run_id, l.rank, l.corr
),
step_start AS (FROM host_step_starts()),
window_step AS (
    -- only for a rank without runtime events, and only the key: the ASOF join sorts its input
    SELECT k.erow, w.step
    FROM (SELECT run_id, rank, erow, ts_ns FROM k
          WHERE (run_id, rank) NOT IN (SELECT DISTINCT run_id, rank FROM runtime)) AS k
    ASOF JOIN step_start AS w ON w.run_id = k.run_id AND w.rank = k.rank AND k.ts_ns >= w.host_start_ns
)
SELECT k.run_id, k.rank, k.file_id, ids.n AS kernel_id,
       coalesce(ls.step, w.step) AS step, k.name, k.name AS op_type,
       CASE WHEN is_comm THEN 'COMMUNICATION' WHEN k.copy_kind = 'Memset' THEN 'MEMSET'
            WHEN k.copy_kind IS NOT NULL THEN 'MEMCPY' ELSE 'KERNEL' END AS accelerator_core,
       coalesce(k.device, TRY_CAST(k.pid AS INTEGER)) AS device_id, coalesce(k.stream, k.tid) AS stream_id,
       k.ts_ns, coalesce(k.dur_ns, 0) AS dur_ns, is_comm AS is_communication, 'kineto' AS source,
       k.copy_kind, k.size_bytes
FROM (SELECT *, copy_kind IS NULL AND (lower(name) LIKE 'nccl%' OR lower(name) LIKE 'rccl%'
                 OR name LIKE '%ncclKernel%' OR name LIKE '%ncclDevKernel%') AS is_comm FROM k) AS k
JOIN ids ON ids.erow = k.erow
LEFT JOIN launch_step AS ls ON ls.run_id = k.run_id AND ls.rank = k.rank AND ls.corr = k.corr
LEFT JOIN window_step AS w ON w.erow = k.erow
ORDER BY k.run_id, k.rank, ids.n;
