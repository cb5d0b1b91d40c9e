-- check_finding — consistency findings over the whole database; `tracedb check` prints them.
-- Grain:     one row per finding (severity error or warning) of one check on a run, rank, step.
-- Source:    step_breakdown, step_breakdown_check, comm_op_check, kernel, op, event, step, rank, source_file.
-- Reference: errors: the step tiling invariant (computing + not overlapped + free = stage + bubble,
--            torch_npu step_trace_time.csv), negative durations, two captures in one rank (two
--            files of a one-per-rank format, e.g. two trace_view.json; tracedb ingest refuses
--            them, older databases may hold them). Warnings: difference to the
--            profiler's own step_trace_time.csv beyond max(500 ns, 0.05 %), kernels outside every
--            step, kernels without a launching framework op (kernel.op_id NULL, in ranks that
--            have ops), kernels longer than their step, step starts skewed across ranks by more than
--            1 s, a step starting before the previous one ends, ranks missing from a run
--            (world_size or gaps in rank numbers), communication ops of a group whose count
--            differs across the ranks of the run, comm_op differing from communication.json
--            (comm_op_check).
-- Units:     value_ns integer nanoseconds (the size of the problem), NULL where not a time.
CREATE OR REPLACE VIEW check_finding AS
WITH findings AS (
    SELECT 'error' AS severity, 'step_invariant' AS check_name, run_name, rank, step,
           (computing_ns + communication_not_overlapped_ns + free_ns) - (stage_ns + bubble_ns) AS value_ns,
           'computing + not overlapped + free differs from stage + bubble' AS message
    FROM step_breakdown
    WHERE computing_ns + communication_not_overlapped_ns + free_ns <> stage_ns + bubble_ns
    UNION ALL
    SELECT 'warning', 'profiler_difference', run_name, rank, step,
           greatest(abs(coalesce(computing_diff_ns, 0)), abs(coalesce(communication_not_overlapped_diff_ns, 0)),
                    abs(coalesce(free_diff_ns, 0)), abs(coalesce(stage_diff_ns, 0))),
           'step_breakdown differs from step_trace_time.csv beyond max(500 ns, 0.05 %)'
    FROM step_breakdown_check
    WHERE has_reference AND NOT matches_profiler
    UNION ALL
    SELECT 'error', 'two_captures', r.run_name, f.rank, NULL, NULL,
           CAST(count(*) AS VARCHAR) || ' ' || f.format || ' files in one rank: ' || string_agg(f.path, ', ' ORDER BY f.path)
    FROM source_file AS f JOIN run AS r ON r.run_id = f.run_id
    WHERE f.format NOT IN ('hccl_trace', 'msprof_timeline')
    GROUP BY r.run_name, f.rank, f.format
    HAVING count(*) > 1
    UNION ALL
    SELECT 'error', 'negative_duration', r.run_name, k.rank, k.step, k.dur_ns,
           'kernel ' || k.name || ' has a negative duration'
    FROM kernel AS k JOIN run AS r ON r.run_id = k.run_id
    WHERE k.dur_ns < 0
    UNION ALL
    SELECT 'error', 'negative_duration', r.run_name, e.rank, NULL, min(e.dur_ns),
           CAST(count(*) AS VARCHAR) || ' trace events have a negative duration'
    FROM event AS e JOIN run AS r ON r.run_id = e.run_id
    WHERE e.dur_ns < 0
    GROUP BY r.run_name, e.rank
    UNION ALL
    SELECT 'warning', 'kernels_without_op', r.run_name, k.rank, NULL,
           sum(CASE WHEN k.op_id IS NULL THEN k.dur_ns END),
           CAST(count(CASE WHEN k.op_id IS NULL THEN 1 END) AS VARCHAR) || ' of ' || CAST(count(*) AS VARCHAR)
           || ' kernels (' || CAST(round(100.0 * coalesce(sum(CASE WHEN k.op_id IS NULL THEN k.dur_ns END), 0)
                                     / nullif(sum(k.dur_ns), 0), 1) AS VARCHAR)
           || ' % of device time) have no launching framework op (kernel.op_id NULL)'
    FROM kernel AS k
    JOIN run AS r ON r.run_id = k.run_id
    WHERE EXISTS (SELECT 1 FROM op AS o WHERE o.run_id = k.run_id AND o.rank = k.rank)
    GROUP BY r.run_name, k.rank
    HAVING count(CASE WHEN k.op_id IS NULL THEN 1 END) > 0
    UNION ALL
    SELECT 'warning', 'kernels_outside_steps', r.run_name, k.rank, NULL, sum(k.dur_ns),
           CAST(count(*) AS VARCHAR) || ' kernels lie outside every step (not in step_breakdown)'
    FROM kernel AS k
    JOIN run AS r ON r.run_id = k.run_id
    WHERE k.step IS NULL
      AND EXISTS (SELECT 1 FROM kernel AS s WHERE s.run_id = k.run_id AND s.rank = k.rank AND s.step IS NOT NULL)
    GROUP BY r.run_name, k.rank
    UNION ALL
    SELECT 'warning', 'kernel_longer_than_step', r.run_name, k.rank, k.step, k.dur_ns,
           'kernel ' || k.name || ' is longer than its step'
    FROM kernel AS k
    JOIN step AS s ON s.run_id = k.run_id AND s.rank = k.rank AND s.step = k.step
    JOIN run AS r ON r.run_id = k.run_id
    WHERE s.host_end_ns IS NOT NULL AND k.dur_ns > s.host_end_ns - s.host_start_ns
    UNION ALL
    SELECT 'warning', 'step_start_skew', r.run_name, NULL, s.step, max(s.host_start_ns) - min(s.host_start_ns),
           'ProfilerStep#' || CAST(s.step AS VARCHAR) || ' starts more than 1 s apart across ranks (clock skew?)'
    FROM step AS s JOIN run AS r ON r.run_id = s.run_id
    WHERE s.host_start_ns IS NOT NULL
    GROUP BY r.run_name, s.step
    HAVING count(*) > 1 AND max(s.host_start_ns) - min(s.host_start_ns) > 1000000000
    UNION ALL
    SELECT 'warning', 'step_out_of_order', run_name, rank, step, previous_end_ns - host_start_ns,
           'ProfilerStep#' || CAST(step AS VARCHAR) || ' starts before the previous step ends'
    FROM (
        SELECT r.run_name, s.rank, s.step, s.host_start_ns,
               lag(s.host_end_ns) OVER (PARTITION BY s.run_id, s.rank ORDER BY s.step) AS previous_end_ns
        FROM step AS s JOIN run AS r ON r.run_id = s.run_id
        WHERE s.host_start_ns IS NOT NULL
    ) AS ordered
    WHERE host_start_ns < previous_end_ns
    UNION ALL
    SELECT 'warning', 'missing_ranks', r.run_name, NULL, NULL, NULL,
           'run has ' || CAST(count(*) AS VARCHAR) || ' ranks but '
           || CAST(greatest(max(k.rank) + 1, coalesce(max(k.world_size), 0)) AS VARCHAR)
           || ' are expected (world_size or the highest rank number)'
    FROM rank AS k JOIN run AS r ON r.run_id = k.run_id
    GROUP BY r.run_name
    HAVING count(*) > 1 AND count(*) < greatest(max(k.rank) + 1, coalesce(max(k.world_size), 0))
    UNION ALL
    SELECT 'warning', 'collective_count_mismatch', run_name, NULL, NULL, NULL,
           'group ' || group_name || ': ' || CAST(min(ops) AS VARCHAR) || ' to ' || CAST(max(ops) AS VARCHAR)
           || ' communication ops per rank'
    FROM (
        SELECT r.run_name, k.group_name, k.rank, count(*) AS ops
        FROM kernel AS k JOIN run AS r ON r.run_id = k.run_id
        WHERE k.is_communication AND k.group_name IS NOT NULL
        GROUP BY r.run_name, k.group_name, k.rank
    ) AS per_rank
    GROUP BY run_name, group_name
    HAVING count(*) > 1 AND min(ops) <> max(ops)
    UNION ALL
    SELECT 'warning', 'comm_profiler_difference', run_name, rank, step,
           CASE WHEN metric LIKE '%\_ns' ESCAPE '\' THEN CAST(abs(diff) AS BIGINT) END,
           'comm_op ' || op_name || ' ' || metric || coalesce(' (' || transport_type || ')', '')
           || ' differs from communication.json beyond its tolerance'
    FROM comm_op_check
    WHERE status = 'differs'
)
SELECT
    severity::VARCHAR     AS severity,    -- error (exit 1 in tracedb check) or warning
    check_name::VARCHAR   AS check_name,  -- which check found it
    run_name::VARCHAR     AS run_name,    -- run name
    rank::INTEGER         AS rank,        -- rank; NULL for run-wide findings
    step::INTEGER         AS step,        -- step; NULL where not step-specific
    value_ns::BIGINT      AS value_ns,    -- size of the problem in ns (difference, duration); NULL if not a time
    message::VARCHAR      AS message      -- what is wrong, in words
FROM findings
ORDER BY CASE severity WHEN 'error' THEN 0 ELSE 1 END, check_name, run_name, rank, step;
