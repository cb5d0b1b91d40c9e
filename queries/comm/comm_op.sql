-- comm_op — how long each communication op took on each rank and how that time splits into
-- moving data (transit), waiting for peers (wait, of which synchronization) and idle.
-- Grain:     one row per (run, rank, step, op execution): an op slice of a "Group <g>
--            Communication" thread that has task rows on its Plane threads; for a rank without
--            such tasks (no trace_view.json), one row per op of its communication.json.
-- Source:    link via tracedb_internal.comm_task (trace_view.json HCCL Plane tasks), source
--            'recomputed'; for ranks without HCCL tasks profiler_comm_op (communication.json
--            "Communication Time Info" as written; analysis.db CommAnalyzerTime when there is no
--            communication.json), source 'communication.json' / 'analysis.db'.
-- Reference: communication.json "Communication Time Info" (CANN msprof, analyses.md §4.1),
--            recomputed from the tasks: transit = Σ SDMA copies (Memcpy/Reduce_Inline, transport
--            SDMA, link type ≠ ON_CHIP) + Σ RDMA windows on the master plane; wait = Σ Notify_Wait
--            on the master plane outside RDMA windows; synchronization = those Notify_Wait before
--            the plane's first transfer (all of them when there is none); idle = elapse − transit
--            − wait; start and elapse = first task start and last task end over all planes of the
--            op (the corpus files: plane 0 carries the op's first and last task, and CANN's older
--            parser took the start over all planes). Master plane: see comm_task. Compared
--            with the file in comm_op_check.
-- Units:     *_ns integer nanoseconds; *_ratio 0–1 rounded to 4 decimals (0 when the
--            denominator is 0).
CREATE OR REPLACE VIEW comm_op AS
WITH task AS (
    -- read once: both parts below use it (a CTE used several times is computed once)
    SELECT
        run_id, rank, file_id, op_ts_ns, op_name, step, group_name, op_type, comm_kind, ts_ns, dur_ns,
        seq, task_name, is_master_plane, is_sdma_transit, starts_rdma_window, in_rdma_window, rdma_window_ns
    FROM tracedb_internal.comm_task
),
op AS (
    SELECT
        run_id, rank, file_id, op_ts_ns, op_name,
        any_value(step) AS step,
        any_value(group_name) AS group_name,
        any_value(op_type) AS op_type,
        any_value(comm_kind) AS comm_kind,
        min(ts_ns) AS start_ns,
        max(ts_ns + dur_ns) AS end_ns,
        -- the master plane's first transfer (SDMA transit copy or RDMA window start)
        min(CASE WHEN is_master_plane AND (is_sdma_transit OR starts_rdma_window) THEN seq END) AS first_transit_seq
    FROM task
    GROUP BY run_id, rank, file_id, op_ts_ns, op_name
),
parts AS (
    -- the master plane's tasks of each op
    SELECT
        t.run_id, t.rank, t.file_id, t.op_ts_ns, t.op_name,
        sum(CASE WHEN t.is_sdma_transit THEN t.dur_ns ELSE 0 END)
            + sum(coalesce(t.rdma_window_ns, 0)) AS transit_ns,
        sum(CASE WHEN t.task_name = 'Notify_Wait' AND NOT t.in_rdma_window THEN t.dur_ns ELSE 0 END) AS wait_ns,
        sum(CASE WHEN t.task_name = 'Notify_Wait' AND NOT t.in_rdma_window
                      AND (o.first_transit_seq IS NULL OR t.seq < o.first_transit_seq)
                 THEN t.dur_ns ELSE 0 END) AS synchronization_ns
    FROM task AS t
    JOIN op AS o
        ON o.run_id = t.run_id AND o.rank = t.rank AND o.file_id = t.file_id
        AND o.op_ts_ns = t.op_ts_ns AND o.op_name = t.op_name
    WHERE t.is_master_plane
    GROUP BY t.run_id, t.rank, t.file_id, t.op_ts_ns, t.op_name
),
joined AS (
    SELECT
        o.*,
        o.end_ns - o.start_ns AS elapse_ns,
        coalesce(p.transit_ns, 0) AS transit_ns,
        coalesce(p.wait_ns, 0) AS wait_ns,
        coalesce(p.synchronization_ns, 0) AS synchronization_ns
    FROM op AS o
    LEFT JOIN parts AS p
        ON p.run_id = o.run_id AND p.rank = o.rank AND p.file_id = o.file_id
        AND p.op_ts_ns = o.op_ts_ns AND p.op_name = o.op_name
),
traced_rank AS (
    SELECT DISTINCT run_id, rank FROM link WHERE op_name IS NOT NULL AND op_ts_ns IS NOT NULL
),
file_op AS (
    -- the profiler's numbers for ranks without HCCL tasks; communication.json before analysis.db
    SELECT p.*, f.format,
           row_number() OVER (PARTITION BY p.run_id, p.rank, p.step, p.op_key
                              ORDER BY CASE f.format WHEN 'communication' THEN 0 ELSE 1 END, f.format, p.elapse_ns) AS pick
    FROM profiler_comm_op AS p
    JOIN source_file AS f
        ON f.file_id = p.file_id
    LEFT JOIN traced_rank AS t
        ON t.run_id = p.run_id AND t.rank = p.rank
    WHERE NOT p.is_total AND t.run_id IS NULL
),
combined AS (
    SELECT
        run_id, rank, step, op_name, elapse_ns, transit_ns, wait_ns, synchronization_ns,
        elapse_ns - transit_ns - wait_ns AS idle_ns,
        CASE WHEN wait_ns + transit_ns = 0 THEN 0 ELSE round(wait_ns / (wait_ns + transit_ns), 4) END AS wait_ratio,
        CASE WHEN synchronization_ns + transit_ns = 0 THEN 0
             ELSE round(synchronization_ns / (synchronization_ns + transit_ns), 4) END AS synchronization_ratio,
        op_type, comm_kind, group_name, start_ns, 'recomputed' AS source
    FROM joined
    UNION ALL
    SELECT
        run_id, rank, step, op_name, elapse_ns, transit_ns, wait_ns, synchronization_ns, idle_ns,
        wait_ratio, synchronization_ratio,
        lower(CASE WHEN lower(op_name) LIKE 'hcom\_%' ESCAPE '\' THEN split_part(op_name, '_', 2)
                   ELSE regexp_extract(op_name, '([A-Za-z]+)[^/]*$', 1) END),
        coalesce(comm_kind,
                 CASE WHEN lower(op_name) LIKE 'hcom_send%' OR lower(op_name) LIKE 'hcom_receive%'
                           OR lower(op_name) LIKE 'hcom_batchsendrecv%' THEN 'p2p' ELSE 'collective' END),
        group_name, start_ns,
        CASE format WHEN 'communication' THEN 'communication.json' WHEN 'analysis_db' THEN 'analysis.db' ELSE format END
    FROM file_op
    WHERE pick = 1
)
SELECT
    r.run_name::VARCHAR                                AS run_name,               -- run name
    j.rank::INTEGER                                    AS rank,                   -- global rank that recorded the op
    j.step::INTEGER                                    AS step,                   -- step of the op (kernel step of the same HCCL op, else the step window holding its start; the file's step{N} for rows from communication.json)
    j.op_name::VARCHAR                                 AS op_name,                -- HCCL op name, e.g. hcom_allReduce__586_0_1
    j.elapse_ns::BIGINT                                AS elapse_ns,              -- last task end − first task start, ns
    j.transit_ns::BIGINT                               AS transit_ns,             -- time moving data on the master plane, ns
    j.wait_ns::BIGINT                                  AS wait_ns,                -- Notify_Wait time on the master plane, ns
    j.synchronization_ns::BIGINT                       AS synchronization_ns,     -- Notify_Wait before the first transfer, ns
    j.idle_ns::BIGINT                                  AS idle_ns,                -- elapse − transit − wait, ns
    j.wait_ratio::DOUBLE                               AS wait_ratio,             -- wait / (wait + transit)
    j.synchronization_ratio::DOUBLE                    AS synchronization_ratio,  -- synchronization / (synchronization + transit)
    j.op_type::VARCHAR                                 AS op_type,                -- second "_" token of hcom_ names, else the leading letters of the last "/" part (MindSpore: allReduce_1_1, Default/AllReduce-op534_0), lower case (allreduce, send, ...)
    j.comm_kind::VARCHAR                               AS comm_kind,              -- p2p (send, receive, batchSendRecv) or collective (communication.json: the block the op is in)
    j.group_name::VARCHAR                              AS group_name,             -- HCCL group as the trace names it ("Group <g> Communication"); communication.json: the hash after "@"
    j.start_ns::BIGINT                                 AS start_ns,               -- first task start, ns since the epoch (communication.json: "Start Timestamp(us)", a rounded float)
    j.source::VARCHAR                                  AS source                  -- recomputed (trace HCCL tasks), or communication.json / analysis.db (the profiler's numbers for a rank without a trace)
FROM combined AS j
JOIN run AS r
    ON r.run_id = j.run_id
ORDER BY run_name, rank, start_ns, op_name;
