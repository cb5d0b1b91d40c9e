-- comm_task — link tasks with the classification every communication view shares.
-- Grain:     one row per link row (HCCL task) that belongs to an op.
-- Source:    link (trace_view.json Plane threads; HCCL .trace files).
-- Reference: CANN msprof communication parser (analyses.md §4.1, §5.1): transit tasks are
--            Memcpy / Reduce_Inline with transport SDMA, and RDMA payload tasks (RDMASend,
--            RDMA_SEND_PAYLOAD: each task counted as it is, the RDMA window rule is not applied);
--            a dst rank of 4294967295 is the task's own rank (self link). The master plane of an
--            op is its lowest-numbered plane with a task on a link other than ON_CHIP (FFTS+
--            traces put the op's local copies on Plane 0; that plane is not the master) —
--            matches communication.json Transit/Wait/Synchronization on every corpus op.
-- Units:     *_ns integer nanoseconds, *_bytes bytes.
CREATE OR REPLACE VIEW tracedb_internal.comm_task AS
WITH classified AS (
    SELECT
        l.*,
        (l.task_name IN ('Memcpy', 'Reduce_Inline') AND upper(l.transport_type) = 'SDMA')
            OR (upper(l.transport_type) = 'RDMA' AND l.task_name IN ('RDMASend', 'RDMA_SEND_PAYLOAD', 'RDMA_Send'))
            AS is_transfer,
        CASE
            WHEN upper(l.transport_type) = 'RDMA' THEN 'RDMA'
            WHEN upper(l.link_type) = 'ON_CHIP' OR upper(l.transport_type) = 'LOCAL' THEN 'LOCAL'
            WHEN upper(l.link_type) IN ('HCCS', 'HCCS_SW') THEN 'HCCS'
            WHEN upper(l.link_type) IN ('PCIE', 'SIO') THEN upper(l.link_type)
            WHEN upper(l.link_type) IN ('ROCE') THEN 'RDMA'
            ELSE 'SDMA'
        END AS link_transport,
        CASE WHEN l.dst_rank = 4294967295 THEN l.src_rank ELSE l.dst_rank END AS peer_rank
    FROM link AS l
    WHERE l.op_name IS NOT NULL
)
SELECT
    run_id::INTEGER                AS run_id,          -- run
    rank::INTEGER                  AS rank,            -- rank that recorded the task
    step::INTEGER                  AS step,            -- step of the op
    group_name::VARCHAR            AS group_name,      -- communication group
    op_name::VARCHAR               AS op_name,         -- HCCL op
    plane_id::INTEGER              AS plane_id,        -- plane
    task_name::VARCHAR             AS task_name,       -- task type (underscored)
    src_rank::BIGINT               AS src_rank,        -- source rank (group-local)
    peer_rank::BIGINT              AS dst_rank,        -- destination rank, self for 4294967295 (group-local)
    link_transport::VARCHAR        AS transport_type,  -- LOCAL (on-chip), HCCS, PCIE, SIO, RDMA, SDMA (unknown link)
    is_transfer::BOOLEAN           AS is_transfer,     -- a data transfer task (Memcpy / Reduce_Inline over SDMA, RDMA payload)
    (is_transfer AND link_transport <> 'LOCAL')::BOOLEAN
                                   AS is_transit,      -- a transfer over a link (not on-chip): counted in Transit Time
    (min(CASE WHEN coalesce(upper(link_type), '') <> 'ON_CHIP' THEN plane_id END)
        OVER (PARTITION BY run_id, rank, op_name) IS NOT DISTINCT FROM plane_id)::BOOLEAN
                                   AS is_master_plane, -- the task is on the op's master plane
    ts_ns::BIGINT                  AS ts_ns,           -- task start, ns
    dur_ns::BIGINT                 AS dur_ns,          -- task duration, ns
    size_bytes::BIGINT             AS size_bytes       -- bytes moved; NULL for notify tasks
FROM classified;
