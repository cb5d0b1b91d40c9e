-- step_breakdown_check — step_breakdown against the profiler's own step_trace_time.csv, and the
-- tiling invariant of every row.
-- Grain:     one row per step_breakdown row.
--            Scope: per step, as step_breakdown.
-- Source:    step_breakdown; profiler_step_trace (step_trace_time.csv as written, reference only).
-- Reference: torch_npu step_trace_time.csv; tolerance max(500 ns, 0.05 %) per column (the CSV
--            rounds to the µs decimals it prints and derives its slices from CANN's copy of the
--            same intervals).
-- Units:     *_diff_ns = step_breakdown − profiler, integer ns; NULL where the profiler wrote no row.
CREATE OR REPLACE VIEW step_breakdown_check AS
WITH joined AS (
    SELECT
        b.*,
        p.computing_ns AS p_computing_ns,
        p.communication_ns AS p_communication_ns,
        p.communication_not_overlapped_ns AS p_communication_not_overlapped_ns,
        p.overlapped_ns AS p_overlapped_ns,
        p.free_ns AS p_free_ns,
        p.bubble_ns AS p_bubble_ns,
        p.stage_ns AS p_stage_ns,
        p.preparing_ns AS p_preparing_ns,
        p.run_id IS NOT NULL AS has_reference
    FROM step_breakdown AS b
    JOIN run AS r
        ON r.run_name = b.run_name
    LEFT JOIN profiler_step_trace AS p
        ON p.run_id = r.run_id AND p.rank = b.rank AND p.step IS NOT DISTINCT FROM b.step
),
diffs AS (
    SELECT
        *,
        computing_ns - p_computing_ns AS computing_diff_ns,
        communication_ns - p_communication_ns AS communication_diff_ns,
        communication_not_overlapped_ns - p_communication_not_overlapped_ns
            AS communication_not_overlapped_diff_ns,
        overlapped_ns - p_overlapped_ns AS overlapped_diff_ns,
        free_ns - p_free_ns AS free_diff_ns,
        bubble_ns - p_bubble_ns AS bubble_diff_ns,
        stage_ns - p_stage_ns AS stage_diff_ns,
        preparing_ns - p_preparing_ns AS preparing_diff_ns
    FROM joined
)
SELECT
    run_name::VARCHAR                                     AS run_name,                              -- run name
    rank::INTEGER                                         AS rank,                                  -- global rank
    step::INTEGER                                         AS step,                                  -- step number
    has_reference::BOOLEAN                                AS has_reference,                         -- the profiler wrote a step_trace_time.csv row for this step
    (computing_ns + communication_not_overlapped_ns + free_ns = stage_ns + bubble_ns)::BOOLEAN
                                                          AS tiles,                                 -- computing + not overlapped + free = stage + bubble
    computing_diff_ns::BIGINT                             AS computing_diff_ns,                     -- computing_ns − profiler Computing, ns
    communication_diff_ns::BIGINT                         AS communication_diff_ns,                 -- communication_ns − profiler Communication, ns
    communication_not_overlapped_diff_ns::BIGINT          AS communication_not_overlapped_diff_ns,  -- not overlapped − profiler Communication(Not Overlapped), ns
    overlapped_diff_ns::BIGINT                            AS overlapped_diff_ns,                    -- overlapped_ns − profiler Overlapped, ns
    free_diff_ns::BIGINT                                  AS free_diff_ns,                          -- free_ns − profiler Free, ns
    bubble_diff_ns::BIGINT                                AS bubble_diff_ns,                        -- bubble_ns − profiler Bubble, ns
    stage_diff_ns::BIGINT                                 AS stage_diff_ns,                         -- stage_ns − profiler Stage, ns
    preparing_diff_ns::BIGINT                             AS preparing_diff_ns,                     -- preparing_ns − profiler Preparing, ns
    (has_reference
     AND abs(computing_diff_ns) <= greatest(500, abs(p_computing_ns) * 0.0005)
     AND abs(communication_diff_ns) <= greatest(500, abs(p_communication_ns) * 0.0005)
     AND abs(communication_not_overlapped_diff_ns)
         <= greatest(500, abs(p_communication_not_overlapped_ns) * 0.0005)
     AND abs(overlapped_diff_ns) <= greatest(500, abs(p_overlapped_ns) * 0.0005)
     AND abs(free_diff_ns) <= greatest(500, abs(p_free_ns) * 0.0005)
     AND abs(bubble_diff_ns) <= greatest(500, abs(p_bubble_ns) * 0.0005)
     AND abs(stage_diff_ns) <= greatest(500, abs(p_stage_ns) * 0.0005)
     AND (preparing_diff_ns IS NULL
          OR abs(preparing_diff_ns) <= greatest(500, abs(p_preparing_ns) * 0.0005)))::BOOLEAN
                                                          AS matches_profiler                       -- every column within max(500 ns, 0.05 %) of the profiler (Preparing only when both have it); false without a reference row
FROM diffs
ORDER BY run_name, rank, step;
