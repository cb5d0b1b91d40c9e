-- comm_bandwidth — how much data each communication op moved over each transport, how long that
-- took and at what bandwidth.
-- Grain:     one row per (run, rank, step, op execution, transport) for the five transports
--            HCCS, PCIE, SIO, RDMA, SDMA (zero rows included, as in the file).
-- Source:    link via tracedb_internal.comm_task (trace_view.json HCCL Plane tasks, all planes).
-- Reference: communication.json "Communication Bandwidth Info" (CANN msprof, analyses.md §4.1):
--            SDMA copies (Memcpy/Reduce_Inline, transport SDMA, link type ≠ ON_CHIP) are booked
--            on their link type (HCCS_SW → HCCS; HCCS, PCIE, SIO; any other type only in SDMA);
--            RDMA windows (see comm_task) on RDMA; SDMA = HCCS + PCIE + SIO + copies of other
--            link types. Bandwidth = bytes / ns (= MB/ms = GB/s), 4 decimals. Large packet ratio =
--            packets above 32 MB (HCCS, PCIE, SIO, SDMA) or 0.5 MB (RDMA, one packet per window),
--            decimal MB; the profiler writes 0 for SDMA.
-- Units:     *_bytes bytes; *_ns integer nanoseconds; bandwidth_gbps GB/s (10^9 B/s);
--            large_packet_ratio 0–1; *_count transfers.
CREATE OR REPLACE VIEW comm_bandwidth AS
WITH op AS (
    SELECT run_id, rank, file_id, op_ts_ns, op_name, any_value(step) AS step, any_value(group_name) AS group_name
    FROM tracedb_internal.comm_task
    GROUP BY run_id, rank, file_id, op_ts_ns, op_name
),
packet AS (
    SELECT
        run_id, rank, file_id, op_ts_ns, op_name,
        CASE
            WHEN link_type = 'HCCS_SW' THEN 'HCCS'
            WHEN link_type IN ('HCCS', 'PCIE', 'SIO') THEN link_type
            ELSE 'SDMA'
        END AS bucket,
        coalesce(size_bytes, 0) AS size_bytes,
        dur_ns AS transit_ns
    FROM tracedb_internal.comm_task
    WHERE is_sdma_transit
    UNION ALL
    SELECT run_id, rank, file_id, op_ts_ns, op_name, 'RDMA', rdma_window_bytes, rdma_window_ns
    FROM tracedb_internal.comm_task
    WHERE starts_rdma_window
),
transport AS (
    SELECT * FROM (VALUES ('HCCS', 1), ('PCIE', 2), ('SIO', 3), ('RDMA', 4), ('SDMA', 5)) AS t(transport_type, ord)
),
per_transport AS (
    SELECT
        o.run_id, o.rank, o.step, o.group_name, o.op_name, o.op_ts_ns, t.transport_type, t.ord,
        coalesce(sum(p.size_bytes), 0) AS transit_size_bytes,
        coalesce(sum(p.transit_ns), 0) AS transit_ns,
        count(p.bucket) AS packet_count,
        count_if(p.size_bytes > CASE WHEN t.transport_type = 'RDMA' THEN 500000 ELSE 32000000 END)
            AS large_packet_count
    FROM op AS o
    CROSS JOIN transport AS t
    LEFT JOIN packet AS p
        ON p.run_id = o.run_id AND p.rank = o.rank AND p.file_id = o.file_id
        AND p.op_ts_ns = o.op_ts_ns AND p.op_name = o.op_name
        AND (p.bucket = t.transport_type
             OR (t.transport_type = 'SDMA' AND p.bucket IN ('HCCS', 'PCIE', 'SIO')))
    GROUP BY o.run_id, o.rank, o.file_id, o.step, o.group_name, o.op_name, o.op_ts_ns, t.transport_type, t.ord
)
SELECT
    r.run_name::VARCHAR                         AS run_name,            -- run name
    b.rank::INTEGER                             AS rank,                -- global rank that recorded the op
    b.step::INTEGER                             AS step,                -- step of the op (as in comm_op)
    b.op_name::VARCHAR                          AS op_name,             -- HCCL op name
    b.transport_type::VARCHAR                   AS transport_type,      -- HCCS, PCIE, SIO, RDMA or SDMA (= HCCS + PCIE + SIO + other SDMA links)
    (CASE WHEN b.transit_ns = 0 THEN 0
          ELSE round(b.transit_size_bytes / b.transit_ns, 4) END)::DOUBLE
                                                AS bandwidth_gbps,      -- bytes / ns = GB/s, 4 decimals; 0 without transfers
    b.transit_size_bytes::BIGINT                AS transit_size_bytes,  -- bytes moved
    b.transit_ns::BIGINT                        AS transit_ns,          -- Σ transfer time, ns
    b.packet_count::BIGINT                      AS packet_count,        -- transfers counted (SDMA copies, RDMA windows)
    (CASE WHEN b.packet_count = 0 THEN 0
          ELSE round(b.large_packet_count / b.packet_count, 4) END)::DOUBLE
                                                AS large_packet_ratio,  -- share of packets above 32 MB (RDMA: 0.5 MB)
    b.group_name::VARCHAR                       AS group_name,          -- HCCL group as the trace names it
    b.op_ts_ns::BIGINT                          AS op_start_ns          -- op slice start, ns (tells repeated executions apart)
FROM per_transport AS b
JOIN run AS r
    ON r.run_id = b.run_id
ORDER BY run_name, rank, op_start_ns, op_name, b.ord;
