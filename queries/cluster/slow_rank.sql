-- slow_rank — which rank makes a step slow: each rank's step against the other ranks of the run,
-- the rank that waited (victim) beside the rank it waited for (cause).
-- Grain:     one row per (run, step, rank) of cluster_step (runs with steps; a rank without
--            step markers is compared as step NULL).
-- Source:    cluster_step: step_breakdown (kernel intervals of kernel_details.csv /
--            trace_view.json / Kineto), and for ranks without kernels the profiler's
--            step_trace_time.csv (column source says which); comm_wait_cross_rank (the step's
--            collectives aligned across ranks) for the cause columns.
-- Reference: msprof-analyze advisor "slow rank" (analyses.md §6): a category is flagged when
--            (max − min) across ranks > 5 % of mean(Computing + Communication(Not Overlapped) +
--            Free); here per rank: (own − fastest rank) / mean > 5 % → msprof_slow_5pct.
--            MindInsight: a rank whose step time exceeds the ranks' mean by more than 20 % →
--            mindinsight_slow_20pct. The excess over the median says where the time went:
--            slowest_part = the one of computing / communication_not_overlapped / bubble / free
--            with the largest excess (parts a rank does not know, NULL, are left out; with a
--            pipeline bubble — hcom_receive / MindSpore Receive-op time — the communication part
--            is taken without receive, Communication(Not Overlapped and Exclude Receive)).
--            The victim and the cause differ in a collective: the rank that arrives last has the
--            shortest op (msprof-analyze recipe slow_rank, HTA straggler analysis: the late
--            starter), the others wait for it and look slow (long step, long uncovered
--            communication). collective_wait_ns is what this rank waited; arrived_last_count /
--            lateness_ns what it made the others wait (per collective instance where it arrived
--            last: the longest wait among the others, max − min duration); cause_rank = the rank
--            of the step with the largest lateness_ns (then count, then rank).
-- Units:     *_ns integer nanoseconds (medians and means rounded to ns); *_ratio plain ratio; *_count ranks
--            (arrived_last_count: collective instances).
CREATE OR REPLACE VIEW slow_rank AS
WITH per_rank AS (
    SELECT
        run_name, step, rank, source, e2e_ns, computing_ns, communication_not_overlapped_ns, free_ns,
        bubble_ns, communication_not_overlapped_exclude_receive_ns,
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
        round(median(communication_not_overlapped_exclude_receive_ns) OVER w)
                                                                   AS median_exclude_receive_ns,
        round(median(free_ns) OVER w)                              AS median_free_ns,
        round(median(bubble_ns) OVER w)                            AS median_bubble_ns,
        max(bubble_ns) OVER w                                      AS max_bubble_ns,
        avg(busy_or_free_ns) OVER w                                AS mean_busy_or_free_ns
    FROM per_rank
    WINDOW w AS (PARTITION BY run_name, step)
),
excess AS (
    -- each part's excess over the ranks' median (NULL where the rank does not know the part)
    SELECT
        *,
        computing_ns - median_computing_ns AS computing_x,
        CASE WHEN max_bubble_ns > 0
             THEN communication_not_overlapped_exclude_receive_ns - median_exclude_receive_ns
             ELSE communication_not_overlapped_ns - median_communication_not_overlapped_ns END AS communication_x,
        CASE WHEN max_bubble_ns > 0 THEN bubble_ns - median_bubble_ns END AS bubble_x,
        free_ns - median_free_ns AS free_x
    FROM stats
),
instance AS (
    -- the step's complete collective instances where someone waited: the longest wait
    SELECT run_name, step, op_name, execution, coalesce(group_name, '') AS group_key, max(wait_ns) AS max_wait_ns
    FROM comm_wait_cross_rank
    WHERE complete AND rank_count > 1
    GROUP BY run_name, step, op_name, execution, coalesce(group_name, '')
    HAVING max(wait_ns) > 0
),
arrival AS (
    -- per rank of a step: what it waited, and how often and how long the others waited for it
    SELECT
        c.run_name, c.step, c.rank,
        sum(c.wait_ns) AS collective_wait_ns,
        count(*) FILTER (WHERE c.is_last_to_arrive) AS arrived_last_count,
        coalesce(sum(i.max_wait_ns) FILTER (WHERE c.is_last_to_arrive), 0) AS lateness_ns
    FROM comm_wait_cross_rank AS c
    JOIN instance AS i
        ON i.run_name = c.run_name AND i.step IS NOT DISTINCT FROM c.step AND i.op_name = c.op_name
        AND i.execution = c.execution AND i.group_key = coalesce(c.group_name, '')
    GROUP BY c.run_name, c.step, c.rank
),
cause AS (
    SELECT run_name, step, rank AS cause_rank, lateness_ns AS cause_lateness_ns
    FROM (SELECT *, row_number() OVER (PARTITION BY run_name, step
                                       ORDER BY lateness_ns DESC, arrived_last_count DESC, rank) AS n
          FROM arrival
          WHERE lateness_ns > 0) AS x
    WHERE n = 1
),
ranked AS (
    SELECT
        e.*, greatest(e.computing_x, e.communication_x, e.bubble_x, e.free_x) AS top_x,
        a.collective_wait_ns, a.arrived_last_count, a.lateness_ns, c.cause_rank, c.cause_lateness_ns
    FROM excess AS e
    LEFT JOIN arrival AS a
        ON a.run_name = e.run_name AND a.step IS NOT DISTINCT FROM e.step AND a.rank = e.rank
    LEFT JOIN cause AS c
        ON c.run_name = e.run_name AND c.step IS NOT DISTINCT FROM e.step
)
SELECT
    run_name::VARCHAR                                                      AS run_name,                                       -- run name
    step::INTEGER                                                          AS step,                                           -- step number; NULL without steps
    rank::INTEGER                                                          AS rank,                                           -- global rank
    e2e_ns::BIGINT                                                         AS e2e_ns,                                         -- step time of this rank (cluster_step.e2e_ns), ns
    (e2e_ns - fastest_e2e_ns)::BIGINT                                      AS behind_fastest_ns,                              -- step time minus the fastest rank's, ns
    CASE
        WHEN top_x IS NULL OR top_x <= 0 THEN NULL
        WHEN computing_x = top_x THEN 'computing'
        WHEN communication_x = top_x THEN 'communication_not_overlapped'
        WHEN bubble_x = top_x THEN 'bubble'
        ELSE 'free'
    END::VARCHAR                                                           AS slowest_part,                                   -- part with the largest excess over the median: computing, communication_not_overlapped (without receive when the step has a bubble), bubble or free; NULL when none exceeds it
    CASE WHEN mean_e2e_ns > 0 THEN e2e_ns / mean_e2e_ns END::DOUBLE        AS e2e_to_mean_ratio,                              -- step time / mean step time
    (mean_busy_or_free_ns > 0
        AND (e2e_ns - fastest_e2e_ns) > 0.05 * mean_busy_or_free_ns)::BOOLEAN
                                                                           AS msprof_slow_5pct,                               -- msprof-analyze rule: more than 5 % of the mean (Computing + Not Overlapped + Free) behind the fastest rank
    (e2e_ns > 1.2 * mean_e2e_ns)::BOOLEAN                                  AS mindinsight_slow_20pct,                         -- MindInsight rule: step time more than 20 % above the ranks' mean
    computing_ns::BIGINT                                                   AS computing_ns,                                   -- Computing of this rank, ns
    communication_not_overlapped_ns::BIGINT                                AS communication_not_overlapped_ns,                -- Communication(Not Overlapped) of this rank, ns
    free_ns::BIGINT                                                        AS free_ns,                                        -- Free of this rank, ns
    computing_x::BIGINT                                                    AS computing_excess_ns,                            -- Computing minus the ranks' median, ns
    (communication_not_overlapped_ns - median_communication_not_overlapped_ns)::BIGINT
                                                                           AS communication_not_overlapped_excess_ns,         -- Communication(Not Overlapped) minus the ranks' median, ns
    (free_ns - median_free_ns)::BIGINT                                     AS free_excess_ns,                                 -- Free minus the ranks' median, ns
    median_e2e_ns::BIGINT                                                  AS median_e2e_ns,                                  -- median step time over the ranks, ns
    mean_e2e_ns::BIGINT                                                    AS mean_e2e_ns,                                    -- mean step time over the ranks, ns
    rank_count::BIGINT                                                     AS rank_count,                                     -- ranks of the run with this step
    source::VARCHAR                                                        AS source,                                         -- where this rank's numbers come from (cluster_step.source): recomputed, step_trace_time.csv, ...
    bubble_ns::BIGINT                                                      AS bubble_ns,                                      -- Bubble of this rank (hcom_receive / MindSpore Receive-op time), ns
    bubble_x::BIGINT                                                       AS bubble_excess_ns,                               -- Bubble minus the ranks' median, ns; NULL when no rank of the step has a bubble
    coalesce(collective_wait_ns, 0)::BIGINT                                AS collective_wait_ns,                             -- time this rank waited in the step's collectives for later ranks (comm_wait_cross_rank wait_ns, complete instances where someone waited), ns: the victim's side
    coalesce(arrived_last_count, 0)::BIGINT                                AS arrived_last_count,                             -- collective instances of the step in which this rank arrived last (shortest op: the others waited for it)
    coalesce(lateness_ns, 0)::BIGINT                                       AS lateness_ns,                                    -- over those instances, the longest wait it caused among the other ranks (max − min op duration), summed, ns: the cause's side
    cause_rank::INTEGER                                                    AS cause_rank,                                     -- rank of the step with the largest lateness_ns: the one the others waited for (HTA straggler, msprof-analyze recipe slow_rank); NULL without collectives where someone waited
    cause_lateness_ns::BIGINT                                              AS cause_lateness_ns,                              -- lateness_ns of cause_rank, ns
    coalesce(rank = cause_rank, false)::BOOLEAN                            AS is_cause                                        -- this rank is the step's cause_rank
FROM ranked
ORDER BY run_name, step, e2e_ns DESC, rank;
