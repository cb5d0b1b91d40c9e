-- queue_length_summary — per device stream and step, how deep the launch queue got: maximum,
-- mean over points (HTA) and over time, and the time the queue was empty or full.
-- Grain:     one row per (run, rank, step, stream) with launched kernels, plus one row per
--            (run, rank, stream) with step NULL for the whole capture.
--            Scope: per step, steps of kernel.step (the ProfilerStep#N host window holding the
--            launch call, kernel_details.csv Step Id, else the host window holding the kernel;
--            temporal_breakdown.window_source names it per step), and whole capture (step NULL).
-- Source:    queue_length (kernel launch_ts_ns / ts_ns / stream_id).
-- Reference: HolisticTraceAnalysis get_queue_length_summary (describe() of the queue_length
--            points: count, mean, std, min, max) and get_time_spent_blocked_on_full_queue with
--            max_queue_length = 1024 (HTA constant CUDA_MAX_LAUNCH_QUEUE_PER_STREAM, the CUDA
--            per-stream launch queue depth). A point's time (dur_ns, up to the stream's next
--            point) counts in the step of the point's kernel.
-- Units:     *_ns integer nanoseconds; *_count points or kernels. HTA's mean over the points =
--            queued_point_total_count / point_count; mean over time = queued_ns / observed_ns.
CREATE OR REPLACE VIEW queue_length_summary AS
WITH agg AS (
    -- grouped on the bare columns: Spark resolves grouping(step) in HAVING against the
    -- select list, where step is the cast output column, and refuses it
    SELECT
        run_name,
        rank,
        step,
        stream_id,
        count(*) AS point_count,
        max(queued_count) AS max_queued_count,
        min(queued_count) AS min_queued_count,
        sum(queued_count) AS queued_point_total_count,
        sum(queued_count * dur_ns) AS queued_ns,
        sum(dur_ns) AS observed_ns,
        sum(CASE WHEN queued_count = 0 THEN dur_ns ELSE 0 END) AS zero_queue_ns,
        sum(CASE WHEN queued_count >= 1024 THEN dur_ns ELSE 0 END) AS full_queue_ns
    FROM queue_length
    GROUP BY GROUPING SETS ((run_name, rank, step, stream_id), (run_name, rank, stream_id))
    HAVING grouping(step) = 1 OR step IS NOT NULL
)
SELECT
    a.run_name::VARCHAR                 AS run_name,                  -- run name
    a.rank::INTEGER                     AS rank,                      -- global rank
    a.step::INTEGER                     AS step,                      -- step number; NULL = the whole capture
    a.stream_id::VARCHAR                AS stream_id,                 -- device stream
    a.point_count::BIGINT               AS point_count,               -- points (launches + starts) (HTA count)
    a.max_queued_count::BIGINT          AS max_queued_count,          -- deepest queue (HTA max)
    a.min_queued_count::BIGINT          AS min_queued_count,          -- shallowest queue after a point (HTA min)
    a.queued_point_total_count::BIGINT  AS queued_point_total_count,  -- Σ queue length over the points; / point_count = HTA mean
    a.queued_ns::BIGINT                 AS queued_ns,                 -- Σ queue length × time it held = total time kernels waited between launch call and start, ns
    a.observed_ns::BIGINT               AS observed_ns,               -- time covered by the points' durations (to the stream's next point), ns
    a.zero_queue_ns::BIGINT             AS zero_queue_ns,             -- time with no kernel waiting to start, ns
    a.full_queue_ns::BIGINT             AS full_queue_ns               -- time with ≥ 1024 kernels queued (HTA duration_at_max_queue_length), ns
FROM agg AS a
ORDER BY a.run_name, a.rank, a.step NULLS LAST, TRY_CAST(a.stream_id AS BIGINT) NULLS LAST, a.stream_id;
