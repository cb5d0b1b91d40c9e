-- kernel_island — islands of the union of a step's kernels: of its computing kernels (kind
-- computing), of its computing and communication kernels (kind busy) and of those and its
-- copies (kind all).
-- Grain:     one row per maximal interval of a (run, rank, step, kind) covered by at least one
--            kernel of the kind.
-- Source:    tracedb_internal.step_kernel.
-- Reference: CANN Overlap Analysis "Computing" = U(compute tasks); "Free" = [begin, end] \ U(all
--            tasks), the gaps between busy islands. Touching intervals merge (next start <=
--            running max end), as msprof-analyze and CANN do. Kernels are taken in (start, end,
--            kernel_id) order.
-- Units:     *_ns integer nanoseconds.
CREATE OR REPLACE VIEW tracedb_internal.kernel_island AS
WITH member AS (
    SELECT 'computing' AS kind, run_id, rank, step, kernel_id, name, start_ns, end_ns
    FROM tracedb_internal.step_kernel
    WHERE NOT is_communication AND NOT is_copy
    UNION ALL
    SELECT 'busy' AS kind, run_id, rank, step, kernel_id, name, start_ns, end_ns
    FROM tracedb_internal.step_kernel
    WHERE NOT is_copy
    UNION ALL
    SELECT 'all' AS kind, run_id, rank, step, kernel_id, name, start_ns, end_ns
    FROM tracedb_internal.step_kernel
),
with_previous_end AS (
    SELECT
        *,
        max(end_ns) OVER (
            PARTITION BY kind, run_id, rank, step ORDER BY start_ns, end_ns, kernel_id
            ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING
        ) AS previous_max_end_ns
    FROM member
),
numbered AS (
    SELECT
        *,
        sum(CASE WHEN previous_max_end_ns IS NULL OR start_ns > previous_max_end_ns THEN 1 ELSE 0 END)
            OVER (PARTITION BY kind, run_id, rank, step ORDER BY start_ns, end_ns, kernel_id
                  ROWS UNBOUNDED PRECEDING)
            AS island
    FROM with_previous_end
)
SELECT
    kind::VARCHAR                      AS kind,           -- computing (computing kernels), busy (computing and communication) or all (and copies)
    run_id::INTEGER                    AS run_id,         -- run
    rank::INTEGER                      AS rank,           -- rank
    step::INTEGER                      AS step,           -- step number, NULL without steps
    island::BIGINT                     AS island,         -- island number within the step and kind, from 1
    min(start_ns)::BIGINT              AS start_ns,       -- island start, ns
    max(end_ns)::BIGINT                AS end_ns,         -- island end, ns
    arg_min(name, struct_pack(t := start_ns, k := kernel_id))::VARCHAR
                                       AS first_kernel,   -- kernel that opens the island (earliest start; ties: lowest kernel_id)
    arg_max(name, struct_pack(t := end_ns, k := kernel_id))::VARCHAR
                                       AS last_kernel     -- kernel that closes the island (latest end; ties: highest kernel_id)
FROM numbered
GROUP BY kind, run_id, rank, step, island;
