-- slow_link — which link is slow: each link's bandwidth against the other links of its transport.
-- Grain:     one row per (run, step, group, src rank, dst rank, transport) with data moved;
--            self links (on-chip copies, LOCAL) are left out, as the references do; ordered by
--            run, step, transport, bandwidth (slowest first), then group, src rank, dst rank.
-- Source:    comm_matrix (HCCL tasks of trace_view.json / .trace files: size and time per link,
--            summed over ops and over the ranks that recorded them) and MindSpore hccl_raw rows
--            of link (task_name hccl_raw: per op, link and transport).
-- Reference: bandwidth = Σ bytes / Σ ns (GB/s). Compared within (run, step, transport) — the
--            profiler's guidance is to compare a link only with links of the same transport.
--            msprof-analyze 5 % rule (advisor slow link, analyses.md §5.3): the link is more than
--            5 % below the transport's median; MindInsight rule: more than 20 % below the mean;
--            z-score with the population standard deviation (recipe slow_link uses mean ± 3σ).
-- Units:     transit_size_bytes bytes; transit_ns integer ns; *_gbps GB/s (10^9 B/s);
--            *_ratio plain ratio; *_count links.
CREATE OR REPLACE VIEW slow_link AS
WITH per_link AS (
    SELECT run_name, step, group_name, src_rank, dst_rank, transport_type,
           sum(transit_size_bytes) AS transit_size_bytes, sum(transit_ns) AS transit_ns
    FROM (
        SELECT run_name, step, group_name, src_rank, dst_rank, transport_type, transit_size_bytes, transit_ns
        FROM comm_matrix
        UNION ALL
        SELECT r.run_name, l.step, l.group_name, l.src_rank, l.dst_rank, l.transport_type, l.size_bytes, l.dur_ns
        FROM link AS l JOIN run AS r ON r.run_id = l.run_id
        WHERE l.task_name = 'hccl_raw'
    ) AS u
    WHERE transport_type <> 'LOCAL' AND src_rank IS DISTINCT FROM dst_rank
    GROUP BY run_name, step, group_name, src_rank, dst_rank, transport_type
    HAVING sum(transit_ns) > 0
),
with_bw AS (
    SELECT *, transit_size_bytes / transit_ns AS bandwidth_gbps FROM per_link
),
stats AS (
    SELECT
        *,
        count(*) OVER w                  AS link_count,
        median(bandwidth_gbps) OVER w    AS median_gbps,
        avg(bandwidth_gbps) OVER w       AS mean_gbps,
        stddev_pop(bandwidth_gbps) OVER w AS stddev_gbps
    FROM with_bw
    WINDOW w AS (PARTITION BY run_name, step, transport_type)
)
SELECT
    run_name::VARCHAR                                              AS run_name,                -- run name
    step::INTEGER                                                  AS step,                    -- step number; NULL without steps
    src_rank::BIGINT                                               AS src_rank,                -- source rank (group-local)
    dst_rank::BIGINT                                               AS dst_rank,                -- destination rank (group-local)
    transport_type::VARCHAR                                        AS transport_type,          -- HCCS, PCIE, SIO, RDMA, SDMA (MindSpore hccl_raw)
    bandwidth_gbps::DOUBLE                                         AS bandwidth_gbps,          -- bytes / ns = GB/s
    median_gbps::DOUBLE                                            AS transport_median_gbps,   -- median bandwidth of the transport's links, GB/s
    CASE WHEN median_gbps > 0 THEN 1 - bandwidth_gbps / median_gbps END::DOUBLE
                                                                   AS below_median_ratio,      -- 1 − bandwidth / median (0.1 = 10 % slower than the median link)
    CASE WHEN stddev_gbps > 0 THEN (bandwidth_gbps - mean_gbps) / stddev_gbps END::DOUBLE
                                                                   AS z_score,                 -- (bandwidth − mean) / population σ; NULL when all links are equal
    (link_count > 1 AND bandwidth_gbps < 0.95 * median_gbps)::BOOLEAN
                                                                   AS msprof_slow_5pct,        -- msprof-analyze rule: more than 5 % below the transport's median
    (link_count > 1 AND bandwidth_gbps < 0.8 * mean_gbps)::BOOLEAN AS mindinsight_slow_20pct,  -- MindInsight rule: more than 20 % below the transport's mean
    transit_size_bytes::BIGINT                                     AS transit_size_bytes,      -- bytes moved on the link in the step
    transit_ns::BIGINT                                             AS transit_ns,              -- transfer time on the link in the step, ns
    link_count::BIGINT                                             AS link_count,              -- links of this transport in the step
    mean_gbps::DOUBLE                                              AS transport_mean_gbps,     -- mean bandwidth of the transport's links, GB/s
    group_name::VARCHAR                                            AS group_name               -- communication group (group-local ranks are only unique within it)
FROM stats
ORDER BY run_name, step, transport_type, bandwidth_gbps, group_name, src_rank, dst_rank;
