-- comm_exclusive — each communication op with the part of it no earlier op covers, and how much
-- of that (and of the whole op) computing overlaps.
-- Grain:     one row per communication op of a step.
-- Source:    tracedb_internal.step_kernel where is_communication; tracedb_internal.compute_island.
-- Reference: the exclusive parts tile U(communication ops) exactly, so Σ exclusive_ns is the
--            CANN "Communication" time and Σ (exclusive_ns − exclusive_overlapped_ns) its
--            "Communication(Not Overlapped)" = U(comm) \ U(compute), even when ops of several
--            groups run at once. Ops are ordered by (start, end, kernel_id).
-- Method:    computing time covered before instant t in a step, C(t), is read off a running
--            sum over the step's compute islands (sorted, disjoint): the islands starting
--            before t, minus the part of the last one after t. Then op ∩ computing =
--            C(end) − C(start) and exclusive part ∩ computing = C(end) − C(exclusive start).
--            One sort of islands and op endpoints per step, plain window SQL that Spark runs
--            too (joining every op with every island of its step made this view take 2.0 s
--            instead of 1.1 s on 35 k ops and 529 k islands of a 1 GB Kineto trace, measured).
-- Units:     *_ns integer nanoseconds.
CREATE OR REPLACE VIEW tracedb_internal.comm_exclusive AS
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
exclusive AS (
    SELECT
        *,
        least(greatest(start_ns, coalesce(previous_max_end_ns, start_ns)), end_ns) AS exclusive_start_ns
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
    -- islands (kind 1) and the instants C(t) is wanted at (kind 0): what 0 = op end,
    -- 1 = op start, 2 = exclusive start
    SELECT run_id, rank, step, start_ns AS t_ns, 1 AS kind, CAST(NULL AS BIGINT) AS kernel_id,
           CAST(NULL AS INTEGER) AS what, running_ns, end_ns AS island_end_ns
    FROM island
    UNION ALL
    SELECT run_id, rank, step, end_ns, 0, kernel_id, 0, NULL, NULL FROM exclusive
    UNION ALL
    SELECT run_id, rank, step, start_ns, 0, kernel_id, 1, NULL, NULL FROM exclusive
    UNION ALL
    SELECT run_id, rank, step, exclusive_start_ns, 0, kernel_id, 2, NULL, NULL FROM exclusive
),
covered AS (
    -- C(t): running_ns and end of the last island starting at or before t, the last
    -- non-NULL value over the preceding rows (max() gives the same, both grow with time, but
    -- took 1.04 s against 0.75 s for this view on a 1 GB Kineto rank); an island starting at t
    -- adds 0
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
        sum(CASE what WHEN 0 THEN covered_ns WHEN 1 THEN -covered_ns ELSE 0 END) AS self_overlap_ns,
        sum(CASE what WHEN 0 THEN covered_ns WHEN 2 THEN -covered_ns ELSE 0 END) AS exclusive_overlap_ns
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
    (x.end_ns - x.exclusive_start_ns)::BIGINT          AS exclusive_ns,             -- part no earlier op covers, ns
    coalesce(o.self_overlap_ns, 0)::BIGINT             AS self_overlapped_ns,       -- op ∩ computing, ns
    coalesce(o.exclusive_overlap_ns, 0)::BIGINT        AS exclusive_overlapped_ns   -- exclusive part ∩ computing, ns
FROM exclusive AS x
LEFT JOIN overlap AS o
    ON o.kernel_id = x.kernel_id AND o.run_id = x.run_id AND o.rank = x.rank;
