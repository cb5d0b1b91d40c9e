-- idle_time_hta — HolisticTraceAnalysis's idle-time breakdown as HTA computes it (its window, its
-- gap rule), beside tracedb's own rule on the same kernels.
-- Grain:     one row per (run, rank, stream, cause) of a Kineto rank, over HTA's window (whole
--            capture minus the kernels HTA cuts: see tracedb_internal.hta_gpu_event; not per
--            step), including HTA's 'other' row of every stream (interval_count 0 when the stream
--            has no such gap: HTA files the first kernel of a stream, which has no gap, there).
-- Source:    tracedb_internal.hta_gpu_event (Kineto kernel / gpu_memcpy / gpu_memset rows: ts_ns,
--            dur_ns, stream_id, launch_ts_ns of the runtime call with the same correlation id).
-- Reference: HolisticTraceAnalysis 0.6.1 get_idle_time_breakdown(consecutive_kernel_delay=30)
--            (BreakdownAnalysis._analyze_idle_time_for_stream) at exact ns (HTA run with
--            HTA_DISABLE_NS_ROUNDING=1): the stream's kernels and copies in start order (ties:
--            kernel_id; HTA's sort leaves ties in no fixed order); gap = start − end of the kernel
--            before it; host_wait when the launch call started after that end, else kernel_wait
--            when the gap is under 30 µs, else other. idle_ns, interval_count and idle_ratio are
--            HTA's idle_time, its describe() count and idle_time_ratio, unrounded (HTA's output
--            rounds to 0.01 µs). HTA sums every gap, also a zero one (a kernel starting where the
--            previous ends) and a negative one (a kernel starting before the previous ends, as
--            overlapping kernels on one stream do): tracedb's rule (idle_interval, idle_time)
--            keeps only gaps > 0, which is tracedb_idle_ns / tracedb_interval_count here: on the
--            same kernels the totals are equal without negative gaps, the counts differ by the
--            zero ones. idle_time (step NULL rows) covers every kernel, the last step's too;
--            idle_time's step rows leave out the kernels launched outside every step, which HTA
--            keeps when launched before the first step.
-- Units:     *_ns integer nanoseconds; *_count intervals; idle_ratio 0–1 of the stream's idle time.
CREATE OR REPLACE VIEW idle_time_hta AS
WITH ordered AS (
    SELECT
        run_id, rank, stream_id, kernel_id, ts_ns, launch_ts_ns,
        lag(end_ns) OVER (PARTITION BY run_id, rank, stream_id ORDER BY ts_ns, kernel_id) AS previous_end_ns
    FROM tracedb_internal.hta_gpu_event
    WHERE in_window AND is_kernel
),
gap AS (
    SELECT
        run_id, rank, stream_id, ts_ns - previous_end_ns AS gap_ns,
        CASE WHEN coalesce(launch_ts_ns > previous_end_ns, false) THEN 'host_wait'
             WHEN ts_ns - previous_end_ns < 30000 THEN 'kernel_wait'
             ELSE 'other' END AS cause
    FROM ordered
),
by_cause AS (
    SELECT
        run_id, rank, stream_id, cause,
        coalesce(sum(gap_ns), 0) AS idle_ns,
        count(gap_ns) AS interval_count,
        coalesce(count_if(gap_ns = 0), 0) AS zero_interval_count,
        coalesce(count_if(gap_ns < 0), 0) AS overlap_count,
        coalesce(sum(CASE WHEN gap_ns < 0 THEN gap_ns ELSE 0 END), 0) AS overlap_ns,
        coalesce(sum(CASE WHEN gap_ns > 0 THEN gap_ns ELSE 0 END), 0) AS tracedb_idle_ns,
        coalesce(count_if(gap_ns > 0), 0) AS tracedb_interval_count
    FROM gap
    GROUP BY run_id, rank, stream_id, cause
)
SELECT
    r.run_name::VARCHAR                           AS run_name,                -- run name
    b.rank::INTEGER                               AS rank,                    -- global rank
    b.stream_id::VARCHAR                          AS stream_id,               -- device stream
    b.cause::VARCHAR                              AS cause,                   -- host_wait, kernel_wait or other (HTA idle_category)
    b.idle_ns::BIGINT                             AS idle_ns,                 -- HTA idle_time: sum of the gaps of this cause, zero and negative ones included, ns
    b.interval_count::BIGINT                      AS interval_count,          -- HTA's count of gaps of this cause (its describe() count), zero and negative ones included
    (CASE WHEN sum(b.idle_ns) OVER (PARTITION BY b.run_id, b.rank, b.stream_id) <> 0
          THEN b.idle_ns / sum(b.idle_ns) OVER (PARTITION BY b.run_id, b.rank, b.stream_id) END)::DOUBLE
                                                  AS idle_ratio,              -- HTA idle_time_ratio: idle_ns / the stream's idle_ns over all causes
    b.zero_interval_count::BIGINT                 AS zero_interval_count,     -- gaps of length 0 (HTA counts them; tracedb's idle_interval has no row for them)
    b.overlap_count::BIGINT                       AS overlap_count,           -- negative gaps: a kernel starting before the previous one on the stream ends (HTA adds them; tracedb has no row)
    b.overlap_ns::BIGINT                          AS overlap_ns,              -- sum of those negative gaps, ns (≤ 0; part of idle_ns)
    b.tracedb_idle_ns::BIGINT                     AS tracedb_idle_ns,         -- tracedb's rule on the same kernels: sum of the gaps > 0, ns (idle_ns − overlap_ns)
    b.tracedb_interval_count::BIGINT              AS tracedb_interval_count   -- tracedb's rule on the same kernels: gaps > 0
FROM by_cause AS b
JOIN run AS r
    ON r.run_id = b.run_id
ORDER BY r.run_name, b.rank, b.stream_id, b.cause;
