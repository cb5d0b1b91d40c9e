-- kernel.launch_*: the host call that launched each kernel of (run, rank), written into the
-- kernel rows 020/030/040 just rebuilt (rows of other sources are left alone).
-- Kineto: the runtime event (cat cuda_runtime, hip_runtime, runtime, cuda_driver,
-- privateuse1_runtime/driver, any case) with the kernel's args.correlation; of several, the
-- first to start (a runtime call before the driver call it encloses). A kernel whose
-- correlation has no runtime event takes the start of its ac2g / async_gpu / async flow (the
-- flow end bound to the kernel: same pid, tid and ts) for launch_tid / launch_ts_ns, name and
-- duration unknown. Kineto's flow ids are the correlation ids, so both rules name the same call.
-- NPU (trace_view.json): the HostToDevice flow that ends at the device task (compute kernel:
-- Ascend Hardware task with the kernel's stream and start; HCCL op: its slice on the
-- HCCL/Communication "Group ... Communication" thread, same name, start within 1 us, as
-- kernel_details.csv rounds) starts on the host thread that called CANN; the launch call is
-- the innermost CANN event running on that thread at the flow start (Node@launch inside
-- AscendCL@aclnn*, AscendCL@aclopCompileAndExecute, AscendCL@hcom_* ...; found with two ASOF
-- joins, see last_start / first_end: a flow start after a nested call ended, in a call that
-- still runs, gets no name). A trace without CANN
-- events (Level0) gives the flow start as launch_tid / launch_ts_ns, name and duration NULL.
-- Without a HostToDevice flow the launch stays NULL (the async_npu flow starts at the
-- framework op, see op).
UPDATE kernel SET launch_name = l.launch_name, launch_tid = l.launch_tid, launch_ts_ns = l.launch_ts_ns,
                  launch_dur_ns = l.launch_dur_ns
FROM (
    WITH kin AS (
        FROM rank_files(getvariable('run_id'), getvariable('rank'), ['kineto'])
    ),
    tv AS (
        FROM rank_files(getvariable('run_id'), getvariable('rank'), ['trace_view'])
    ),
    -- the Kineto kernel and copy events of the rank's kernel rows: same file, start, stream and
    -- name (one kernel starts at a time on a stream); copies are gpu_memcpy / gpu_memset (2021: Memcpy / Memset)
    kk AS (
        SELECT k.kernel_id, e.file_id, e.pid, e.tid, e.ts_ns, e.corr
        FROM (SELECT file_id, pid, tid, ts_ns, name, TRY_CAST(a[1] AS BIGINT) AS corr, coalesce(a[2], tid) AS stream
              FROM (SELECT file_id, pid, tid, ts_ns, name, json_extract_string(args, ['$.correlation', '$.stream']) AS a
                    FROM event
                    WHERE run_id = getvariable('run_id') AND rank = getvariable('rank') AND file_id IN (FROM kin)
                      AND ph = 'X' AND lower(cat) IN ('kernel', 'gpu_memcpy', 'gpu_memset', 'memcpy', 'memset')
                      AND ts_ns IS NOT NULL)) AS e
        JOIN kernel AS k
          ON k.run_id = getvariable('run_id') AND k.rank = getvariable('rank') AND k.source = 'kineto'
         AND k.file_id = e.file_id AND k.ts_ns = e.ts_ns AND k.stream_id = e.stream AND k.name = e.name
    ),
    runtime AS (
        -- of several calls with one correlation, the first to start
        SELECT corr, r.name, r.tid, r.ts_ns, r.dur_ns
        FROM (SELECT TRY_CAST(json_extract_string(args, '$.correlation') AS BIGINT) AS corr,
                     arg_min({'name': name, 'tid': tid, 'ts_ns': ts_ns, 'dur_ns': dur_ns}, ts_ns) AS r
              FROM event
              WHERE run_id = getvariable('run_id') AND rank = getvariable('rank') AND file_id IN (FROM kin)
                AND ph = 'X' AND lower(cat) IN ('cuda_runtime', 'runtime', 'cuda_driver', 'privateuse1_runtime',
                                                'privateuse1_driver', 'hip_runtime')
                AND json_extract_string(args, '$.correlation') IS NOT NULL
              GROUP BY 1)
    ),
    kflow AS (
        SELECT file_id, cat, ph, flow_id, pid, tid, ts_ns
        FROM event
        WHERE run_id = getvariable('run_id') AND rank = getvariable('rank') AND file_id IN (FROM kin)
          AND ph IN ('s', 'f') AND lower(cat) IN ('ac2g', 'async_gpu', 'async')
    ),
    kflow_launch AS (
        -- only kernels without a runtime event: most traces have one for every kernel
        SELECT kk.kernel_id, min(s.tid) AS tid, min(s.ts_ns) AS ts_ns
        FROM (FROM kk WHERE corr IS NULL OR corr NOT IN (SELECT corr FROM runtime)) AS kk
        JOIN kflow AS f ON f.ph = 'f' AND f.file_id = kk.file_id AND f.pid = kk.pid AND f.tid = kk.tid
                       AND f.ts_ns = kk.ts_ns
        JOIN kflow AS s ON s.ph = 's' AND s.file_id = f.file_id AND s.cat = f.cat AND s.flow_id = f.flow_id
        GROUP BY kk.kernel_id
    ),
    kineto AS (
        SELECT 'kineto' AS source, kk.kernel_id, r.name AS launch_name, coalesce(r.tid, fl.tid) AS launch_tid,
               coalesce(r.ts_ns, fl.ts_ns) AS launch_ts_ns, r.dur_ns AS launch_dur_ns
        FROM kk
        LEFT JOIN runtime AS r ON r.corr = kk.corr
        LEFT JOIN kflow_launch AS fl ON fl.kernel_id = kk.kernel_id
        WHERE r.corr IS NOT NULL OR fl.kernel_id IS NOT NULL
    ),
    -- NPU: the HostToDevice flows ending at the kernels (_session.sql); of several, the first start
    flow_start AS (
        SELECT source, kernel_id, arg_min(tid, (ts_ns, tid)) AS tid, min(ts_ns) AS ts_ns
        FROM npu_flow_starts(getvariable('run_id'), getvariable('rank'), 'HostToDevice')
        GROUP BY source, kernel_id
    ),
    cann AS (
        -- per (thread, start): the shortest CANN event (the innermost of those starting together)
        SELECT tid, ts_ns, arg_min(name, (dur_ns, name)) AS name, min(dur_ns) AS dur_ns
        FROM event
        WHERE run_id = getvariable('run_id') AND rank = getvariable('rank') AND file_id IN (FROM tv)
          AND ph = 'X' AND process_name = 'CANN' AND dur_ns > 0 AND EXISTS (FROM flow_start)
        GROUP BY tid, ts_ns
    ),
    -- the innermost CANN event running at the flow start: the last to start at or before it
    -- if it still runs then (every enclosing event started no later), else the first to end
    -- at or after it if that one started before it (every enclosing event ends no earlier),
    -- else (an event ended between, its parent still runs: 1 flow of the corpus) unnamed
    last_start AS (
        SELECT fs.source, fs.kernel_id, c.name, c.ts_ns, c.dur_ns
        FROM flow_start AS fs
        ASOF JOIN cann AS c ON c.tid = fs.tid AND fs.ts_ns >= c.ts_ns
        WHERE c.ts_ns + c.dur_ns >= fs.ts_ns
    ),
    first_end AS (
        SELECT fs.source, fs.kernel_id, c.name, c.ts_ns, c.dur_ns
        FROM (SELECT fs.* FROM flow_start AS fs
              ANTI JOIN last_start AS l ON l.source = fs.source AND l.kernel_id = fs.kernel_id) AS fs
        ASOF JOIN (SELECT *, ts_ns + dur_ns AS end_ns FROM cann) AS c ON c.tid = fs.tid AND c.end_ns >= fs.ts_ns
        WHERE c.ts_ns <= fs.ts_ns
    ),
    npu AS (
        SELECT fs.source, fs.kernel_id, c.name AS launch_name, fs.tid AS launch_tid,
               coalesce(c.ts_ns, fs.ts_ns) AS launch_ts_ns, c.dur_ns AS launch_dur_ns
        FROM flow_start AS fs
        LEFT JOIN (FROM last_start UNION ALL FROM first_end) AS c ON c.source = fs.source AND c.kernel_id = fs.kernel_id
    )
    SELECT * FROM kineto
    UNION ALL
    SELECT * FROM npu
) AS l
WHERE kernel.run_id = getvariable('run_id') AND kernel.rank = getvariable('rank')
  AND kernel.source = l.source AND kernel.kernel_id = l.kernel_id;
