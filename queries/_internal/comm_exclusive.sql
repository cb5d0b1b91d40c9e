-- comm_exclusive — each communication op with the part of it no earlier op covers, and how much
-- of that (and of the whole op) computing overlaps.
-- Grain:     one row per communication op of a step.
-- Source:    tracedb_internal.step_kernel where is_communication; tracedb_internal.compute_island.
-- Reference: the exclusive parts tile U(communication ops) exactly, so Σ exclusive_ns is the
--            CANN "Communication" time and Σ (exclusive_ns − exclusive_overlapped_ns) its
--            "Communication(Not Overlapped)" = U(comm) \ U(compute), even when ops of several
--            groups run at once. Ops are ordered by (start, end, kernel_id).
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
overlap AS (
    SELECT
        x.kernel_id,
        x.run_id,
        x.rank,
        sum(greatest(0, least(x.end_ns, i.end_ns) - greatest(x.start_ns, i.start_ns))) AS self_overlap_ns,
        sum(greatest(0, least(x.end_ns, i.end_ns) - greatest(x.exclusive_start_ns, i.start_ns)))
            AS exclusive_overlap_ns
    FROM exclusive AS x
    JOIN tracedb_internal.compute_island AS i
        ON i.run_id = x.run_id
        AND i.rank = x.rank
        AND i.step IS NOT DISTINCT FROM x.step
        AND i.start_ns < x.end_ns
        AND x.start_ns < i.end_ns
    GROUP BY x.kernel_id, x.run_id, x.rank
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
