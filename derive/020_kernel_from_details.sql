-- Kernels of (run, rank) are rebuilt here and in 030/040 (kernel_details.csv rows, trace tasks,
-- Kineto kernels); the MindSpore step_trace_raw communication rows belong to their reader.
DELETE FROM kernel
WHERE run_id = getvariable('run_id') AND rank = getvariable('rank')
  AND source IN ('kernel_details', 'trace_view', 'kineto');

-- kernel_details.csv rows → kernel, kernel_id = row number in the file (the reader stores the
-- rows in file order; a file's rows are only ever dropped whole, so rowid order stays file order). From the rank's trace
-- (if any): the Ascend Hardware task with the same start and name (MindSpore >= 2.5 names the
-- row "fwk_op/kernel") gives the Task Type and, when the CSV has none, the stream; the
-- "Group <g> Communication" thread an HCCL op is drawn on gives its group. A row without a
-- Step Id belongs to the last step whose host window started at or before it.
INSERT INTO kernel BY NAME
WITH kd AS (
    SELECT row_number() OVER (ORDER BY rowid) AS line, *
    FROM kernel_details_row WHERE run_id = getvariable('run_id') AND rank = getvariable('rank')
),
task AS (
    SELECT name, ts_ns, any_value(tid) AS tid, any_value(json_extract_string(args, '$."Task Type"')) AS task_type
    FROM event
    WHERE run_id = getvariable('run_id') AND rank = getvariable('rank')
      AND process_name = 'Ascend Hardware' AND ph = 'X'
    GROUP BY name, ts_ns
),
hccl_group AS (
    SELECT name, any_value(nullif(regexp_extract(thread_name, '^Group (.+?) (Aicpu )?Communication$', 1), ''))
               AS group_name
    FROM event
    WHERE run_id = getvariable('run_id') AND rank = getvariable('rank')
      AND process_name IN ('HCCL', 'Communication') AND ph = 'X' AND thread_name LIKE '%Communication%'
    GROUP BY name
),
matched AS (
    SELECT kd.line, any_value(t.task_type) AS task_type, any_value(t.tid) AS tid
    FROM kd
    JOIN task AS t ON t.ts_ns = kd.ts_ns AND (t.name = kd.name OR kd.name LIKE '%/' || t.name)
    WHERE NOT kd.is_communication
    GROUP BY kd.line
),
step_start AS (
    SELECT step, host_start_ns FROM step
    WHERE run_id = getvariable('run_id') AND rank = getvariable('rank') AND host_start_ns IS NOT NULL
)
SELECT kd.run_id, kd.rank, kd.file_id, kd.line AS kernel_id, coalesce(kd.step, w.step) AS step, kd.name,
       kd.op_type, kd.accelerator_core, m.task_type, kd.device_id, coalesce(kd.stream_id, m.tid) AS stream_id,
       kd.ts_ns, kd.dur_ns, kd.wait_ns, kd.is_communication, g.group_name, kd.input_shapes, kd.input_dtypes,
       kd.output_shapes, kd.block_dim, 'kernel_details' AS source
FROM kd
LEFT JOIN matched AS m ON m.line = kd.line
LEFT JOIN hccl_group AS g ON kd.is_communication AND g.name = kd.name
ASOF LEFT JOIN step_start AS w ON kd.ts_ns >= w.host_start_ns
ORDER BY kd.line;
