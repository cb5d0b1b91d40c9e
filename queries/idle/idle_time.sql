-- idle_time — why each device stream is idle: idle time split into host wait, kernel wait and
-- other, per stream and step and for the whole capture.
-- Grain:     one row per (run, rank, step, stream, cause) with at least one idle interval; rows
--            with step NULL cover the whole capture (every gap of the stream, inside a step or
--            not); a rank without steps has only those.
-- Source:    idle_interval (kernel ts_ns / dur_ns / stream_id / launch_ts_ns).
-- Reference: HolisticTraceAnalysis get_idle_time_breakdown output (rank, stream, idle_category,
--            idle_time, idle_time_ratio) with consecutive_kernel_delay = 30 µs, on exact ns and
--            per step: idle_ns = HTA idle_time, idle_ratio = HTA idle_time_ratio (share of the
--            stream's idle time in the same step / capture). HTA covers the trace minus its last
--            ProfilerStep; the sum of the step rows without the last step is that number.
--            Another threshold: aggregate idle_interval_with(threshold_ns) the same way.
-- Units:     *_ns integer nanoseconds; *_count intervals; idle_ratio plain ratio (0–1).
CREATE OR REPLACE VIEW idle_time AS
WITH both_scopes AS (
    SELECT run_name, rank, step, stream_id, cause, sum(dur_ns) AS idle_ns, count(*) AS interval_count,
           max(dur_ns) AS max_interval_ns
    FROM idle_interval
    GROUP BY GROUPING SETS ((run_name, rank, step, stream_id, cause), (run_name, rank, stream_id, cause))
    HAVING grouping(step) = 1 OR step IS NOT NULL
)
SELECT
    run_name::VARCHAR                                                       AS run_name,         -- run name
    rank::INTEGER                                                           AS rank,             -- global rank
    step::INTEGER                                                           AS step,             -- step number; NULL = the whole capture
    stream_id::VARCHAR                                                      AS stream_id,        -- device stream
    cause::VARCHAR                                                          AS cause,            -- host_wait, kernel_wait or other (HTA idle_category)
    idle_ns::BIGINT                                                         AS idle_ns,          -- idle time of this cause on the stream, ns (HTA idle_time, exact)
    interval_count::BIGINT                                                  AS interval_count,   -- idle intervals of this cause
    max_interval_ns::BIGINT                                                 AS max_interval_ns,  -- longest of them, ns
    sum(idle_ns) OVER (PARTITION BY run_name, rank, step, stream_id)::BIGINT
                                                                            AS stream_idle_ns,   -- idle time of the stream in the step (all causes), ns
    (idle_ns / sum(idle_ns) OVER (PARTITION BY run_name, rank, step, stream_id))::DOUBLE
                                                                            AS idle_ratio        -- share of the stream's idle time in the step (HTA idle_time_ratio)
FROM both_scopes
ORDER BY run_name, rank, step NULLS LAST, TRY_CAST(stream_id AS BIGINT) NULLS LAST, stream_id, cause;
