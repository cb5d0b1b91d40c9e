-- queue_length_summary — per device stream and step, how deep the launch queue got: maximum,
-- mean over points (HTA) and over time, and the time the queue was empty or full.
-- Grain:     one row per (run, rank, step, stream) with launched kernels, plus one row per
--            (run, rank, stream) with step NULL for the whole capture.
-- Source:    queue_length (kernel launch_ts_ns / ts_ns / stream_id).
-- Reference: HolisticTraceAnalysis get_queue_length_summary (describe() of the queue_length
--            points: count, mean, std, min, max) and get_time_spent_blocked_on_full_queue with
--            max_queue_length = 1024 (HTA constant CUDA_MAX_LAUNCH_QUEUE_PER_STREAM, the CUDA
--            per-stream launch queue depth). A point's time (dur_ns, up to the stream's next
--            point) counts in the step of the point's kernel.
-- Units:     *_ns integer nanoseconds; *_count points or kernels. HTA's mean over the points =
--            queued_point_total_count / point_count; mean over time = queued_ns / observed_ns.
CREATE OR REPLACE VIEW queue_length_summary AS
SELECT
    run_name::VARCHAR                                                     AS run_name,                  -- run name
    rank::INTEGER                                                         AS rank,                      -- global rank
    step::INTEGER                                                         AS step,                      -- step number; NULL = the whole capture
    stream_id::VARCHAR                                                    AS stream_id,                 -- device stream
    count(*)::BIGINT                                                      AS point_count,               -- points (launches + starts) (HTA count)
    max(queued_count)::BIGINT                                             AS max_queued_count,          -- deepest queue (HTA max)
    min(queued_count)::BIGINT                                             AS min_queued_count,          -- shallowest queue after a point (HTA min)
    sum(queued_count)::BIGINT                                             AS queued_point_total_count,  -- Σ queue length over the points; / point_count = HTA mean
    sum(queued_count * dur_ns)::BIGINT                                    AS queued_ns,                 -- Σ queue length × time it held = total time kernels waited between launch call and start, ns
    sum(dur_ns)::BIGINT                                                   AS observed_ns,               -- time covered by the points' durations (to the stream's next point), ns
    sum(CASE WHEN queued_count = 0 THEN dur_ns ELSE 0 END)::BIGINT        AS zero_queue_ns,             -- time with no kernel waiting to start, ns
    sum(CASE WHEN queued_count >= 1024 THEN dur_ns ELSE 0 END)::BIGINT    AS full_queue_ns              -- time with ≥ 1024 kernels queued (HTA duration_at_max_queue_length), ns
FROM queue_length
GROUP BY GROUPING SETS ((run_name, rank, step, stream_id), (run_name, rank, stream_id))
HAVING grouping(step) = 1 OR step IS NOT NULL
ORDER BY run_name, rank, step NULLS LAST, stream_id;
