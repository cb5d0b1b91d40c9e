-- comm_task — every HCCL task of an op execution with its position on its plane, the transfer
-- it belongs to (SDMA copy or RDMA payload window) and whether it lies on the op's master plane.
-- Grain:     one row per link row that belongs to an op (link.op_name, link.op_ts_ns not NULL).
-- Source:    link (trace_view.json Plane threads, HCCL .trace files, hccl_raw csv, the Ascend DB
--            export); the position, master plane and RDMA window are link columns set at
--            ingest (derive/075_comm_task.sql), so no query windows link again.
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
    t.plane_seq::BIGINT                                AS seq,                 -- position on the plane within the op, 1-based
    t.task_name::VARCHAR                               AS task_name,           -- task type (underscores)
    t.src_rank::BIGINT                                 AS src_rank,            -- group-local source rank
    t.dst_rank::BIGINT                                 AS dst_rank,            -- group-local destination rank (4294967295 = local)
    t.transport_type::VARCHAR                          AS transport_type,      -- SDMA, RDMA or LOCAL
    t.link_type::VARCHAR                               AS link_type,           -- HCCS, PCIE, SIO, ON_CHIP, HCCS_SW, ...
    t.ts_ns::BIGINT                                    AS ts_ns,               -- task start, ns
    t.dur_ns::BIGINT                                   AS dur_ns,              -- task duration, ns
    t.size_bytes::BIGINT                               AS size_bytes,          -- task size, bytes
    t.is_master_plane::BOOLEAN                         AS is_master_plane,     -- the task is on the op's master plane
    t.in_rdma_window::BOOLEAN                          AS in_rdma_window,      -- consumed by an RDMA window (not counted as wait)
    t.starts_rdma_window::BOOLEAN                      AS starts_rdma_window,  -- first payload of an RDMA window (false outside windows)
    t.rdma_window_ns::BIGINT                           AS rdma_window_ns,      -- window time on its first payload row, ns
    t.rdma_window_bytes::BIGINT                        AS rdma_window_bytes,   -- Σ payload bytes on its first payload row
    t.rdma_payload_count::BIGINT                       AS rdma_payload_count,  -- payload tasks in the window, on its first payload row
    (NOT t.in_rdma_window AND t.task_name IN ('Memcpy', 'Reduce_Inline') AND t.transport_type = 'SDMA')::BOOLEAN
                                                       AS is_sdma_copy,        -- SDMA copy task (ON_CHIP included)
    (NOT t.in_rdma_window AND t.task_name IN ('Memcpy', 'Reduce_Inline') AND t.transport_type = 'SDMA'
     AND t.link_type IS DISTINCT FROM 'ON_CHIP')::BOOLEAN
                                                       AS is_sdma_transit      -- SDMA copy off chip: counted as transit (comm_op, comm_bandwidth)
FROM link AS t
WHERE t.op_name IS NOT NULL AND t.op_ts_ns IS NOT NULL;
