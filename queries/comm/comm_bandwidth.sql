-- comm_bandwidth — how much data each communication op moved over each transport, how long that
-- took and at what bandwidth.
-- Grain:     one row per (run, rank, step, op execution, transport) for the five transports
--            HCCS, PCIE, SIO, RDMA, SDMA (zero rows included, as in the file).
-- Source:    link via tracedb_internal.comm_task (trace_view.json HCCL Plane tasks, all planes),
--            source 'recomputed'; for ranks without HCCL tasks (no trace_view.json)
--            profiler_comm_bandwidth (communication.json "Communication Bandwidth Info" as
--            written, op_start_ns from its "Start Timestamp(us)"), source 'communication.json'
--            (or 'analysis.db').
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
WITH task AS (
    -- read once: the ops and both kinds of packets below use it (a CTE used several times is
    -- computed once)
    SELECT
        run_id, rank, file_id, op_ts_ns, op_name, step, group_name, link_type, size_bytes, dur_ns,
        is_sdma_transit, starts_rdma_window, rdma_window_bytes, rdma_window_ns
    FROM tracedb_internal.comm_task
),
op AS (
    SELECT run_id, rank, file_id, op_ts_ns, op_name, any_value(step) AS step, any_value(group_name) AS group_name
    FROM task
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
    FROM task
    WHERE is_sdma_transit
    UNION ALL
    SELECT run_id, rank, file_id, op_ts_ns, op_name, 'RDMA', rdma_window_bytes, rdma_window_ns
    FROM task
    WHERE starts_rdma_window
),
packet_sum AS (
    -- per op and transport: each packet counts on its bucket, and HCCS / PCIE / SIO packets on
    -- SDMA too (SDMA = HCCS + PCIE + SIO + copies of other link types)
    SELECT
        run_id, rank, file_id, op_ts_ns, op_name, transport_type,
        sum(size_bytes) AS size_bytes,
        sum(transit_ns) AS transit_ns,
        count(*) AS packet_count,
        count_if(size_bytes > CASE WHEN transport_type = 'RDMA' THEN 500000 ELSE 32000000 END) AS large_packet_count
    FROM (
        SELECT run_id, rank, file_id, op_ts_ns, op_name, bucket AS transport_type, size_bytes, transit_ns
        FROM packet
        UNION ALL
        SELECT run_id, rank, file_id, op_ts_ns, op_name, 'SDMA', size_bytes, transit_ns
        FROM packet
        WHERE bucket IN ('HCCS', 'PCIE', 'SIO')
    ) AS x
    GROUP BY run_id, rank, file_id, op_ts_ns, op_name, transport_type
),
transport AS (
    SELECT * FROM (VALUES ('HCCS', 1), ('PCIE', 2), ('SIO', 3), ('RDMA', 4), ('SDMA', 5)) AS t(transport_type, ord)
),
per_transport AS (
    -- every op gets all five transports, zero rows included
    SELECT
        o.run_id, o.rank, o.step, o.group_name, o.op_name, o.op_ts_ns, t.transport_type, t.ord,
        coalesce(p.size_bytes, 0) AS transit_size_bytes,
        coalesce(p.transit_ns, 0) AS transit_ns,
        coalesce(p.packet_count, 0) AS packet_count,
        coalesce(p.large_packet_count, 0) AS large_packet_count
    FROM op AS o
    CROSS JOIN transport AS t
    LEFT JOIN packet_sum AS p
        ON p.run_id = o.run_id AND p.rank = o.rank AND p.file_id = o.file_id
        AND p.op_ts_ns = o.op_ts_ns AND p.op_name = o.op_name AND p.transport_type = t.transport_type
),
traced_rank AS (
    SELECT DISTINCT run_id, rank FROM link WHERE op_name IS NOT NULL AND op_ts_ns IS NOT NULL
),
file_bw AS (
    SELECT p.*, f.format, o.start_ns AS op_start_ns,
           CASE p.transport_type WHEN 'HCCS' THEN 1 WHEN 'PCIE' THEN 2 WHEN 'SIO' THEN 3 WHEN 'RDMA' THEN 4
                                 WHEN 'SDMA' THEN 5 ELSE 6 END AS ord,
           row_number() OVER (PARTITION BY p.run_id, p.rank, p.step, p.op_key, p.transport_type
                              ORDER BY CASE f.format WHEN 'communication' THEN 0 ELSE 1 END, f.format,
                                       p.transit_size_bytes, p.transit_ns) AS pick
    FROM profiler_comm_bandwidth AS p
    JOIN source_file AS f
        ON f.file_id = p.file_id
    LEFT JOIN traced_rank AS t
        ON t.run_id = p.run_id AND t.rank = p.rank
    LEFT JOIN profiler_comm_op AS o
        ON o.file_id = p.file_id AND o.op_key = p.op_key AND o.step IS NOT DISTINCT FROM p.step
        AND o.comm_kind IS NOT DISTINCT FROM p.comm_kind
    WHERE NOT p.is_total AND t.run_id IS NULL
),
combined AS (
    SELECT
        run_id, rank, step, op_name, transport_type,
        CASE WHEN transit_ns = 0 THEN 0 ELSE round(transit_size_bytes / transit_ns, 4) END AS bandwidth_gbps,
        transit_size_bytes, transit_ns, packet_count,
        CASE WHEN packet_count = 0 THEN 0 ELSE round(large_packet_count / packet_count, 4) END AS large_packet_ratio,
        group_name, op_ts_ns AS op_start_ns, 'recomputed' AS source, ord
    FROM per_transport
    UNION ALL
    SELECT
        run_id, rank, step, op_name, transport_type,
        coalesce(bandwidth_gbps, CASE WHEN transit_ns = 0 THEN 0 ELSE round(transit_size_bytes / transit_ns, 4) END),
        transit_size_bytes, transit_ns, packet_count, large_packet_ratio, group_name, op_start_ns,
        CASE format WHEN 'communication' THEN 'communication.json' WHEN 'analysis_db' THEN 'analysis.db' ELSE format END,
        ord
    FROM file_bw
    WHERE pick = 1
)
SELECT
    r.run_name::VARCHAR                         AS run_name,            -- run name
    b.rank::INTEGER                             AS rank,                -- global rank that recorded the op
    b.step::INTEGER                             AS step,                -- step of the op (as in comm_op)
    b.op_name::VARCHAR                          AS op_name,             -- HCCL op name
    b.transport_type::VARCHAR                   AS transport_type,      -- HCCS, PCIE, SIO, RDMA or SDMA (= HCCS + PCIE + SIO + other SDMA links)
    b.bandwidth_gbps::DOUBLE                    AS bandwidth_gbps,      -- bytes / ns = GB/s, 4 decimals; 0 without transfers (communication.json: as written)
    b.transit_size_bytes::BIGINT                AS transit_size_bytes,  -- bytes moved
    b.transit_ns::BIGINT                        AS transit_ns,          -- Σ transfer time, ns
    b.packet_count::BIGINT                      AS packet_count,        -- transfers counted (SDMA copies, RDMA windows; communication.json: Σ of "Size Distribution" counts)
    b.large_packet_ratio::DOUBLE                AS large_packet_ratio,  -- share of packets above 32 MB (RDMA: 0.5 MB)
    b.group_name::VARCHAR                       AS group_name,          -- HCCL group as the trace names it (communication.json: the hash after "@")
    b.op_start_ns::BIGINT                       AS op_start_ns,         -- op slice start, ns (tells repeated executions apart; communication.json: "Start Timestamp(us)")
    b.source::VARCHAR                           AS source               -- recomputed (trace HCCL tasks), or communication.json / analysis.db (the profiler's numbers for a rank without a trace)
FROM combined AS b
JOIN run AS r
    ON r.run_id = b.run_id
ORDER BY run_name, rank, op_start_ns, op_name, b.ord;
