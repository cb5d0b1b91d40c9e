-- kernel_details.csv rows → kernel, kernel_id = row number in the file. The rows are the ones
-- this command parsed (kernel_details_parsed, derive/_session.sql) and, for a file read by an
-- earlier command, its kernel rows as stored with the file's own Step Id and Stream ID
-- (kernel_details_raw), copied aside before the kernels of the rank are deleted (here for
-- every source: 030 and 040 write the trace and Kineto kernels after it; the MindSpore
-- step_trace_raw communication rows belong to their reader).
-- From the rank's trace (if any): the Ascend Hardware task with the same start and name
-- (MindSpore >= 2.5 names the row "fwk_op/kernel") gives the Task Type and, when the CSV has
-- none, the stream; the "Group <g> Communication" thread an HCCL op is drawn on gives its
-- group. A row without a Step Id belongs to the last step whose host window started at or
-- before it.
CREATE OR REPLACE TEMP TABLE _kernel_details_stored AS
SELECT k.run_id, k.rank, k.file_id, k.kernel_id AS line, r.step, k.name, k.op_type, k.accelerator_core,
       k.device_id, r.stream_id, k.ts_ns, k.dur_ns, k.wait_ns, k.is_communication, k.input_shapes,
       k.input_dtypes, k.output_shapes, k.block_dim
FROM kernel AS k
JOIN kernel_details_raw AS r USING (run_id, rank, file_id, kernel_id)
WHERE (r.run_id, r.rank) IN (FROM derive_rank())
  AND (k.run_id, k.rank) IN (FROM derive_rank()) AND k.source = 'kernel_details'
  AND k.file_id NOT IN (SELECT file_id FROM kernel_details_parsed);

DELETE FROM kernel
WHERE (run_id, rank) IN (FROM derive_rank()) AND source IN ('kernel_details', 'trace_view', 'kineto');

INSERT INTO kernel BY NAME
WITH parsed_first AS (
    SELECT run_id, rank, min(rowid) AS first_row
    FROM kernel_details_parsed WHERE (run_id, rank) IN (FROM derive_rank())
    GROUP BY run_id, rank
),
kd AS (
    -- one file per rank: its n-th row has rowid first + n - 1 (a window here would run on one thread)
    SELECT p.run_id, p.rank, p.file_id, p.rowid - f.first_row + 1 AS line, p.step, p.name,
           p.op_type, p.accelerator_core, p.device_id, p.stream_id, p.ts_ns, p.dur_ns, p.wait_ns, p.is_communication,
           p.input_shapes, p.input_dtypes, p.output_shapes, p.block_dim
    FROM kernel_details_parsed AS p JOIN parsed_first AS f ON f.run_id = p.run_id AND f.rank = p.rank
    WHERE (p.run_id, p.rank) IN (FROM derive_rank())
    UNION ALL
    SELECT * FROM _kernel_details_stored
),
task AS (
    SELECT run_id, rank, name, ts_ns, any_value(tid) AS tid,
           any_value(json_extract_string(args, '$."Task Type"')) AS task_type
    FROM event
    WHERE (run_id, rank) IN (FROM derive_rank()) AND process_name = 'Ascend Hardware' AND ph = 'X'
    GROUP BY run_id, rank, name, ts_ns
),
hccl_group AS (
    SELECT run_id, rank, name,
           any_value(nullif(regexp_extract(thread_name, '^Group (.+?) (Aicpu )?Communication$', 1), ''))
               AS group_name
    FROM event
    WHERE (run_id, rank) IN (FROM derive_rank())
      AND process_name IN ('HCCL', 'Communication') AND ph = 'X' AND thread_name LIKE '%Communication%'
    GROUP BY run_id, rank, name
),
matched AS (
    SELECT kd.run_id, kd.rank, kd.line, any_value(t.task_type) AS task_type, any_value(t.tid) AS tid
    FROM kd
    JOIN task AS t ON t.run_id = kd.run_id AND t.rank = kd.rank AND t.ts_ns = kd.ts_ns
                  AND (t.name = kd.name OR kd.name LIKE '%/' || t.name)
    WHERE NOT kd.is_communication
    GROUP BY kd.run_id, kd.rank, kd.line
),
step_start AS (FROM host_step_starts()),
window_step AS (
    -- only rows without a Step Id, and only their key: the ASOF join sorts its input
    SELECT kd.run_id, kd.rank, kd.line, w.step
    FROM (SELECT run_id, rank, line, ts_ns FROM kd WHERE step IS NULL) AS kd
    ASOF JOIN step_start AS w ON w.run_id = kd.run_id AND w.rank = kd.rank AND kd.ts_ns >= w.host_start_ns
)
SELECT kd.run_id, kd.rank, kd.file_id, kd.line AS kernel_id, coalesce(kd.step, w.step) AS step, kd.name,
       kd.op_type, kd.accelerator_core, m.task_type, kd.device_id, coalesce(kd.stream_id, m.tid) AS stream_id,
       kd.ts_ns, kd.dur_ns, kd.wait_ns, kd.is_communication, g.group_name, kd.input_shapes, kd.input_dtypes,
       kd.output_shapes, kd.block_dim, 'kernel_details' AS source
FROM kd
LEFT JOIN matched AS m ON m.run_id = kd.run_id AND m.rank = kd.rank AND m.line = kd.line
LEFT JOIN hccl_group AS g ON kd.is_communication AND g.run_id = kd.run_id AND g.rank = kd.rank AND g.name = kd.name
LEFT JOIN window_step AS w ON w.run_id = kd.run_id AND w.rank = kd.rank AND w.line = kd.line;

DROP TABLE _kernel_details_stored;
-- the staging rows are spent (bounded memory over many ranks; a second derive of the rank in
-- this command reads the kernel rows like any earlier command's)
DELETE FROM kernel_details_parsed WHERE (run_id, rank) IN (FROM derive_rank());
