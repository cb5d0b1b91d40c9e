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
-- AscendCL@aclnn*, AscendCL@aclopCompileAndExecute, AscendCL@hcom_* ...). A trace without CANN
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
    -- Kineto kernels and copies numbered as derive/040 numbers them (start, name, event row;
    -- copies, gpu_memcpy / gpu_memset / Memcpy / Memset, among the kernels)
    kk AS (
        SELECT file_id, pid, tid, ts_ns, json_extract_string(args, '$.correlation') AS corr,
               row_number() OVER (ORDER BY ts_ns, name, rowid) AS kernel_id
        FROM event
        WHERE run_id = getvariable('run_id') AND rank = getvariable('rank') AND file_id IN (FROM kin)
          AND ph = 'X' AND lower(cat) IN ('kernel', 'gpu_memcpy', 'gpu_memset', 'memcpy', 'memset')
          AND ts_ns IS NOT NULL
    ),
    runtime AS (
        SELECT json_extract_string(args, '$.correlation') AS corr,
               arg_min(name, (ts_ns, -dur_ns, name)) AS name, arg_min(tid, (ts_ns, -dur_ns, name)) AS tid,
               min(ts_ns) AS ts_ns, arg_min(dur_ns, (ts_ns, -dur_ns, name)) AS dur_ns
        FROM event
        WHERE run_id = getvariable('run_id') AND rank = getvariable('rank') AND file_id IN (FROM kin)
          AND ph = 'X' AND lower(cat) IN ('cuda_runtime', 'runtime', 'cuda_driver', 'privateuse1_runtime',
                                          'privateuse1_driver', 'hip_runtime')
          AND json_extract_string(args, '$.correlation') IS NOT NULL
        GROUP BY 1
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
    -- NPU
    h2d AS (
        SELECT file_id, ph, flow_id, process_name, tid, ts_ns
        FROM event
        WHERE run_id = getvariable('run_id') AND rank = getvariable('rank') AND file_id IN (FROM tv)
          AND ph IN ('s', 'f') AND cat = 'HostToDevice'
    ),
    nk AS (
        SELECT source, kernel_id, name, ts_ns, stream_id, is_communication
        FROM kernel
        WHERE run_id = getvariable('run_id') AND rank = getvariable('rank')
          AND source IN ('kernel_details', 'trace_view') AND EXISTS (FROM h2d)
    ),
    hccl_slice AS (
        SELECT name, tid, ts_ns
        FROM event
        WHERE run_id = getvariable('run_id') AND rank = getvariable('rank') AND file_id IN (FROM tv)
          AND ph = 'X' AND process_name IN ('HCCL', 'Communication') AND thread_name LIKE '%Communication%'
          AND EXISTS (FROM h2d)
    ),
    device_end AS (
        -- (kernel, process, tid, ts) of the device-side event a flow ends at
        SELECT source, kernel_id, 'Ascend Hardware' AS process_name, stream_id AS tid, ts_ns
        FROM nk WHERE NOT is_communication
        UNION ALL
        SELECT nk.source, nk.kernel_id, NULL, arg_min(h.tid, abs(h.ts_ns - nk.ts_ns)),
               arg_min(h.ts_ns, abs(h.ts_ns - nk.ts_ns))
        FROM nk JOIN hccl_slice AS h ON h.name = nk.name AND abs(h.ts_ns - nk.ts_ns) <= 1000
        WHERE nk.is_communication
        GROUP BY nk.source, nk.kernel_id
    ),
    flow_start AS (
        SELECT d.source, d.kernel_id, arg_min(s.tid, (s.ts_ns, s.tid)) AS tid, min(s.ts_ns) AS ts_ns
        FROM device_end AS d
        JOIN h2d AS f ON f.ph = 'f' AND f.tid = d.tid AND f.ts_ns = d.ts_ns
                     AND (f.process_name = d.process_name
                          OR (d.process_name IS NULL AND f.process_name IN ('HCCL', 'Communication')))
        JOIN h2d AS s ON s.ph = 's' AND s.file_id = f.file_id AND s.flow_id = f.flow_id
        GROUP BY d.source, d.kernel_id
    ),
    cann AS (
        SELECT tid, ts_ns, dur_ns, name
        FROM event
        WHERE run_id = getvariable('run_id') AND rank = getvariable('rank') AND file_id IN (FROM tv)
          AND ph = 'X' AND process_name = 'CANN' AND dur_ns > 0 AND EXISTS (FROM h2d)
    ),
    -- nesting of the CANN events per thread: a sweep (+1 at a start, -1 at an end; at equal
    -- time ends first, then longer first) gives each event its depth and each instant the
    -- number of events running then; the innermost event running at t is the last event of
    -- depth (that number - 1) to start at or before t
    cann_depth AS (
        SELECT tid, ts_ns, dur_ns, name,
               sum(delta) OVER (PARTITION BY tid ORDER BY t, kind, neg_dur, name
                                ROWS UNBOUNDED PRECEDING) - 1 AS depth, kind
        FROM (SELECT tid, ts_ns AS t, 1 AS kind, -dur_ns AS neg_dur, name, 1 AS delta, ts_ns, dur_ns FROM cann
              UNION ALL
              SELECT tid, ts_ns + dur_ns, 0, 0, name, -1, ts_ns, dur_ns FROM cann)
    ),
    cann_level AS (
        SELECT tid, t, sum(delta) OVER (PARTITION BY tid ORDER BY t ROWS UNBOUNDED PRECEDING) AS running
        FROM (SELECT tid, t, sum(delta) AS delta
              FROM (SELECT tid, ts_ns AS t, 1 AS delta FROM cann
                    UNION ALL SELECT tid, ts_ns + dur_ns, -1 FROM cann)
              GROUP BY tid, t)
    ),
    flow_level AS (
        SELECT fs.*, lv.running
        FROM flow_start AS fs
        ASOF LEFT JOIN cann_level AS lv ON lv.tid = fs.tid AND fs.ts_ns >= lv.t
    ),
    npu AS (
        SELECT fl.source, fl.kernel_id, c.name AS launch_name, fl.tid AS launch_tid,
               coalesce(c.ts_ns, fl.ts_ns) AS launch_ts_ns, c.dur_ns AS launch_dur_ns
        FROM flow_level AS fl
        ASOF LEFT JOIN (FROM cann_depth WHERE kind = 1) AS c
          ON c.tid = fl.tid AND c.depth = fl.running - 1 AND fl.ts_ns >= c.ts_ns
    )
    SELECT * FROM kineto
    UNION ALL
    SELECT * FROM npu
) AS l
WHERE kernel.run_id = getvariable('run_id') AND kernel.rank = getvariable('rank')
  AND kernel.source = l.source AND kernel.kernel_id = l.kernel_id;
