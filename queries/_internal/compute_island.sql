-- compute_island — islands of the union of computing kernels per step (the "Computing" slices).
-- Grain:     one row per maximal interval covered by at least one computing kernel of a step.
-- Source:    tracedb_internal.step_kernel where NOT is_communication.
-- Reference: CANN Overlap Analysis "Computing" = U(compute tasks); touching intervals merge
--            (next.start <= running max end), as msprof-analyze and CANN do.
-- Units:     *_ns integer nanoseconds.
CREATE OR REPLACE VIEW tracedb_internal.compute_island AS
WITH compute AS (
    SELECT run_id, rank, step, start_ns, end_ns
    FROM tracedb_internal.step_kernel
    WHERE NOT is_communication
),
with_previous_end AS (
    SELECT
        *,
        max(end_ns) OVER (
            PARTITION BY run_id, rank, step ORDER BY start_ns, end_ns
            ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING
        ) AS previous_max_end_ns
    FROM compute
),
numbered AS (
    SELECT
        *,
        sum(CASE WHEN previous_max_end_ns IS NULL OR start_ns > previous_max_end_ns THEN 1 ELSE 0 END)
            OVER (PARTITION BY run_id, rank, step ORDER BY start_ns, end_ns ROWS UNBOUNDED PRECEDING)
            AS island
    FROM with_previous_end
)
SELECT
    run_id::INTEGER            AS run_id,    -- run
    rank::INTEGER              AS rank,      -- rank
    step::INTEGER              AS step,      -- step number, NULL without steps
    island::BIGINT             AS island,    -- island number within the step, from 1
    min(start_ns)::BIGINT      AS start_ns,  -- island start, ns
    max(end_ns)::BIGINT        AS end_ns     -- island end, ns
FROM numbered
GROUP BY run_id, rank, step, island;
