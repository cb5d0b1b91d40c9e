-- free_time — every interval inside a step in which the device runs neither a computing kernel
-- nor a communication op.
-- Grain:     one row per free interval of a (run, rank, step); Σ dur_ns per step equals
--            step_breakdown.free_ns.
--            Scope: per step, steps of kernel.step (the ProfilerStep#N host window holding the
--            launch call, kernel_details.csv Step Id, else the host window holding the kernel;
--            temporal_breakdown.window_source names it per step).
-- Source:    kernel intervals of the step (tracedb_internal.busy_island) and the step's device
--            window (first to last device event, copies included: tracedb_internal.step_kernel).
-- Reference: CANN Overlap Analysis "Free" slices; msprof-analyze free_analysis lists the same
--            gaps with the tasks around them.
-- Units:     *_ns integer nanoseconds since the epoch.
CREATE OR REPLACE VIEW free_time AS
WITH island_gap AS (
    SELECT
        run_id, rank, step,
        end_ns AS start_ns,
        lead(start_ns) OVER (PARTITION BY run_id, rank, step ORDER BY island) AS end_ns,
        last_kernel AS kernel_before,
        lead(first_kernel) OVER (PARTITION BY run_id, rank, step ORDER BY island) AS kernel_after
    FROM tracedb_internal.busy_island
),
step_window AS (
    -- the step's device window runs from its first to its last device event, copies included:
    -- a copy before the first (after the last) computing or communication kernel opens (closes)
    -- the window with free time
    SELECT run_id, rank, step, min(start_ns) AS start_ns, max(end_ns) AS end_ns,
           arg_min(name, start_ns) AS first_name, arg_max(name, end_ns) AS last_name
    FROM tracedb_internal.step_kernel
    GROUP BY run_id, rank, step
),
island_span AS (
    SELECT run_id, rank, step, min(start_ns) AS start_ns, max(end_ns) AS end_ns,
           arg_min(first_kernel, start_ns) AS first_kernel, arg_max(last_kernel, end_ns) AS last_kernel
    FROM tracedb_internal.busy_island
    GROUP BY run_id, rank, step
),
edge_gap AS (
    SELECT w.run_id, w.rank, w.step, w.start_ns, coalesce(i.start_ns, w.end_ns) AS end_ns,
           w.first_name AS kernel_before, coalesce(i.first_kernel, w.last_name) AS kernel_after
    FROM step_window AS w
    LEFT JOIN island_span AS i
        ON i.run_id = w.run_id AND i.rank = w.rank AND i.step IS NOT DISTINCT FROM w.step
    WHERE i.start_ns IS NULL OR w.start_ns < i.start_ns
    UNION ALL
    SELECT w.run_id, w.rank, w.step, i.end_ns, w.end_ns, i.last_kernel, w.last_name
    FROM step_window AS w
    JOIN island_span AS i
        ON i.run_id = w.run_id AND i.rank = w.rank AND i.step IS NOT DISTINCT FROM w.step
    WHERE w.end_ns > i.end_ns
),
gaps AS (
    SELECT * FROM island_gap
    UNION ALL
    SELECT * FROM edge_gap
)
SELECT
    r.run_name::VARCHAR              AS run_name,       -- run name
    g.rank::INTEGER                  AS rank,           -- global rank
    g.step::INTEGER                  AS step,           -- step number; NULL without steps
    g.start_ns::BIGINT               AS start_ns,       -- free interval start (end of the kernel before), ns
    g.end_ns::BIGINT                 AS end_ns,         -- free interval end (start of the kernel after), ns
    (g.end_ns - g.start_ns)::BIGINT  AS dur_ns,         -- length of the free interval, ns
    g.kernel_before::VARCHAR         AS kernel_before,  -- kernel or communication op that ends where the gap starts
    g.kernel_after::VARCHAR          AS kernel_after    -- kernel or communication op that starts where the gap ends
FROM gaps AS g
JOIN run AS r
    ON r.run_id = g.run_id
LEFT JOIN tracedb_internal.comm_only_step AS u
    ON u.run_id = g.run_id AND u.rank = g.rank AND u.step = g.step
WHERE g.end_ns IS NOT NULL
  AND u.run_id IS NULL   -- computing unknown (MindSpore step_trace_raw only): no free time to report
ORDER BY r.run_name, g.rank, g.step, g.start_ns;
