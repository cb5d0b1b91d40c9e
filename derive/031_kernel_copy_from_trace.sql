-- NPU copies of trace_view.json (and of CANN msprof timeline files, the same form) → kernel
-- (with or without kernel_details.csv, which lists no copies): the Ascend Hardware tasks whose
-- "Task Type" is SDMA_SQE, PCIE_DMA_SQE or MEMCPY_ASYNC (the MEMCPY_ASYNC tasks msprof-analyze
-- counts as SDMA, trace_event_bean._SDMA_TASK_TYPES; CANN 6.x/7.0 types them MEMCPY_ASYNC), and
-- the MEMCPY_ASYNC tasks of older CANN, which label every task "Other". A copy is counted once:
-- HCCL's own copies (Task Type SDMA, Memcpy, ... and, in 2023-2024 CANN, MEMCPY_ASYNC tasks
-- that are the Memcpy task of an HCCL op: a Plane task of the HCCL / Communication process with
-- the same start and "stream id") are part of their communication op, never also copies.
-- copy_kind from args "operation" (newest CANN: host to device → HtoD, device to host → DtoH,
-- device to device → DtoD, host to host → HtoH, peer → PtoP), else Unknown (the trace does not
-- say); size_bytes = args "size(B)" (newest CANN), else NULL. accelerator_core and task_type =
-- "Task Type", op_type = the task name, stream = tid, never communication. kernel_id: after
-- every other kernel of the rank (kernel_details.csv lines or trace tasks), by start, name,
-- stream. Step: the last step whose host window started at or before the task (msprof
-- timeline files: derive/036 sets it from the Iteration windows). The msprof timeline files
-- of a rank that has MindSpore's own timeline (ascend_timeline_display_{rank}.json, built
-- from the same CANN data) give no rows here.
-- when-format: trace_view msprof_timeline
INSERT INTO kernel BY NAME
WITH files AS (
    SELECT file_id FROM derive_files(['trace_view'])
    UNION ALL
    SELECT file_id FROM derive_files(['msprof_timeline'])
    WHERE (run_id, rank) NOT IN (SELECT run_id, rank FROM derive_files(['mindspore_timeline']))
),
candidate AS (
    SELECT run_id, rank, file_id, name, ts_ns, dur_ns, tid, a[1] AS task_type, TRY_CAST(a[2] AS BIGINT) AS size_bytes,
           regexp_replace(lower(a[3]), '[^a-z0-9]', '', 'g') AS op
    FROM (SELECT run_id, rank, file_id, name, ts_ns, dur_ns, tid,
                 json_extract_string(args, ['$."Task Type"', '$."size(B)"', '$.operation']) AS a
          FROM event
          WHERE (run_id, rank) IN (FROM derive_rank())
            AND file_id IN (FROM files)
            AND process_name = 'Ascend Hardware' AND ph = 'X' AND ts_ns IS NOT NULL AND dur_ns IS NOT NULL
            -- a cheap text test first: the JSON is parsed for the few candidate tasks only
            AND (name = 'MEMCPY_ASYNC' OR args LIKE '%DMA\_SQE%' ESCAPE '\'))
    WHERE a[1] IN ('SDMA_SQE', 'PCIE_DMA_SQE', 'MEMCPY_ASYNC')
       OR (name = 'MEMCPY_ASYNC' AND coalesce(a[1], 'Other') = 'Other')
),
hccl_task AS (
    -- the HCCL Plane tasks starting where a candidate does (the semi join builds on the few
    -- candidate starts, not on the ranks' HCCL tasks)
    SELECT run_id, rank, ts_ns, json_extract_string(args, '$."stream id"') AS stream
    FROM event
    WHERE (run_id, rank) IN (FROM derive_rank())
      AND file_id IN (FROM files)
      AND process_name IN ('HCCL', 'Communication') AND ph = 'X' AND coalesce(thread_name, '') NOT LIKE '%Communication%'
      AND ts_ns IN (SELECT ts_ns FROM candidate)
),
copy AS (
    SELECT c.* FROM candidate AS c
    WHERE NOT EXISTS (SELECT 1 FROM hccl_task AS h
                      WHERE h.run_id = c.run_id AND h.rank = c.rank AND h.ts_ns = c.ts_ns AND h.stream = c.tid)
),
listed AS (
    -- kernel_details.csv rows named like a copy task (the semi join builds on the few copy names,
    -- not on the ranks' kernels)
    SELECT run_id, rank, name, ts_ns FROM kernel
    WHERE (run_id, rank) IN (FROM derive_rank()) AND source = 'kernel_details'
      AND name IN (SELECT name FROM copy)
),
last_kernel AS (
    SELECT run_id, rank, max(kernel_id) AS kernel_id FROM kernel
    WHERE (run_id, rank) IN (FROM derive_rank())
    GROUP BY run_id, rank
),
step_start AS (FROM host_step_starts())
SELECT c.run_id, c.rank, c.file_id,
       coalesce(l.kernel_id, 0) + row_number() OVER (PARTITION BY c.run_id, c.rank ORDER BY c.ts_ns, c.name, c.tid)
           AS kernel_id,
       w.step, c.name, c.name AS op_type, c.task_type AS accelerator_core, c.task_type,
       d.device_id, c.tid AS stream_id,
       c.ts_ns, c.dur_ns, false AS is_communication,
       CASE WHEN regexp_full_match(c.op, '(h|host)(2|to)(d|device)') THEN 'HtoD'
            WHEN regexp_full_match(c.op, '(d|device)(2|to)(h|host)') THEN 'DtoH'
            WHEN regexp_full_match(c.op, '(d|device)(2|to)(d|device)') THEN 'DtoD'
            WHEN regexp_full_match(c.op, '(h|host)(2|to)(h|host)') THEN 'HtoH'
            WHEN regexp_full_match(c.op, '(p|peer)(2|to)(p|peer)|p2p|peer') THEN 'PtoP'
            ELSE 'Unknown' END AS copy_kind,
       c.size_bytes, 'trace_view' AS source
FROM copy AS c
LEFT JOIN last_kernel AS l ON l.run_id = c.run_id AND l.rank = c.rank
LEFT JOIN npu_device() AS d ON d.run_id = c.run_id AND d.rank = c.rank
ASOF LEFT JOIN step_start AS w ON w.run_id = c.run_id AND w.rank = c.rank AND c.ts_ns >= w.host_start_ns
-- a kernel_details.csv that does list the task keeps its row
WHERE NOT EXISTS (SELECT 1 FROM listed AS k
                  WHERE k.run_id = c.run_id AND k.rank = c.rank AND k.ts_ns = c.ts_ns AND k.name = c.name)
ORDER BY c.run_id, c.rank, kernel_id;
