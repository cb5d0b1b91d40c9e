-- free_time — every interval inside a step in which the device runs neither a computing kernel
-- nor a communication op.
-- Grain:     one row per free interval of a (run, rank, step); Σ dur_ns per step equals
--            step_breakdown.free_ns.
-- Source:    kernel intervals of the step (tracedb_internal.busy_island).
-- Reference: CANN Overlap Analysis "Free" slices; msprof-analyze free_analysis lists the same
--            gaps with the tasks around them.
-- Units:     *_ns integer nanoseconds since the epoch.
CREATE OR REPLACE VIEW free_time AS
WITH gaps AS (
    SELECT
        run_id, rank, step,
        end_ns AS start_ns,
        lead(start_ns) OVER (PARTITION BY run_id, rank, step ORDER BY island) AS end_ns,
        last_kernel AS kernel_before,
        lead(first_kernel) OVER (PARTITION BY run_id, rank, step ORDER BY island) AS kernel_after
    FROM tracedb_internal.busy_island
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
