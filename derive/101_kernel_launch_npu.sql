-- kernel.launch_*: the host call that launched each kernel of (run, rank), written into the
-- kernel rows 020/030/040 just rebuilt (rows of other sources are left alone); trace_view.json's
-- kernels here, Kineto's in 100_kernel_launch_kineto.
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
-- when-format: trace_view
UPDATE kernel SET launch_name = l.launch_name, launch_tid = l.launch_tid, launch_ts_ns = l.launch_ts_ns,
                  launch_dur_ns = l.launch_dur_ns
FROM (
    WITH tv AS (
        SELECT file_id FROM derive_files(['trace_view'])
    ),
    -- NPU: the HostToDevice flows ending at the kernels (_session.sql); of several, the first start
    flow_start AS (
        SELECT run_id, rank, source, kernel_id, arg_min(tid, (ts_ns, tid)) AS tid, min(ts_ns) AS ts_ns
        FROM npu_flow_starts('HostToDevice')
        GROUP BY run_id, rank, source, kernel_id
    ),
    cann AS (
        -- per (thread, start): the shortest CANN event (the innermost of those starting together)
        SELECT run_id, rank, tid, ts_ns, arg_min(name, (dur_ns, name)) AS name, min(dur_ns) AS dur_ns
        FROM event
        WHERE (run_id, rank) IN (SELECT DISTINCT run_id, rank FROM flow_start) AND file_id IN (FROM tv)
          AND ph = 'X' AND process_name = 'CANN' AND dur_ns > 0
        GROUP BY run_id, rank, tid, ts_ns
    ),
    -- the innermost CANN event running at the flow start: the last to start at or before it
    -- if it still runs then (every enclosing event started no later), else the first to end
    -- at or after it if that one started before it (every enclosing event ends no earlier),
    -- else (an event ended between, its parent still runs: 1 flow of the corpus) unnamed
    last_start AS (
        SELECT fs.run_id, fs.rank, fs.source, fs.kernel_id, c.name, c.ts_ns, c.dur_ns
        FROM flow_start AS fs
        ASOF JOIN cann AS c ON c.run_id = fs.run_id AND c.rank = fs.rank AND c.tid = fs.tid AND fs.ts_ns >= c.ts_ns
        WHERE c.ts_ns + c.dur_ns >= fs.ts_ns
    ),
    first_end AS (
        SELECT fs.run_id, fs.rank, fs.source, fs.kernel_id, c.name, c.ts_ns, c.dur_ns
        FROM (SELECT fs.* FROM flow_start AS fs
              ANTI JOIN last_start AS l
                  ON l.run_id = fs.run_id AND l.rank = fs.rank AND l.source = fs.source AND l.kernel_id = fs.kernel_id
             ) AS fs
        ASOF JOIN (SELECT *, ts_ns + dur_ns AS end_ns FROM cann) AS c
            ON c.run_id = fs.run_id AND c.rank = fs.rank AND c.tid = fs.tid AND c.end_ns >= fs.ts_ns
        WHERE c.ts_ns <= fs.ts_ns
    ),
    npu AS (
        SELECT fs.run_id, fs.rank, fs.source, fs.kernel_id, c.name AS launch_name, fs.tid AS launch_tid,
               coalesce(c.ts_ns, fs.ts_ns) AS launch_ts_ns, c.dur_ns AS launch_dur_ns
        FROM flow_start AS fs
        LEFT JOIN (FROM last_start UNION ALL FROM first_end) AS c
            ON c.run_id = fs.run_id AND c.rank = fs.rank AND c.source = fs.source AND c.kernel_id = fs.kernel_id
    )
    FROM npu
) AS l
WHERE kernel.run_id = l.run_id AND kernel.rank = l.rank
  AND kernel.source = l.source AND kernel.kernel_id = l.kernel_id;
