-- comm_bandwidth — bytes, time and bandwidth of each communication op per transport.
-- Grain:     one row per (run, rank, step, op, transport) with transfers; SDMA is the sum of
--            HCCS, PCIE and SIO (and SDMA transfers of unknown link type), as the profiler writes it.
-- Source:    link (Memcpy / Reduce_Inline / RDMA payload tasks of all planes: dur, args
--            "size(Byte)", "link type", "transport type").
-- Reference: communication.json "Communication Bandwidth Info" (CANN msprof, analyses.md §4.1):
--            size = Σ task bytes, time = Σ task durations, bandwidth = size / time (GB/s = bytes/ns),
--            Large Packet Ratio = transfers above 32 MB (HCCS, PCIE, SIO, SDMA) or 0.5 MB (RDMA),
--            MB = 10^6 B, ÷ transfers. On-chip copies (LOCAL) are not a transport here.
-- Units:     transit_size_bytes bytes; transit_ns integer ns; bandwidth_gbps GB/s (10^9 B/s).
CREATE OR REPLACE VIEW comm_bandwidth AS
WITH transfers AS (
    SELECT run_id, rank, step, op_name, transport_type, dur_ns, coalesce(size_bytes, 0) AS size_bytes
    FROM tracedb_internal.comm_task
    WHERE is_transit
    UNION ALL
    SELECT run_id, rank, step, op_name, 'SDMA', dur_ns, coalesce(size_bytes, 0)
    FROM tracedb_internal.comm_task
    WHERE is_transit AND transport_type IN ('HCCS', 'PCIE', 'SIO')
),
per_transport AS (
    SELECT
        run_id, rank, min(step) AS step, op_name, transport_type,
        sum(size_bytes) AS transit_size_bytes,
        sum(dur_ns) AS transit_ns,
        count(*) AS transfer_count,
        count_if(size_bytes > CASE WHEN transport_type = 'RDMA' THEN 500000 ELSE 32000000 END) AS large_count
    FROM transfers
    GROUP BY run_id, rank, op_name, transport_type
)
SELECT
    r.run_name::VARCHAR                                               AS run_name,            -- run name
    p.rank::INTEGER                                                   AS rank,                -- global rank that recorded the op
    p.step::INTEGER                                                   AS step,                -- step number; NULL without steps
    p.op_name::VARCHAR                                                AS op_name,             -- HCCL op, e.g. hcom_allReduce__586_0_1
    p.transport_type::VARCHAR                                         AS transport_type,      -- HCCS, PCIE, SIO, RDMA, or SDMA (= HCCS + PCIE + SIO)
    p.transit_size_bytes::BIGINT                                      AS transit_size_bytes,  -- bytes moved, all planes
    p.transit_ns::BIGINT                                              AS transit_ns,          -- Σ transfer durations, ns
    CASE WHEN p.transit_ns > 0 THEN p.transit_size_bytes / p.transit_ns END::DOUBLE
                                                                      AS bandwidth_gbps,      -- bytes / ns = GB/s (10^9 B/s)
    (p.large_count / p.transfer_count)::DOUBLE                        AS large_packet_ratio,  -- share of transfers above 32 MB (0.5 MB for RDMA)
    p.transfer_count::BIGINT                                          AS transfer_count       -- transfer tasks counted
FROM per_transport AS p
JOIN run AS r ON r.run_id = p.run_id
ORDER BY r.run_name, p.rank, p.op_name, p.transport_type;
