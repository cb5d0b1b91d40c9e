-- HCCL link tasks of the rank's trace_view.json / msprof timeline files → link, rebuilt
-- (formats.md §6.3). Task slices are the X events on "Plane <k>" threads of the Communication /
-- HCCL process. Each plane thread belongs to the "Group <g> Communication" (or "Group <g> Aicpu
-- Communication" / "Communication") thread that precedes it in display order (thread_sort_index,
-- else the numeric tid), as msprof-analyze assigns them; planes with no preceding group row
-- take the first group row of the process (2023-era CANN put planes at tid 0, 1, ... and the op
-- row at a large tid). A task belongs to the op slice of its group thread that started last at
-- or before it (ASOF join: one sorted merge, not a range join), if that slice [ts, ts + dur]
-- holds the task start. The op's step: the step of the communication kernel with the same name
-- and start, else the last step whose host window started at or before the op.
DELETE FROM link
WHERE (run_id, rank) IN (FROM derive_rank())
  AND file_id IN (SELECT file_id FROM derive_files(['trace_view', 'msprof_timeline']));

INSERT INTO link BY NAME
WITH ev AS (
    SELECT run_id, rank, file_id, ph, name, pid, tid, thread_name, ts_ns, dur_ns, args
    FROM event
    WHERE (run_id, rank) IN (FROM derive_rank())
      AND file_id IN (SELECT file_id FROM derive_files(['trace_view', 'msprof_timeline']))
      AND process_name IN ('HCCL', 'Communication')
),
threads AS (
    SELECT file_id, pid, tid, any_value(thread_name) AS thread_name,
           coalesce(max(TRY_CAST(json_extract_string(args, '$.sort_index') AS BIGINT))
                        FILTER (WHERE ph = 'M' AND name = 'thread_sort_index'),
                    max(TRY_CAST(tid AS BIGINT))) AS sort_key,
           TRY_CAST(tid AS BIGINT) AS tid_num
    FROM ev
    WHERE thread_name IS NOT NULL
    GROUP BY file_id, pid, tid
),
group_rows AS (
    SELECT file_id, pid, tid, sort_key, tid_num,
           nullif(regexp_extract(thread_name, '^Group (.+?) (Aicpu )?Communication$', 1), '') AS group_name
    FROM threads
    WHERE thread_name LIKE '%Communication%'
),
planes AS (
    SELECT file_id, pid, tid, sort_key, tid_num,
           TRY_CAST(regexp_extract(thread_name, '^Plane (\d+)$', 1) AS INTEGER) AS plane_id
    FROM threads
    WHERE regexp_full_match(thread_name, 'Plane \d+')
),
plane_group AS (
    SELECT p.file_id, p.pid, p.tid,
           coalesce(
               arg_max(g.tid, struct_pack(k := g.sort_key, t := g.tid_num))
                   FILTER (WHERE struct_pack(k := g.sort_key, t := g.tid_num)
                                 <= struct_pack(k := p.sort_key, t := p.tid_num)),
               arg_min(g.tid, struct_pack(k := g.sort_key, t := g.tid_num))) AS group_tid
    FROM planes AS p
    JOIN group_rows AS g ON g.file_id = p.file_id AND g.pid = p.pid
    GROUP BY p.file_id, p.pid, p.tid
),
planes_grouped AS (
    SELECT p.file_id, p.pid, p.tid, p.plane_id, pg.group_tid, g.group_name
    FROM planes AS p
    LEFT JOIN plane_group AS pg ON pg.file_id = p.file_id AND pg.pid = p.pid AND pg.tid = p.tid
    LEFT JOIN group_rows AS g ON g.file_id = p.file_id AND g.pid = p.pid AND g.tid = pg.group_tid
),
ops AS (
    SELECT run_id, rank, file_id, pid, tid, name AS op_name, ts_ns, ts_ns + coalesce(dur_ns, 0) AS end_ns
    FROM ev
    WHERE ph = 'X' AND thread_name LIKE '%Communication%' AND ts_ns IS NOT NULL
),
op_step AS (
    SELECT o.run_id, o.rank, o.op_name, o.op_ts_ns, coalesce(
        (SELECT min(k.step) FROM kernel AS k
         WHERE k.run_id = o.run_id AND k.rank = o.rank AND k.is_communication
           AND k.name = o.op_name AND k.ts_ns = o.op_ts_ns),
        (SELECT max(w.step) FROM step AS w
         WHERE w.run_id = o.run_id AND w.rank = o.rank AND w.host_start_ns IS NOT NULL
           AND w.host_start_ns <= o.op_ts_ns)) AS step
    FROM (SELECT DISTINCT run_id, rank, op_name, ts_ns AS op_ts_ns FROM ops) AS o
),
tasks AS (
    -- the task args a link row reads, parsed once per task into a struct
    SELECT e.*, pg.plane_id, pg.group_tid, pg.group_name,
           from_json(e.args, '{"src rank": "VARCHAR", "dst rank": "VARCHAR", "transport type": "VARCHAR",
                               "link type": "VARCHAR", "size(Byte)": "JSON", "bandwidth(GB/s)": "VARCHAR",
                               "notify_id": "VARCHAR", "rdma type": "VARCHAR"}') AS a
    FROM ev AS e
    JOIN planes_grouped AS pg ON pg.file_id = e.file_id AND pg.pid = e.pid AND pg.tid = e.tid
    WHERE e.ph = 'X' AND e.ts_ns IS NOT NULL
)
SELECT t.run_id, t.rank, t.file_id,
       CASE WHEN t.ts_ns <= o.end_ns THEN s.step END AS step, t.group_name,
       CASE WHEN t.ts_ns <= o.end_ns THEN o.op_name END AS op_name, t.plane_id,
       replace(trim(t.name), ' ', '_') AS task_name,
       TRY_CAST(t.a['src rank'] AS BIGINT) AS src_rank,
       TRY_CAST(t.a['dst rank'] AS BIGINT) AS dst_rank,
       t.a['transport type'] AS transport_type,
       t.a['link type'] AS link_type,
       t.ts_ns, t.dur_ns,
       hccl_size_bytes(CAST(t.a['size(Byte)'] AS VARCHAR)) AS size_bytes,
       TRY_CAST(t.a['bandwidth(GB/s)'] AS DOUBLE) AS bandwidth_gbps,
       t.a['notify_id'] AS notify_id,
       CASE WHEN t.ts_ns <= o.end_ns THEN o.ts_ns END AS op_ts_ns,
       t.a['rdma type'] AS rdma_type
FROM tasks AS t
ASOF LEFT JOIN ops AS o
    ON o.file_id = t.file_id AND o.pid = t.pid AND o.tid = t.group_tid AND t.ts_ns >= o.ts_ns
LEFT JOIN op_step AS s ON s.run_id = o.run_id AND s.rank = o.rank AND s.op_name = o.op_name AND s.op_ts_ns = o.ts_ns;
