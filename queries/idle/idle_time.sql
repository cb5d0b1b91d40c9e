-- idle_time — why each device stream is idle: idle time split into host wait, kernel wait and
-- other, per stream and step and for the whole capture.
-- Grain:     one row per (run, rank, step, stream, cause) with at least one idle interval; rows
--            with step NULL cover the whole capture (every gap of the stream, inside a step or
--            not); a rank without steps has only those.
--            Scope: per step, steps of kernel.step (the ProfilerStep#N host window holding the
--            launch call, kernel_details.csv Step Id, else the host window holding the kernel;
--            temporal_breakdown.window_source names it per step), and whole capture (step NULL);
--            HTA's window: idle_time_hta.
-- Source:    idle_interval (kernel ts_ns / dur_ns / stream_id / launch_ts_ns).
-- Reference: HolisticTraceAnalysis get_idle_time_breakdown output (rank, stream, idle_category,
--            idle_time, idle_time_ratio) with consecutive_kernel_delay = 30 µs, on exact ns and
--            per step: idle_ns = HTA idle_time, idle_ratio = HTA idle_time_ratio (share of the
--            stream's idle time in the same step / capture). HTA's own number is not a sum of
--            these rows: HTA keeps the kernels launched before its cut (the last ProfilerStep#N's
--            start, host or GPU-side, the later), so it has the gaps before kernels launched ahead
--            of the first step (in no step row here) and those of the last step's kernels launched
--            before the cut (in the last step's row), and it also counts gaps of length 0 (no row
--            here) and adds negative ones; idle_time_hta is HTA's number, with tracedb's rule on
--            the same kernels beside it (docs/hta.md).
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
