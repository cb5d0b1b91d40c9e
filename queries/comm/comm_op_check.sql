-- comm_op_check — comm_op and comm_bandwidth against the profiler's own communication.json.
-- Grain:     one row per (run, rank, op) found in comm_op or in profiler_comm_op (totals excluded).
-- Source:    comm_op, comm_bandwidth (computed from link tasks); profiler_comm_op,
--            profiler_comm_bandwidth (communication.json as written).
-- Reference: tolerance max(1 µs, 0.1 %) of the profiler's value for every time field (the file
--            keeps sub-ns fractions, traces keep ns); bandwidth per transport: size within
--            max(1 byte, 0.1 %), time within max(1 µs, 0.1 %), GB/s within 0.1 %. Transports the
--            profiler lists with zero bytes must be absent or zero in comm_bandwidth.
-- Units:     *_ns integer nanoseconds (diff = tracedb − profiler).
CREATE OR REPLACE VIEW comm_op_check AS
WITH ours AS (
    SELECT c.*, r.run_id
    FROM comm_op AS c JOIN run AS r ON r.run_name = c.run_name
),
theirs AS (
    SELECT * FROM profiler_comm_op WHERE group_name IS NOT NULL
),
bw AS (
    SELECT
        p.run_id, p.rank, p.op_name,
        bool_and(
            abs(coalesce(b.transit_size_bytes, 0) - p.transit_size_bytes) <= greatest(1, 0.001 * p.transit_size_bytes)
            AND abs(coalesce(b.transit_ns, 0) - p.transit_ns) <= greatest(1000, 0.001 * p.transit_ns)
            AND (p.bandwidth_gbps IS NULL OR p.transit_size_bytes = 0
                 OR abs(coalesce(b.bandwidth_gbps, 0) - p.bandwidth_gbps) <= 0.001 * p.bandwidth_gbps)
        ) AS bandwidth_matches
    FROM profiler_comm_bandwidth AS p
    JOIN run AS r ON r.run_id = p.run_id
    LEFT JOIN comm_bandwidth AS b
        ON b.run_name = r.run_name AND b.rank = p.rank AND b.op_name = p.op_name
       AND b.transport_type = p.transport_type
    WHERE p.group_name IS NOT NULL
    GROUP BY p.run_id, p.rank, p.op_name
),
joined AS (
    SELECT
        coalesce(o.run_id, t.run_id) AS run_id,
        coalesce(o.rank, t.rank) AS rank,
        coalesce(o.step, t.step) AS step,
        coalesce(o.op_name, t.op_name) AS op_name,
        o.op_name IS NOT NULL AS in_trace,
        t.op_name IS NOT NULL AS in_profiler,
        o.elapse_ns - t.elapse_ns AS elapse_diff_ns,
        o.transit_ns - t.transit_ns AS transit_diff_ns,
        o.wait_ns - t.wait_ns AS wait_diff_ns,
        o.synchronization_ns - t.synchronization_ns AS synchronization_diff_ns,
        o.idle_ns - t.idle_ns AS idle_diff_ns,
        t.elapse_ns, t.transit_ns, t.wait_ns, t.synchronization_ns, t.idle_ns
    FROM ours AS o
    FULL OUTER JOIN theirs AS t
        ON t.run_id = o.run_id AND t.rank = o.rank AND t.op_name = o.op_name
    WHERE (o.run_id IS NOT NULL AND EXISTS (SELECT 1 FROM profiler_comm_op AS x WHERE x.run_id = o.run_id AND x.rank = o.rank))
       OR t.run_id IS NOT NULL
)
SELECT
    r.run_name::VARCHAR                      AS run_name,                  -- run name
    j.rank::INTEGER                          AS rank,                      -- global rank
    j.step::INTEGER                          AS step,                      -- step number
    j.op_name::VARCHAR                       AS op_name,                   -- HCCL op
    CASE WHEN NOT j.in_trace THEN 'missing_in_trace'
         WHEN NOT j.in_profiler THEN 'missing_in_profiler'
         WHEN abs(j.elapse_diff_ns) <= greatest(1000, 0.001 * j.elapse_ns)
          AND abs(j.transit_diff_ns) <= greatest(1000, 0.001 * j.transit_ns)
          AND abs(j.wait_diff_ns) <= greatest(1000, 0.001 * j.wait_ns)
          AND abs(j.synchronization_diff_ns) <= greatest(1000, 0.001 * j.synchronization_ns)
          AND abs(j.idle_diff_ns) <= greatest(1000, 0.001 * j.idle_ns)
          AND coalesce(b.bandwidth_matches, true)
         THEN 'match' ELSE 'differs' END::VARCHAR
                                             AS status,                    -- match, differs, missing_in_trace (no link tasks: no trace_view.json or no Plane threads), missing_in_profiler
    j.elapse_diff_ns::BIGINT                 AS elapse_diff_ns,            -- comm_op.elapse_ns − Elapse Time, ns
    j.transit_diff_ns::BIGINT                AS transit_diff_ns,           -- comm_op.transit_ns − Transit Time, ns
    j.wait_diff_ns::BIGINT                   AS wait_diff_ns,              -- comm_op.wait_ns − Wait Time, ns
    j.synchronization_diff_ns::BIGINT        AS synchronization_diff_ns,   -- comm_op.synchronization_ns − Synchronization Time, ns
    j.idle_diff_ns::BIGINT                   AS idle_diff_ns,              -- comm_op.idle_ns − Idle Time, ns
    b.bandwidth_matches::BOOLEAN             AS bandwidth_matches          -- every transport of Communication Bandwidth Info matches comm_bandwidth; NULL without reference
FROM joined AS j
JOIN run AS r ON r.run_id = j.run_id
LEFT JOIN bw AS b ON b.run_id = j.run_id AND b.rank = j.rank AND b.op_name = j.op_name
ORDER BY r.run_name, j.rank, j.op_name;
