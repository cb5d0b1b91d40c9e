-- slow_rank — which rank makes a step slow: each rank's step against the other ranks of the run.
-- Grain:     one row per (run, step, rank) of cluster_step (runs with steps; a rank without
--            step markers is compared as step NULL).
-- Source:    cluster_step: step_breakdown (kernel intervals of kernel_details.csv /
--            trace_view.json / Kineto), and for ranks without kernels the profiler's
--            step_trace_time.csv (column source says which).
-- Reference: msprof-analyze advisor "slow rank" (analyses.md §6): a category is flagged when
--            (max − min) across ranks > 5 % of mean(Computing + Communication(Not Overlapped) +
--            Free); here per rank: (own − fastest rank) / mean > 5 % → msprof_slow_5pct.
--            MindInsight: a rank whose step time exceeds the ranks' mean by more than 20 % →
--            mindinsight_slow_20pct. The excess over the median says where the time went:
--            slowest_part = the one of computing / communication_not_overlapped / free with the
--            largest excess.
-- Units:     *_ns integer nanoseconds (medians and means rounded to ns); *_ratio plain ratio; *_count ranks.
CREATE OR REPLACE VIEW slow_rank AS
WITH per_rank AS (
    SELECT
        run_name, step, rank, source, e2e_ns, computing_ns, communication_not_overlapped_ns, free_ns,
        computing_ns + communication_not_overlapped_ns + free_ns AS busy_or_free_ns
    FROM cluster_step
),
stats AS (
    SELECT
        *,
        count(*) OVER w                                            AS rank_count,
        min(e2e_ns) OVER w                                         AS fastest_e2e_ns,
        round(median(e2e_ns) OVER w)                               AS median_e2e_ns,
        round(avg(e2e_ns) OVER w)                                  AS mean_e2e_ns,
        round(median(computing_ns) OVER w)                         AS median_computing_ns,
        round(median(communication_not_overlapped_ns) OVER w)      AS median_communication_not_overlapped_ns,
        round(median(free_ns) OVER w)                              AS median_free_ns,
        avg(busy_or_free_ns) OVER w                                AS mean_busy_or_free_ns
    FROM per_rank
    WINDOW w AS (PARTITION BY run_name, step)
)
SELECT
    run_name::VARCHAR                                                      AS run_name,                                       -- run name
    step::INTEGER                                                          AS step,                                           -- step number; NULL without steps
    rank::INTEGER                                                          AS rank,                                           -- global rank
    e2e_ns::BIGINT                                                         AS e2e_ns,                                         -- step time of this rank (cluster_step.e2e_ns), ns
    (e2e_ns - fastest_e2e_ns)::BIGINT                                      AS behind_fastest_ns,                              -- step time minus the fastest rank's, ns
    CASE
        WHEN greatest(computing_ns - median_computing_ns,
                      communication_not_overlapped_ns - median_communication_not_overlapped_ns,
                      free_ns - median_free_ns) <= 0 THEN NULL
        WHEN computing_ns - median_computing_ns >= greatest(
                 communication_not_overlapped_ns - median_communication_not_overlapped_ns,
                 free_ns - median_free_ns) THEN 'computing'
        WHEN communication_not_overlapped_ns - median_communication_not_overlapped_ns
                 >= free_ns - median_free_ns THEN 'communication_not_overlapped'
        ELSE 'free'
    END::VARCHAR                                                           AS slowest_part,                                   -- part with the largest excess over the median: computing, communication_not_overlapped or free; NULL when none exceeds it
    CASE WHEN mean_e2e_ns > 0 THEN e2e_ns / mean_e2e_ns END::DOUBLE        AS e2e_to_mean_ratio,                              -- step time / mean step time
    (mean_busy_or_free_ns > 0
        AND (e2e_ns - fastest_e2e_ns) > 0.05 * mean_busy_or_free_ns)::BOOLEAN
                                                                           AS msprof_slow_5pct,                               -- msprof-analyze rule: more than 5 % of the mean (Computing + Not Overlapped + Free) behind the fastest rank
    (e2e_ns > 1.2 * mean_e2e_ns)::BOOLEAN                                  AS mindinsight_slow_20pct,                         -- MindInsight rule: step time more than 20 % above the ranks' mean
    computing_ns::BIGINT                                                   AS computing_ns,                                   -- Computing of this rank, ns
    communication_not_overlapped_ns::BIGINT                                AS communication_not_overlapped_ns,                -- Communication(Not Overlapped) of this rank, ns
    free_ns::BIGINT                                                        AS free_ns,                                        -- Free of this rank, ns
    (computing_ns - median_computing_ns)::BIGINT                           AS computing_excess_ns,                            -- Computing minus the ranks' median, ns
    (communication_not_overlapped_ns - median_communication_not_overlapped_ns)::BIGINT
                                                                           AS communication_not_overlapped_excess_ns,         -- Communication(Not Overlapped) minus the ranks' median, ns
    (free_ns - median_free_ns)::BIGINT                                     AS free_excess_ns,                                 -- Free minus the ranks' median, ns
    median_e2e_ns::BIGINT                                                  AS median_e2e_ns,                                  -- median step time over the ranks, ns
    mean_e2e_ns::BIGINT                                                    AS mean_e2e_ns,                                    -- mean step time over the ranks, ns
    rank_count::BIGINT                                                     AS rank_count,                                     -- ranks of the run with this step
    source::VARCHAR                                                        AS source                                          -- where this rank's numbers come from (cluster_step.source): recomputed, step_trace_time.csv, ...
FROM stats
ORDER BY run_name, step, e2e_ns DESC, rank;
