-- comm_op — each communication op split into transit, wait, synchronization and idle time.
-- Grain:     one row per (run, rank, step, communication op) with link tasks.
-- Source:    link (HCCL tasks of the trace_view.json Plane threads: name, ts, dur, args
--            "transport type", "link type").
-- Reference: communication.json "Communication Time Info" (CANN msprof, analyses.md §4.1):
--            on the op's master plane, Transit = Σ dur of transfers over a link (not on-chip),
--            Wait = Σ dur of Notify_Wait, Synchronization = Σ dur of the Notify_Wait before the
--            first transit task; Elapse = last task end − first task start over all planes;
--            Idle = Elapse − Transit − Wait; ratios = Wait/(Wait+Transit) and
--            Sync/(Sync+Transit), 4 decimals, 0 when the denominator is 0. Checked against
--            the profiler by comm_op_check.
-- Units:     *_ns integer nanoseconds; ratios 0–1.
CREATE OR REPLACE VIEW comm_op AS
WITH master AS (
    SELECT
        run_id, rank, op_name,
        min(ts_ns) FILTER (WHERE is_transit) AS first_transit_ns
    FROM tracedb_internal.comm_task
    WHERE is_master_plane
    GROUP BY run_id, rank, op_name
),
per_op AS (
    SELECT
        t.run_id, t.rank, min(t.step) AS step, any_value(t.group_name) AS group_name, t.op_name,
        min(t.ts_ns) AS start_ns,
        max(t.ts_ns + t.dur_ns) - min(t.ts_ns) AS elapse_ns,
        coalesce(sum(t.dur_ns) FILTER (WHERE t.is_master_plane AND t.is_transit), 0) AS transit_ns,
        coalesce(sum(t.dur_ns) FILTER (WHERE t.is_master_plane AND t.task_name = 'Notify_Wait'), 0) AS wait_ns,
        coalesce(sum(t.dur_ns) FILTER (WHERE t.is_master_plane AND t.task_name = 'Notify_Wait'
                                        AND (m.first_transit_ns IS NULL OR t.ts_ns < m.first_transit_ns)), 0)
            AS synchronization_ns,
        count(DISTINCT t.plane_id) AS plane_count
    FROM tracedb_internal.comm_task AS t
    JOIN master AS m ON m.run_id = t.run_id AND m.rank = t.rank AND m.op_name = t.op_name
    GROUP BY t.run_id, t.rank, t.op_name
)
SELECT
    r.run_name::VARCHAR                                                   AS run_name,               -- run name
    p.rank::INTEGER                                                       AS rank,                   -- global rank that recorded the op
    p.step::INTEGER                                                       AS step,                   -- step number; NULL without steps
    p.group_name::VARCHAR                                                 AS group_name,             -- communication group (trace thread "Group <g> Communication")
    p.op_name::VARCHAR                                                    AS op_name,                -- HCCL op, e.g. hcom_allReduce__586_0_1
    split_part(p.op_name, '_', 2)::VARCHAR                                AS op_type,                -- op type: second _ token of the name (allReduce, broadcast, send ...)
    CASE WHEN lower(p.op_name) LIKE 'hcom\_send%' ESCAPE '\'
           OR lower(p.op_name) LIKE 'hcom\_receive%' ESCAPE '\'
           OR lower(p.op_name) LIKE 'hcom\_batchsendrecv%' ESCAPE '\'
         THEN 'p2p' ELSE 'collective' END::VARCHAR                        AS comm_kind,              -- p2p (send, receive, batchsendrecv) or collective
    p.start_ns::BIGINT                                                    AS start_ns,               -- first task start over all planes, ns since the epoch
    p.elapse_ns::BIGINT                                                   AS elapse_ns,              -- Elapse Time: last task end − first task start, ns
    p.transit_ns::BIGINT                                                  AS transit_ns,             -- Transit Time: transfers over a link on the master plane, ns
    p.wait_ns::BIGINT                                                     AS wait_ns,                -- Wait Time: Notify_Wait on the master plane, ns
    p.synchronization_ns::BIGINT                                          AS synchronization_ns,     -- Synchronization Time: Notify_Wait before the first transit task, ns
    (p.elapse_ns - p.transit_ns - p.wait_ns)::BIGINT                      AS idle_ns,                -- Idle Time: Elapse − Transit − Wait, ns
    CASE WHEN p.wait_ns + p.transit_ns > 0
         THEN round(p.wait_ns / (p.wait_ns + p.transit_ns), 4) ELSE 0 END::DOUBLE
                                                                          AS wait_ratio,             -- Wait Time Ratio: Wait / (Wait + Transit), 4 decimals
    CASE WHEN p.synchronization_ns + p.transit_ns > 0
         THEN round(p.synchronization_ns / (p.synchronization_ns + p.transit_ns), 4) ELSE 0 END::DOUBLE
                                                                          AS synchronization_ratio,  -- Synchronization Time Ratio: Sync / (Sync + Transit), 4 decimals
    p.plane_count::BIGINT                                                 AS plane_count             -- planes the op's tasks ran on
FROM per_op AS p
JOIN run AS r ON r.run_id = p.run_id
ORDER BY r.run_name, p.rank, p.start_ns;
