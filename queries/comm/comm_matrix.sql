-- comm_matrix — how much each communication op sent over each link (source rank → destination
-- rank), how long that took and at what bandwidth.
-- Grain:     one row per (run, rank, step, op execution, src_rank, dst_rank).
-- Source:    link via tracedb_internal.comm_task (trace_view.json HCCL Plane tasks, all planes).
-- Reference: communication_matrix.json per-op links (CANN msprof communication_matrix_parser,
--            analyses.md §5.1): tasks with a valid source rank (≠ 4294967295); SDMA copies
--            (Memcpy/Reduce_Inline, transport SDMA, ON_CHIP included) and RDMA windows (see
--            comm_task). dst 4294967295 is booked on the self link src-src. Transport: ON_CHIP →
--            LOCAL, HCCS_SW → HCCS, else the link type; RDMA windows RDMA; the last task's wins.
--            Ranks are group-local. Σ over the ops of a type = the "<type>-total" entries
--            (comm_matrix_summary).
-- Units:     *_bytes bytes; *_ns integer nanoseconds; bandwidth_gbps = bytes / ns (GB/s), 4
--            decimals; *_count transfers.
CREATE OR REPLACE VIEW comm_matrix AS
WITH packet AS (
    SELECT
        run_id, rank, file_id, step, group_name, op_name, op_type, comm_kind, op_ts_ns, ts_ns, src_rank,
        CASE WHEN dst_rank = 4294967295 THEN src_rank ELSE dst_rank END AS dst_rank,
        CASE
            WHEN starts_rdma_window THEN 'RDMA'
            WHEN link_type = 'ON_CHIP' THEN 'LOCAL'
            WHEN link_type = 'HCCS_SW' THEN 'HCCS'
            ELSE link_type
        END AS transport_type,
        CASE WHEN starts_rdma_window THEN rdma_window_bytes ELSE coalesce(size_bytes, 0) END AS size_bytes,
        CASE WHEN starts_rdma_window THEN rdma_window_ns ELSE dur_ns END AS transit_ns
    FROM tracedb_internal.comm_task
    WHERE (is_sdma_copy OR starts_rdma_window)
      AND src_rank IS NOT NULL AND src_rank <> 4294967295 AND dst_rank IS NOT NULL
),
per_link AS (
    SELECT
        run_id, rank, file_id, op_ts_ns, op_name, src_rank, dst_rank,
        any_value(step) AS step,
        any_value(group_name) AS group_name,
        any_value(op_type) AS op_type,
        any_value(comm_kind) AS comm_kind,
        arg_max(transport_type, ts_ns) AS transport_type,
        sum(size_bytes) AS transit_size_bytes,
        sum(transit_ns) AS transit_ns,
        count(*) AS packet_count
    FROM packet
    GROUP BY run_id, rank, file_id, op_ts_ns, op_name, src_rank, dst_rank
)
SELECT
    r.run_name::VARCHAR                         AS run_name,            -- run name
    m.rank::INTEGER                             AS rank,                -- global rank that recorded the op
    m.step::INTEGER                             AS step,                -- step of the op (as in comm_op)
    m.op_name::VARCHAR                          AS op_name,             -- HCCL op name
    m.src_rank::BIGINT                          AS src_rank,            -- group-local source rank
    m.dst_rank::BIGINT                          AS dst_rank,            -- group-local destination rank (= src_rank for on-chip copies)
    m.transport_type::VARCHAR                   AS transport_type,      -- LOCAL, HCCS, PCIE, SIO or RDMA
    (CASE WHEN m.transit_ns = 0 THEN 0
          ELSE round(m.transit_size_bytes / m.transit_ns, 4) END)::DOUBLE
                                                AS bandwidth_gbps,      -- bytes / ns = GB/s
    m.transit_size_bytes::BIGINT                AS transit_size_bytes,  -- bytes moved on the link
    m.transit_ns::BIGINT                        AS transit_ns,          -- Σ transfer time on the link, ns
    m.packet_count::BIGINT                      AS packet_count,        -- transfers on the link (SDMA copies, RDMA windows)
    m.op_type::VARCHAR                          AS op_type,             -- second "_" token of hcom_ names, else the leading letters of the last "/" part (MindSpore), lower case
    m.comm_kind::VARCHAR                        AS comm_kind,           -- p2p or collective
    m.group_name::VARCHAR                       AS group_name,          -- HCCL group as the trace names it
    m.op_ts_ns::BIGINT                          AS op_start_ns          -- op slice start, ns (tells repeated executions apart)
FROM per_link AS m
JOIN run AS r
    ON r.run_id = m.run_id
ORDER BY run_name, rank, op_start_ns, op_name, src_rank, dst_rank;
