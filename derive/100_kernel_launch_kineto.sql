-- kernel.launch_*: the host call that launched each kernel of (run, rank), written into the
-- kernel rows 020/030/040 just rebuilt (rows of other sources are left alone); Kineto's kernels
-- here, trace_view.json's in 101_kernel_launch_npu.
-- Kineto: the runtime event (cat cuda_runtime, hip_runtime, runtime, cuda_driver,
-- privateuse1_runtime/driver, any case) with the kernel's args.correlation; of several, the
-- first to start (a runtime call before the driver call it encloses). A kernel whose
-- correlation has no runtime event takes the start of its ac2g / async_gpu / async flow (the
-- flow end bound to the kernel: same pid, tid and ts) for launch_tid / launch_ts_ns, name and
-- duration unknown. Kineto's flow ids are the correlation ids, so both rules name the same call.
-- when-format: kineto
UPDATE kernel SET launch_name = l.launch_name, launch_tid = l.launch_tid, launch_ts_ns = l.launch_ts_ns,
                  launch_dur_ns = l.launch_dur_ns
FROM (
    WITH kin AS (
        SELECT file_id FROM derive_files(['kineto'])
    ),
    -- the Kineto kernel and copy events of the ranks' kernel rows: same file, start, stream and
    -- name (one kernel starts at a time on a stream); copies are gpu_memcpy / gpu_memset (2021: Memcpy / Memset)
    kk AS (
        SELECT k.run_id, k.rank, k.kernel_id, e.file_id, e.pid, e.tid, e.ts_ns, e.corr
        FROM (SELECT file_id, pid, tid, ts_ns, name, TRY_CAST(a[1] AS BIGINT) AS corr, coalesce(a[2], tid) AS stream
              FROM (SELECT file_id, pid, tid, ts_ns, name, json_extract_string(args, ['$.correlation', '$.stream']) AS a
                    FROM event
                    WHERE (run_id, rank) IN (FROM derive_rank()) AND file_id IN (FROM kin)
                      AND ph = 'X' AND lower(cat) IN ('kernel', 'gpu_memcpy', 'gpu_memset', 'memcpy', 'memset')
                      AND ts_ns IS NOT NULL)) AS e
        JOIN (FROM kernel WHERE (run_id, rank) IN (FROM derive_rank()) AND source = 'kineto') AS k
          ON k.file_id = e.file_id AND k.ts_ns = e.ts_ns AND k.stream_id = e.stream AND k.name = e.name
    ),
    runtime AS (
        -- of several calls with one correlation, the first to start
        SELECT run_id, rank, corr, r.name, r.tid, r.ts_ns, r.dur_ns
        FROM (SELECT run_id, rank, TRY_CAST(json_extract_string(args, '$.correlation') AS BIGINT) AS corr,
                     arg_min({'name': name, 'tid': tid, 'ts_ns': ts_ns, 'dur_ns': dur_ns}, ts_ns) AS r
              FROM event
              WHERE (run_id, rank) IN (FROM derive_rank()) AND file_id IN (FROM kin)
                AND ph = 'X' AND lower(cat) IN ('cuda_runtime', 'runtime', 'cuda_driver', 'privateuse1_runtime',
                                                'privateuse1_driver', 'hip_runtime')
                AND json_extract_string(args, '$.correlation') IS NOT NULL
              GROUP BY run_id, rank, corr)
    ),
    kflow AS (
        SELECT file_id, cat, ph, flow_id, pid, tid, ts_ns
        FROM event
        WHERE (run_id, rank) IN (FROM derive_rank()) AND file_id IN (FROM kin)
          AND ph IN ('s', 'f') AND lower(cat) IN ('ac2g', 'async_gpu', 'async')
    ),
    kflow_launch AS (
        -- only kernels without a runtime event: most traces have one for every kernel (a rank with
        -- a correlation that is no number has none: NOT IN over a list holding NULL)
        SELECT kk.run_id, kk.rank, kk.kernel_id, min(s.tid) AS tid, min(s.ts_ns) AS ts_ns
        FROM (FROM kk
              WHERE corr IS NULL
                 OR (NOT EXISTS (SELECT 1 FROM runtime AS r
                                 WHERE r.run_id = kk.run_id AND r.rank = kk.rank AND r.corr = kk.corr)
                     AND NOT EXISTS (SELECT 1 FROM runtime AS r
                                     WHERE r.run_id = kk.run_id AND r.rank = kk.rank AND r.corr IS NULL))) AS kk
        JOIN kflow AS f ON f.ph = 'f' AND f.file_id = kk.file_id AND f.pid = kk.pid AND f.tid = kk.tid
                       AND f.ts_ns = kk.ts_ns
        JOIN kflow AS s ON s.ph = 's' AND s.file_id = f.file_id AND s.cat = f.cat AND s.flow_id = f.flow_id
        GROUP BY kk.run_id, kk.rank, kk.kernel_id
    ),
    kineto AS (
        SELECT kk.run_id, kk.rank, 'kineto' AS source, kk.kernel_id, r.name AS launch_name,
               coalesce(r.tid, fl.tid) AS launch_tid, coalesce(r.ts_ns, fl.ts_ns) AS launch_ts_ns,
               r.dur_ns AS launch_dur_ns
        FROM kk
        LEFT JOIN runtime AS r ON r.run_id = kk.run_id AND r.rank = kk.rank AND r.corr = kk.corr
        LEFT JOIN kflow_launch AS fl ON fl.run_id = kk.run_id AND fl.rank = kk.rank AND fl.kernel_id = kk.kernel_id
        WHERE r.corr IS NOT NULL OR fl.kernel_id IS NOT NULL
    )
    FROM kineto
) AS l
WHERE kernel.run_id = l.run_id AND kernel.rank = l.rank
  AND kernel.source = l.source AND kernel.kernel_id = l.kernel_id;
