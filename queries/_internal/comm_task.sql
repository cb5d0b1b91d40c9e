-- comm_task — every HCCL task of an op execution with its position on its plane, the transfer
-- it belongs to (SDMA copy or RDMA payload window) and whether it lies on the op's master plane.
-- Grain:     one row per link row that belongs to an op (link.op_name, link.op_ts_ns not NULL).
-- Source:    link (trace_view.json Plane threads).
-- Reference: CANN msprof communication_parser / communication_matrix_parser (analyses.md §4.1,
--            §5.1). Tasks of one (op execution, plane) are ordered by start. SDMA copy:
--            Memcpy/Reduce_Inline with transport SDMA; SDMA transit: an SDMA copy whose link type
--            is not ON_CHIP (on-chip copies count in comm_matrix only). RDMA window: a run of consecutive
--            RDMA_SEND_PAYLOAD tasks (link.rdma_type; without it, RDMASend tasks with transport
--            RDMA and size > 0) closed by the task payload_count + k − 2 positions after the run
--            start (k = 3 for send/receive ops, 5 otherwise); window time = closing task end −
--            first payload start, size = Σ payload sizes; tasks inside a window are consumed; a
--            run without its closing task transfers nothing. Master plane: the only plane;
--            else plane 0 if it has an RDMA task, else plane 1 (else the lowest plane) — CANN
--            8.0 get_main_plane_id, which is what matches the corpus communication.json.
-- Units:     *_ns integer nanoseconds; *_bytes bytes; *_count tasks.
CREATE OR REPLACE VIEW tracedb_internal.comm_task AS
WITH task AS (
    SELECT
        l.*,
        row_number() OVER (
            PARTITION BY l.run_id, l.rank, l.file_id, l.op_ts_ns, l.op_name, l.plane_id
            ORDER BY l.ts_ns, l.dur_ns, l.task_name
        ) AS seq,
        (lower(l.op_name) LIKE '%send%' OR lower(l.op_name) LIKE '%receive%') AS is_send_recv,
        coalesce(l.rdma_type = 'RDMA_SEND_PAYLOAD',
                 l.task_name = 'RDMASend' AND l.transport_type = 'RDMA' AND coalesce(l.size_bytes, 0) > 0)
            AS is_payload
    FROM link AS l
    WHERE l.op_name IS NOT NULL AND l.op_ts_ns IS NOT NULL
),
payload_run AS (
    SELECT
        run_id, rank, file_id, op_ts_ns, op_name, plane_id,
        min(seq) AS first_seq,
        count(*) AS payload_count,
        sum(coalesce(size_bytes, 0)) AS size_bytes,
        min(ts_ns) AS start_ns,
        any_value(src_rank) AS src_rank,
        any_value(dst_rank) AS dst_rank,
        any_value(is_send_recv) AS is_send_recv
    FROM (
        SELECT
            *,
            seq - row_number() OVER (
                PARTITION BY run_id, rank, file_id, op_ts_ns, op_name, plane_id ORDER BY seq
            ) AS island
        FROM task
        WHERE is_payload
    ) AS p
    GROUP BY run_id, rank, file_id, op_ts_ns, op_name, plane_id, island
),
rdma_window AS (
    SELECT
        r.*,
        r.first_seq + r.payload_count + (CASE WHEN r.is_send_recv THEN 3 ELSE 5 END) - 2 AS close_seq,
        c.ts_ns + c.dur_ns - r.start_ns AS window_ns
    FROM payload_run AS r
    JOIN task AS c
        ON c.run_id = r.run_id AND c.rank = r.rank AND c.file_id = r.file_id
        AND c.op_ts_ns = r.op_ts_ns AND c.op_name = r.op_name AND c.plane_id = r.plane_id
        AND c.seq = r.first_seq + r.payload_count + (CASE WHEN r.is_send_recv THEN 3 ELSE 5 END) - 2
),
planes AS (
    SELECT
        run_id, rank, file_id, op_ts_ns, op_name,
        CASE
            WHEN count(DISTINCT plane_id) = 1 THEN min(plane_id)
            WHEN count_if(plane_id = 0 AND transport_type = 'RDMA') > 0 THEN 0
            WHEN count_if(plane_id = 1) > 0 THEN 1
            ELSE min(plane_id)
        END AS master_plane_id
    FROM task
    GROUP BY run_id, rank, file_id, op_ts_ns, op_name
)
SELECT
    t.run_id::INTEGER                                  AS run_id,              -- run
    t.rank::INTEGER                                    AS rank,                -- rank that recorded the task
    t.file_id::INTEGER                                 AS file_id,             -- trace file
    t.step::INTEGER                                    AS step,                -- step of the op
    t.group_name::VARCHAR                              AS group_name,          -- HCCL group (trace thread name)
    t.op_name::VARCHAR                                 AS op_name,             -- HCCL op name
    t.op_ts_ns::BIGINT                                 AS op_ts_ns,            -- op slice start, ns (identifies the execution)
    lower(CASE WHEN lower(t.op_name) LIKE 'hcom\_%' ESCAPE '\' THEN split_part(t.op_name, '_', 2)
               ELSE regexp_extract(t.op_name, '([A-Za-z]+)[^/]*$', 1) END)::VARCHAR
                                                       AS op_type,             -- second "_" token of hcom_ names, else the leading letters of the last "/" part (MindSpore: allReduce_1_1, Default/AllReduce-op534_0), lower case
    (CASE
        WHEN lower(t.op_name) LIKE 'hcom_send%' OR lower(t.op_name) LIKE 'hcom_receive%'
             OR lower(t.op_name) LIKE 'hcom_batchsendrecv%' THEN 'p2p'
        ELSE 'collective'
     END)::VARCHAR                                     AS comm_kind,           -- p2p (send, receive, batchSendRecv) or collective
    t.plane_id::INTEGER                                AS plane_id,            -- plane
    t.seq::BIGINT                                      AS seq,                 -- position on the plane within the op, 1-based
    t.task_name::VARCHAR                               AS task_name,           -- task type (underscores)
    t.src_rank::BIGINT                                 AS src_rank,            -- group-local source rank
    t.dst_rank::BIGINT                                 AS dst_rank,            -- group-local destination rank (4294967295 = local)
    t.transport_type::VARCHAR                          AS transport_type,      -- SDMA, RDMA or LOCAL
    t.link_type::VARCHAR                               AS link_type,           -- HCCS, PCIE, SIO, ON_CHIP, HCCS_SW, ...
    t.ts_ns::BIGINT                                    AS ts_ns,               -- task start, ns
    t.dur_ns::BIGINT                                   AS dur_ns,              -- task duration, ns
    t.size_bytes::BIGINT                               AS size_bytes,          -- task size, bytes
    (t.plane_id = p.master_plane_id)::BOOLEAN          AS is_master_plane,     -- the task is on the op's master plane
    (w.first_seq IS NOT NULL)::BOOLEAN                 AS in_rdma_window,      -- consumed by an RDMA window (not counted as wait)
    coalesce(t.seq = w.first_seq, false)::BOOLEAN      AS starts_rdma_window,  -- first payload of an RDMA window (false outside windows)
    CASE WHEN t.seq = w.first_seq THEN w.window_ns END::BIGINT
                                                       AS rdma_window_ns,      -- window time on its first payload row, ns
    CASE WHEN t.seq = w.first_seq THEN w.size_bytes END::BIGINT
                                                       AS rdma_window_bytes,   -- Σ payload bytes on its first payload row
    CASE WHEN t.seq = w.first_seq THEN w.payload_count END::BIGINT
                                                       AS rdma_payload_count,  -- payload tasks in the window, on its first payload row
    (w.first_seq IS NULL AND t.task_name IN ('Memcpy', 'Reduce_Inline') AND t.transport_type = 'SDMA')::BOOLEAN
                                                       AS is_sdma_copy,        -- SDMA copy task (ON_CHIP included)
    (w.first_seq IS NULL AND t.task_name IN ('Memcpy', 'Reduce_Inline') AND t.transport_type = 'SDMA'
     AND t.link_type IS DISTINCT FROM 'ON_CHIP')::BOOLEAN
                                                       AS is_sdma_transit      -- SDMA copy off chip: counted as transit (comm_op, comm_bandwidth)
FROM task AS t
JOIN planes AS p
    ON p.run_id = t.run_id AND p.rank = t.rank AND p.file_id = t.file_id
    AND p.op_ts_ns = t.op_ts_ns AND p.op_name = t.op_name
LEFT JOIN rdma_window AS w
    ON w.run_id = t.run_id AND w.rank = t.rank AND w.file_id = t.file_id
    AND w.op_ts_ns = t.op_ts_ns AND w.op_name = t.op_name AND w.plane_id = t.plane_id
    AND t.seq BETWEEN w.first_seq AND w.close_seq;
