-- comm_booked — each communication op with the part of it booked to it (the part no earlier op
-- covers), and how much of that (and of the whole op) computing overlaps.
-- Grain:     one row per communication op of a step.
-- Source:    tracedb_internal.step_kernel where is_communication; tracedb_internal.compute_island.
-- Reference: time that several communication ops share is booked once, to the op that started
--            first (ops ordered by start, end, kernel_id). The booked parts tile U(communication
--            ops) exactly, so Σ booked_ns is the CANN "Communication" time and
--            Σ (booked_ns − booked_overlapped_ns) its "Communication(Not Overlapped)" =
--            U(comm) \ U(compute), even when ops of several groups run at once.
-- Method:    computing time covered before instant t in a step, C(t), is read off a running
--            sum over the step's compute islands (sorted, disjoint): the islands starting
--            before t, minus the part of the last one after t. Then op ∩ computing =
--            C(end) − C(start) and booked part ∩ computing = C(end) − C(booked start).
--            One sort of islands and op endpoints per step, in plain window SQL that Spark runs
--            too, instead of joining every op with every island of its step, which grows with
--            ops × islands (timings: bench/RESULTS.md).
-- Units:     *_ns integer nanoseconds.
CREATE OR REPLACE VIEW tracedb_internal.comm_booked AS
WITH comm AS (
    SELECT
        *,
        max(end_ns) OVER (
            PARTITION BY run_id, rank, step ORDER BY start_ns, end_ns, kernel_id
            ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING
        ) AS previous_max_end_ns
    FROM tracedb_internal.step_kernel
    WHERE is_communication
),
booked AS (
    -- the op's booked part starts where the ops before it (in start order) stop covering it
    SELECT
        *,
        least(greatest(start_ns, coalesce(previous_max_end_ns, start_ns)), end_ns) AS booked_start_ns
    FROM comm
),
island AS (
    -- running_ns: computing time of the step up to this island's end
    SELECT
        run_id, rank, step, start_ns, end_ns,
        sum(end_ns - start_ns) OVER (
            PARTITION BY run_id, rank, step ORDER BY start_ns ROWS UNBOUNDED PRECEDING
        ) AS running_ns
    FROM tracedb_internal.compute_island
),
point AS (
    -- islands (kind 1) and the instants C(t) is wanted at (kind 0, what: op_end, op_start,
    -- booked_start); kind sorts the instants before an island that starts at the same t
    SELECT run_id, rank, step, start_ns AS t_ns, 1 AS kind, CAST(NULL AS BIGINT) AS kernel_id,
           CAST(NULL AS VARCHAR) AS what, running_ns, end_ns AS island_end_ns
    FROM island
    UNION ALL
    SELECT run_id, rank, step, end_ns, 0, kernel_id, 'op_end', NULL, NULL FROM booked
    UNION ALL
    SELECT run_id, rank, step, start_ns, 0, kernel_id, 'op_start', NULL, NULL FROM booked
    UNION ALL
    SELECT run_id, rank, step, booked_start_ns, 0, kernel_id, 'booked_start', NULL, NULL FROM booked
),
covered AS (
    -- C(t): running_ns and end of the last island starting at or before t, the last
    -- non-NULL value over the preceding rows (max() gives the same, both grow with time, but
    -- is slower: bench/RESULTS.md); an island starting at t adds 0
    SELECT
        run_id, rank, kernel_id, what, kind,
        coalesce(
            last_value(running_ns IGNORE NULLS) OVER (
                PARTITION BY run_id, rank, step ORDER BY t_ns, kind ROWS UNBOUNDED PRECEDING)
            - greatest(0, last_value(island_end_ns IGNORE NULLS) OVER (
                PARTITION BY run_id, rank, step ORDER BY t_ns, kind ROWS UNBOUNDED PRECEDING) - t_ns),
            0) AS covered_ns
    FROM point
),
overlap AS (
    SELECT
        kernel_id,
        run_id,
        rank,
        sum(CASE what WHEN 'op_end' THEN covered_ns WHEN 'op_start' THEN -covered_ns ELSE 0 END)
            AS self_overlap_ns,
        sum(CASE what WHEN 'op_end' THEN covered_ns WHEN 'booked_start' THEN -covered_ns ELSE 0 END)
            AS booked_overlap_ns
    FROM covered
    WHERE kind = 0
    GROUP BY kernel_id, run_id, rank
)
SELECT
    x.run_id::INTEGER                                  AS run_id,                   -- run
    x.rank::INTEGER                                    AS rank,                     -- rank
    x.step::INTEGER                                    AS step,                     -- step number
    x.kernel_id::BIGINT                                AS kernel_id,                -- kernel.kernel_id
    x.name::VARCHAR                                    AS name,                     -- op name
    x.group_name::VARCHAR                              AS group_name,               -- HCCL group
    x.start_ns::BIGINT                                 AS start_ns,                 -- op start, ns
    x.end_ns::BIGINT                                   AS end_ns,                   -- op end, ns
    x.dur_ns::BIGINT                                   AS dur_ns,                   -- op duration, ns
    (x.end_ns - x.booked_start_ns)::BIGINT             AS booked_ns,                -- part booked to this op: no earlier op covers it, ns
    coalesce(o.self_overlap_ns, 0)::BIGINT             AS self_overlapped_ns,       -- op ∩ computing, ns
    coalesce(o.booked_overlap_ns, 0)::BIGINT           AS booked_overlapped_ns      -- booked part ∩ computing, ns
FROM booked AS x
LEFT JOIN overlap AS o
    ON o.kernel_id = x.kernel_id AND o.run_id = x.run_id AND o.rank = x.rank;
