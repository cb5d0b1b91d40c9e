-- Each HCCL task's place in its op execution → link.plane_seq, is_master_plane and the RDMA
-- window columns, for the rank's link rows that belong to an op (op_name and op_ts_ns set).
-- Computed once here, after every writer of link (readers, 060, 070), so that
-- tracedb_internal.comm_task and the comm views read them instead of windowing link per query.
-- Reference: CANN msprof communication_parser / communication_matrix_parser (analyses.md §4.1,
-- §5.1). Tasks of one (op execution, plane) are ordered by start (then duration, task name).
-- RDMA window: a run of consecutive RDMA_SEND_PAYLOAD tasks (link.rdma_type; without it,
-- RDMASend tasks with transport RDMA and size > 0) closed by the task payload_count + k − 2
-- positions after the run start (k = 3 for send/receive ops, 5 otherwise); window time = closing
-- task end − first payload start, size = Σ payload sizes; the tasks from the first payload to
-- the closing task are in the window; a run without its closing task transfers nothing (where
-- two windows overlap, a task belongs to the later one). Master plane: the only plane; else
-- plane 0 if it has an RDMA task, else plane 1 (else the lowest plane) — CANN 8.0
-- get_main_plane_id, which is what matches the corpus communication.json.
-- The ranks: the variable derive_ranks, else the one of run_id / rank (derive/_session.sql's
-- derive_rank(), spelled out: the schema upgrade and the SQL cases run this file without it).
-- when: SELECT EXISTS (FROM link WHERE (run_id, rank) IN (FROM derive_rank()) AND op_name IS NOT NULL AND op_ts_ns IS NOT NULL)
UPDATE link SET
    plane_seq = c.plane_seq,
    is_master_plane = c.is_master_plane,
    in_rdma_window = c.in_rdma_window,
    starts_rdma_window = c.starts_rdma_window,
    rdma_window_ns = c.rdma_window_ns,
    rdma_window_bytes = c.rdma_window_bytes,
    rdma_payload_count = c.rdma_payload_count
FROM (
    WITH task AS (
        SELECT
            l.rowid AS link_rowid, l.file_id, l.op_ts_ns, l.op_name, l.plane_id, l.ts_ns, l.dur_ns,
            l.size_bytes, l.transport_type,
            row_number() OVER (
                PARTITION BY l.file_id, l.op_ts_ns, l.op_name, l.plane_id
                ORDER BY l.ts_ns, l.dur_ns, l.task_name
            ) AS seq,
            (lower(l.op_name) LIKE '%send%' OR lower(l.op_name) LIKE '%receive%') AS is_send_recv,
            coalesce(l.rdma_type = 'RDMA_SEND_PAYLOAD',
                     l.task_name = 'RDMASend' AND l.transport_type = 'RDMA' AND coalesce(l.size_bytes, 0) > 0)
                AS is_payload
        FROM link AS l
        WHERE (l.run_id, l.rank) IN (
                  SELECT unnest(coalesce(getvariable('derive_ranks'),
                                         [{'run_id': getvariable('run_id')::INTEGER,
                                           'rank': getvariable('rank')::INTEGER}]), recursive := true))
          AND l.op_name IS NOT NULL AND l.op_ts_ns IS NOT NULL
    ),
    payload_run AS (
        SELECT
            file_id, op_ts_ns, op_name, plane_id,
            min(seq) AS first_seq,
            count(*) AS payload_count,
            sum(coalesce(size_bytes, 0)) AS size_bytes,
            min(ts_ns) AS start_ns,
            any_value(is_send_recv) AS is_send_recv
        FROM (
            SELECT
                *,
                seq - row_number() OVER (PARTITION BY file_id, op_ts_ns, op_name, plane_id ORDER BY seq) AS island
            FROM task
            WHERE is_payload
        ) AS p
        GROUP BY file_id, op_ts_ns, op_name, plane_id, island
    ),
    rdma_window AS (
        SELECT
            r.*,
            r.first_seq + r.payload_count + (CASE WHEN r.is_send_recv THEN 3 ELSE 5 END) - 2 AS close_seq,
            c.ts_ns + c.dur_ns - r.start_ns AS window_ns
        FROM payload_run AS r
        JOIN task AS c
            ON c.file_id = r.file_id AND c.op_ts_ns = r.op_ts_ns AND c.op_name = r.op_name
            AND c.plane_id = r.plane_id
            AND c.seq = r.first_seq + r.payload_count + (CASE WHEN r.is_send_recv THEN 3 ELSE 5 END) - 2
    ),
    planes AS (
        SELECT
            file_id, op_ts_ns, op_name,
            CASE
                WHEN count(DISTINCT plane_id) = 1 THEN min(plane_id)
                WHEN count_if(plane_id = 0 AND transport_type = 'RDMA') > 0 THEN 0
                WHEN count_if(plane_id = 1) > 0 THEN 1
                ELSE min(plane_id)
            END AS master_plane_id
        FROM task
        GROUP BY file_id, op_ts_ns, op_name
    )
    SELECT
        t.link_rowid,
        t.seq AS plane_seq,
        t.plane_id = p.master_plane_id AS is_master_plane,
        w.first_seq IS NOT NULL AS in_rdma_window,
        coalesce(t.seq = w.first_seq, false) AS starts_rdma_window,
        CASE WHEN t.seq = w.first_seq THEN w.window_ns END AS rdma_window_ns,
        CASE WHEN t.seq = w.first_seq THEN w.size_bytes END AS rdma_window_bytes,
        CASE WHEN t.seq = w.first_seq THEN w.payload_count END AS rdma_payload_count
    FROM task AS t
    JOIN planes AS p
        ON p.file_id = t.file_id AND p.op_ts_ns = t.op_ts_ns AND p.op_name = t.op_name
    LEFT JOIN rdma_window AS w
        ON w.file_id = t.file_id AND w.op_ts_ns = t.op_ts_ns AND w.op_name = t.op_name
        AND w.plane_id = t.plane_id AND t.seq BETWEEN w.first_seq AND w.close_seq
    QUALIFY row_number() OVER (PARTITION BY t.link_rowid ORDER BY w.first_seq DESC NULLS LAST) = 1
) AS c
WHERE link.rowid = c.link_rowid;
