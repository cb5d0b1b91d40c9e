-- cluster_step_stage — each pipeline stage's step: the slowest value of every column over the
-- stage's ranks.
-- Grain:     one row per (run, step, stage) for ranks of cluster_step with a stage.
-- Source:    cluster_step (step_breakdown or the profiler's step_trace_time.csv per rank) and
--            parallel_layout (stages from the communication groups and profiler_metadata.json).
-- Reference: msprof-analyze cluster, cluster_step_trace_time.csv "stage" rows
--            (StepTraceTimeAnalysis.get_max_data_row): the element-wise max of the rank rows of the
--            stage, each column on its own (the maxima may come from different ranks); its Index
--            is the stage's ranks, "(0, 1)". Ranks in no stage have no stage row here
--            (msprof-analyze gathers them into one "()" row).
-- Units:     *_ns integer nanoseconds; *_count ranks.
CREATE OR REPLACE VIEW cluster_step_stage AS
SELECT
    run_name::VARCHAR                                                      AS run_name,                                         -- run name
    step::INTEGER                                                          AS step,                                             -- step number; NULL without steps
    stage_index::INTEGER                                                   AS stage_index,                                      -- stage, 0-based in order of the stages' first ranks
    any_value(stage_ranks)::VARCHAR                                        AS stage_ranks,                                      -- the stage's ranks as msprof-analyze prints its Index, e.g. "(0, 1)"
    max(computing_ns)::BIGINT                                              AS computing_ns,                                     -- max Computing over the stage's ranks, ns
    max(communication_not_overlapped_ns)::BIGINT                           AS communication_not_overlapped_ns,                  -- max Communication(Not Overlapped), ns
    max(overlapped_ns)::BIGINT                                             AS overlapped_ns,                                    -- max Overlapped, ns
    max(communication_ns)::BIGINT                                          AS communication_ns,                                 -- max Communication, ns
    max(free_ns)::BIGINT                                                   AS free_ns,                                          -- max Free, ns
    max(stage_ns)::BIGINT                                                  AS stage_ns,                                         -- max Stage, ns
    max(bubble_ns)::BIGINT                                                 AS bubble_ns,                                        -- max Bubble, ns
    max(communication_not_overlapped_exclude_receive_ns)::BIGINT           AS communication_not_overlapped_exclude_receive_ns,  -- max Communication(Not Overlapped and Exclude Receive), ns
    max(preparing_ns)::BIGINT                                              AS preparing_ns,                                     -- max Preparing, ns
    max(e2e_ns)::BIGINT                                                    AS e2e_ns,                                           -- max step time, ns
    count(*)::BIGINT                                                       AS rank_count,                                       -- ranks of the stage with this step
    CASE WHEN min(source) = max(source) THEN min(source) ELSE 'mixed' END::VARCHAR
                                                                           AS source                                            -- the ranks' cluster_step.source when they agree, else mixed
FROM cluster_step
WHERE stage_index IS NOT NULL
GROUP BY run_name, step, stage_index
ORDER BY run_name, step, stage_index;
