-- comm_op_check — comm_op and comm_bandwidth against the profiler's own communication.json, one
-- row per op and compared number.
-- Grain:     one row per (run, rank, op, metric[, transport]) present in either side: the time
--            metrics elapse_ns, transit_ns, wait_ns, synchronization_ns, idle_ns of comm_op, and
--            per transport transit_size_bytes, transit_ns, bandwidth_gbps of comm_bandwidth.
-- Source:    comm_op, comm_bandwidth (their recomputed rows only); profiler_comm_op, profiler_comm_bandwidth (communication.json
--            as written, reference only; "Total Op Info" rows left out).
-- Reference: CANN msprof communication.json (analyses.md §4.1). Ops are matched by rank and op
--            name (the trace names groups "Group 0 Communication", the file by a hash), and by
--            step when both sides know it. Tolerance max(1 µs, 0.1 %) for times, max(1 B, 0.1 %)
--            for sizes, max(0.0001, 0.1 %) for bandwidth (the file prints 4 decimals). A
--            bandwidth the file does not print shows as missing_in_profiler.
-- Units:     value / profiler_value / diff in the metric's unit (the suffix of metric: ns,
--            bytes, gbps = GB/s); diff = value − profiler_value.
CREATE OR REPLACE VIEW comm_op_check AS
WITH ours AS (
    SELECT run_name, rank, step, op_name, group_name, '' AS transport_type, m.metric,
           CASE m.metric
               WHEN 'elapse_ns' THEN c.elapse_ns
               WHEN 'transit_ns' THEN c.transit_ns
               WHEN 'wait_ns' THEN c.wait_ns
               WHEN 'synchronization_ns' THEN c.synchronization_ns
               ELSE c.idle_ns
           END::DOUBLE AS value
    FROM comm_op AS c
    CROSS JOIN (VALUES ('elapse_ns'), ('transit_ns'), ('wait_ns'), ('synchronization_ns'), ('idle_ns')) AS m(metric)
    WHERE c.source = 'recomputed'
    UNION ALL
    SELECT run_name, rank, step, op_name, group_name, transport_type, m.metric,
           CASE m.metric
               WHEN 'transit_size_bytes' THEN b.transit_size_bytes::DOUBLE
               WHEN 'transit_ns' THEN b.transit_ns::DOUBLE
               ELSE b.bandwidth_gbps
           END AS value
    FROM comm_bandwidth AS b
    CROSS JOIN (VALUES ('transit_size_bytes'), ('transit_ns'), ('bandwidth_gbps')) AS m(metric)
    WHERE b.source = 'recomputed'
),
theirs AS (
    SELECT r.run_name, p.rank, p.step, p.op_name, p.group_name, '' AS transport_type, m.metric,
           CASE m.metric
               WHEN 'elapse_ns' THEN p.elapse_ns
               WHEN 'transit_ns' THEN p.transit_ns
               WHEN 'wait_ns' THEN p.wait_ns
               WHEN 'synchronization_ns' THEN p.synchronization_ns
               ELSE p.idle_ns
           END::DOUBLE AS value
    FROM profiler_comm_op AS p
    JOIN run AS r
        ON r.run_id = p.run_id
    CROSS JOIN (VALUES ('elapse_ns'), ('transit_ns'), ('wait_ns'), ('synchronization_ns'), ('idle_ns')) AS m(metric)
    WHERE NOT p.is_total
    UNION ALL
    SELECT r.run_name, p.rank, p.step, p.op_name, p.group_name, p.transport_type, m.metric,
           CASE m.metric
               WHEN 'transit_size_bytes' THEN p.transit_size_bytes::DOUBLE
               WHEN 'transit_ns' THEN p.transit_ns::DOUBLE
               ELSE p.bandwidth_gbps
           END AS value
    FROM profiler_comm_bandwidth AS p
    JOIN run AS r
        ON r.run_id = p.run_id
    CROSS JOIN (VALUES ('transit_size_bytes'), ('transit_ns'), ('bandwidth_gbps')) AS m(metric)
    WHERE NOT p.is_total
      AND (m.metric <> 'bandwidth_gbps' OR p.bandwidth_gbps IS NOT NULL)
),
joined AS (
    SELECT
        coalesce(o.run_name, t.run_name) AS run_name,
        coalesce(o.rank, t.rank) AS rank,
        coalesce(o.step, t.step) AS step,
        coalesce(o.op_name, t.op_name) AS op_name,
        t.group_name AS profiler_group_name,
        o.group_name AS trace_group_name,
        coalesce(o.transport_type, t.transport_type) AS transport_type,
        coalesce(o.metric, t.metric) AS metric,
        o.value,
        t.value AS profiler_value,
        o.run_name IS NOT NULL AS has_trace,
        t.run_name IS NOT NULL AS has_reference
    FROM ours AS o
    FULL OUTER JOIN theirs AS t
        ON t.run_name = o.run_name AND t.rank = o.rank AND t.op_name = o.op_name
        AND t.transport_type = o.transport_type AND t.metric = o.metric
        AND coalesce(t.step, o.step, -1) = coalesce(o.step, t.step, -1)
)
SELECT
    run_name::VARCHAR                       AS run_name,             -- run name
    rank::INTEGER                           AS rank,                 -- global rank
    step::INTEGER                           AS step,                 -- step (comm_op's, else the file's)
    op_name::VARCHAR                        AS op_name,              -- HCCL op name
    metric::VARCHAR                         AS metric,               -- compared number: elapse_ns, transit_ns, wait_ns, synchronization_ns, idle_ns, transit_size_bytes, bandwidth_gbps
    nullif(transport_type, '')::VARCHAR     AS transport_type,       -- transport of a bandwidth metric; NULL for time metrics
    (CASE
        WHEN NOT has_trace THEN 'missing_in_trace'
        WHEN NOT has_reference THEN 'missing_in_profiler'
        WHEN abs(value - profiler_value) <= CASE
            WHEN metric LIKE '%\_ns' ESCAPE '\' THEN greatest(1000, abs(profiler_value) * 0.001)
            WHEN metric LIKE '%\_bytes' ESCAPE '\' THEN greatest(1, abs(profiler_value) * 0.001)
            ELSE greatest(0.0001, abs(profiler_value) * 0.001)
        END THEN 'ok'
        ELSE 'differs'
     END)::VARCHAR                          AS status,               -- ok, differs, missing_in_trace, missing_in_profiler
    value::DOUBLE                           AS value,                -- tracedb's value (comm_op / comm_bandwidth); NULL when the trace has no such op
    profiler_value::DOUBLE                  AS profiler_value,       -- communication.json's value; NULL when the file has no such op
    (value - profiler_value)::DOUBLE        AS diff,                 -- value − profiler_value
    coalesce(
        has_trace AND has_reference
        AND abs(value - profiler_value) <= CASE
            WHEN metric LIKE '%\_ns' ESCAPE '\' THEN greatest(1000, abs(profiler_value) * 0.001)
            WHEN metric LIKE '%\_bytes' ESCAPE '\' THEN greatest(1, abs(profiler_value) * 0.001)
            ELSE greatest(0.0001, abs(profiler_value) * 0.001)
        END,
        FALSE)::BOOLEAN                     AS within_tolerance,     -- both sides present and |diff| <= max(1 µs | 1 B | 0.0001, 0.1 %)
    has_trace::BOOLEAN                      AS has_trace,            -- tracedb computed the op from trace tasks
    has_reference::BOOLEAN                  AS has_reference,        -- communication.json has the op
    profiler_group_name::VARCHAR            AS profiler_group_name,  -- group as communication.json keys it (after "@")
    trace_group_name::VARCHAR               AS trace_group_name      -- group as the trace names it
FROM joined
ORDER BY run_name, rank, op_name, transport_type, metric;
