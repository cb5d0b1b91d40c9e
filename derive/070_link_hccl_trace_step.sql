-- HCCL .trace link tasks (MindSpore) carry their file's iteration as step; when the rank has
-- step_trace_raw windows, an op takes the step whose [start, end) holds its first task (before
-- the first window: the first step; after the last: the last). Both files share the device
-- counter clock.
-- when-format: hccl_trace
UPDATE link SET step = s.step
FROM (
    WITH windows AS (
        SELECT run_id, rank, step, start_ns, end_ns,
               min(step) OVER r AS first_step, max(step) OVER r AS last_step,
               min(start_ns) OVER r AS first_start, max(end_ns) OVER r AS last_end
        FROM step_trace_raw_row
        WHERE (run_id, rank) IN (FROM derive_rank())
        WINDOW r AS (PARTITION BY run_id, rank)
    ),
    ops AS (
        SELECT DISTINCT run_id, rank, op_ts_ns FROM link
        WHERE (run_id, rank) IN (FROM derive_rank())
          AND file_id IN (SELECT file_id FROM derive_files(['hccl_trace']))
    )
    SELECT o.run_id, o.rank, o.op_ts_ns, coalesce(
        (SELECT min(w.step) FROM windows AS w
         WHERE w.run_id = o.run_id AND w.rank = o.rank AND o.op_ts_ns >= w.start_ns AND o.op_ts_ns < w.end_ns),
        (SELECT min(w.first_step) FROM windows AS w
         WHERE w.run_id = o.run_id AND w.rank = o.rank AND o.op_ts_ns < w.first_start),
        (SELECT min(w.last_step) FROM windows AS w
         WHERE w.run_id = o.run_id AND w.rank = o.rank AND o.op_ts_ns >= w.last_end)) AS step
    FROM ops AS o
) AS s
WHERE link.run_id = s.run_id AND link.rank = s.rank
  AND link.file_id IN (SELECT file_id FROM derive_files(['hccl_trace']))
  AND link.op_ts_ns = s.op_ts_ns AND s.step IS NOT NULL AND link.step IS DISTINCT FROM s.step;
