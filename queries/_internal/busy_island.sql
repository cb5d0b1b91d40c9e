-- busy_island — islands of the union of all kernels (computing and communication) per step.
-- Grain:     one row per maximal interval in which the device runs a kernel or communication op.
-- Source:    tracedb_internal.step_kernel.
-- Reference: the complement inside the step window is CANN's "Free" = [begin, end] \ (C ∪ M).
-- Units:     *_ns integer nanoseconds.
CREATE OR REPLACE VIEW tracedb_internal.busy_island AS
WITH with_previous_end AS (
    SELECT
        *,
        max(end_ns) OVER (
            PARTITION BY run_id, rank, step ORDER BY start_ns, end_ns, kernel_id
            ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING
        ) AS previous_max_end_ns
    FROM tracedb_internal.step_kernel
),
numbered AS (
    SELECT
        *,
        sum(CASE WHEN previous_max_end_ns IS NULL OR start_ns > previous_max_end_ns THEN 1 ELSE 0 END)
            OVER (PARTITION BY run_id, rank, step ORDER BY start_ns, end_ns, kernel_id
                  ROWS UNBOUNDED PRECEDING)
            AS island
    FROM with_previous_end
)
SELECT
    run_id::INTEGER                    AS run_id,         -- run
    rank::INTEGER                      AS rank,           -- rank
    step::INTEGER                      AS step,           -- step number
    island::BIGINT                     AS island,         -- island number within the step, from 1
    min(start_ns)::BIGINT              AS start_ns,       -- island start, ns
    max(end_ns)::BIGINT                AS end_ns,         -- island end, ns
    arg_min(name, struct_pack(t := start_ns, k := kernel_id))::VARCHAR
                                       AS first_kernel,   -- kernel that opens the island (earliest start; ties: lowest kernel_id)
    arg_max(name, struct_pack(t := end_ns, k := kernel_id))::VARCHAR
                                       AS last_kernel     -- kernel that closes the island (latest end; ties: highest kernel_id)
FROM numbered
GROUP BY run_id, rank, step, island;
