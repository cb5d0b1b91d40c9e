-- kernel_launch_stats_with — launch delay and launch call duration statistics per step, with
-- HolisticTraceAnalysis's outlier rules at chosen cutoffs.
-- Grain:     one row per (run, rank, step) with launched kernels, plus one row per (run, rank)
--            with step NULL for the whole capture (every kernel of kernel_launch).
--            Scope: per step, steps of kernel.step (the ProfilerStep#N host window holding the
--            launch call, kernel_details.csv Step Id, else the host window holding the kernel;
--            temporal_breakdown.window_source names it per step), and whole capture (step NULL).
-- Source:    kernel (launch_ts_ns / launch_dur_ns, ts_ns, dur_ns, step), as in kernel_launch.
-- Reference: HolisticTraceAnalysis get_cuda_kernel_launch_stats (runtime_cutoff 50 µs,
--            launch_delay_cutoff 100 µs) and its three groups: runtime outliers = launch call
--            longer than runtime_cutoff_ns; launch delay outliers = hta_launch_delay_ns (kernel
--            start − launch call end, ≥ 0) above launch_delay_cutoff_ns; short kernels = launch
--            call ≤ runtime_cutoff_ns and kernel shorter than its launch call (fusion
--            candidates: launching costs more than running). Exact ns. Percentiles are
--            nearest-rank: the smallest value whose cumulative share (cume_dist) reaches p.
-- Method:    one pass of windows gives the step and the capture ranks, one GROUPING SETS both
--            row kinds (no second scan of the kernels for the capture rows). Launches known only
--            by their flow (no duration) are ranked apart, so they do not shift the duration
--            percentiles.
-- Units:     *_ns integer nanoseconds (mean_* rounded to the nearest ns); *_count kernels.
-- Parameters: runtime_cutoff_ns (HTA default 50 µs = 50000), launch_delay_cutoff_ns (HTA default
--            100 µs = 100000), positional.
-- Browse:    kernel_launch_stats(50000, 100000) ORDER BY run_name, rank, step NULLS LAST — at HTA's default cutoffs: runtime 50 µs, launch delay 100 µs
CREATE OR REPLACE MACRO kernel_launch_stats_with(runtime_cutoff_ns, launch_delay_cutoff_ns) AS TABLE
WITH launched AS (
    SELECT
        run_id, rank, step, dur_ns AS kernel_dur_ns, launch_dur_ns,
        ts_ns - launch_ts_ns AS launch_delay_ns,
        greatest(ts_ns - (launch_ts_ns + launch_dur_ns), 0) AS hta_launch_delay_ns
    FROM kernel
    WHERE launch_ts_ns IS NOT NULL
),
ranked AS (
    SELECT
        *,
        cume_dist() OVER (PARTITION BY run_id, rank, step ORDER BY launch_delay_ns) AS step_delay_cd,
        cume_dist() OVER (PARTITION BY run_id, rank ORDER BY launch_delay_ns) AS capture_delay_cd,
        cume_dist() OVER (PARTITION BY run_id, rank, step, launch_dur_ns IS NULL ORDER BY hta_launch_delay_ns) AS step_hta_cd,
        cume_dist() OVER (PARTITION BY run_id, rank, launch_dur_ns IS NULL ORDER BY hta_launch_delay_ns) AS capture_hta_cd,
        cume_dist() OVER (PARTITION BY run_id, rank, step, launch_dur_ns IS NULL ORDER BY launch_dur_ns) AS step_dur_cd,
        cume_dist() OVER (PARTITION BY run_id, rank, launch_dur_ns IS NULL ORDER BY launch_dur_ns) AS capture_dur_cd
    FROM launched
),
agg AS (
    SELECT
        run_id, rank, step, grouping(step) AS is_capture,
        count(*) AS kernel_count,
        avg(launch_delay_ns) AS mean_launch_delay_ns,
        min(CASE WHEN step_delay_cd >= 0.5 THEN launch_delay_ns END) AS s50_d,
        min(CASE WHEN step_delay_cd >= 0.9 THEN launch_delay_ns END) AS s90_d,
        min(CASE WHEN step_delay_cd >= 0.99 THEN launch_delay_ns END) AS s99_d,
        min(CASE WHEN capture_delay_cd >= 0.5 THEN launch_delay_ns END) AS c50_d,
        min(CASE WHEN capture_delay_cd >= 0.9 THEN launch_delay_ns END) AS c90_d,
        min(CASE WHEN capture_delay_cd >= 0.99 THEN launch_delay_ns END) AS c99_d,
        max(launch_delay_ns) AS max_launch_delay_ns,
        avg(hta_launch_delay_ns) AS mean_hta_launch_delay_ns,
        min(CASE WHEN step_hta_cd >= 0.5 THEN hta_launch_delay_ns END) AS s50_h,
        min(CASE WHEN step_hta_cd >= 0.99 THEN hta_launch_delay_ns END) AS s99_h,
        min(CASE WHEN capture_hta_cd >= 0.5 THEN hta_launch_delay_ns END) AS c50_h,
        min(CASE WHEN capture_hta_cd >= 0.99 THEN hta_launch_delay_ns END) AS c99_h,
        max(hta_launch_delay_ns) AS max_hta_launch_delay_ns,
        avg(launch_dur_ns) AS mean_launch_dur_ns,
        min(CASE WHEN step_dur_cd >= 0.5 THEN launch_dur_ns END) AS s50_u,
        min(CASE WHEN step_dur_cd >= 0.9 THEN launch_dur_ns END) AS s90_u,
        min(CASE WHEN step_dur_cd >= 0.99 THEN launch_dur_ns END) AS s99_u,
        min(CASE WHEN capture_dur_cd >= 0.5 THEN launch_dur_ns END) AS c50_u,
        min(CASE WHEN capture_dur_cd >= 0.9 THEN launch_dur_ns END) AS c90_u,
        min(CASE WHEN capture_dur_cd >= 0.99 THEN launch_dur_ns END) AS c99_u,
        max(launch_dur_ns) AS max_launch_dur_ns,
        sum(CASE WHEN launch_dur_ns > runtime_cutoff_ns THEN 1 ELSE 0 END) AS runtime_outlier_count,
        sum(CASE WHEN hta_launch_delay_ns > launch_delay_cutoff_ns THEN 1 ELSE 0 END) AS launch_delay_outlier_count,
        sum(CASE WHEN launch_dur_ns <= runtime_cutoff_ns AND kernel_dur_ns < launch_dur_ns THEN 1 ELSE 0 END)
            AS short_kernel_count,
        sum(CASE WHEN launch_dur_ns <= runtime_cutoff_ns AND kernel_dur_ns < launch_dur_ns THEN kernel_dur_ns ELSE 0 END)
            AS short_kernel_ns
    FROM ranked
    GROUP BY GROUPING SETS ((run_id, rank, step), (run_id, rank))
    HAVING grouping(step) = 1 OR step IS NOT NULL
)
SELECT
    r.run_name::VARCHAR                                                          AS run_name,                    -- run name
    a.rank::INTEGER                                                              AS rank,                        -- global rank
    a.step::INTEGER                                                              AS step,                        -- step number; NULL = the whole capture
    a.kernel_count::BIGINT                                                       AS kernel_count,                -- kernels with a known launch call
    round(a.mean_launch_delay_ns)::BIGINT                                        AS mean_launch_delay_ns,        -- mean kernel start − launch call start, ns
    (CASE WHEN a.is_capture = 1 THEN a.c50_d ELSE a.s50_d END)::BIGINT           AS p50_launch_delay_ns,         -- median launch delay (nearest rank), ns
    (CASE WHEN a.is_capture = 1 THEN a.c90_d ELSE a.s90_d END)::BIGINT           AS p90_launch_delay_ns,         -- 90th percentile launch delay, ns
    (CASE WHEN a.is_capture = 1 THEN a.c99_d ELSE a.s99_d END)::BIGINT           AS p99_launch_delay_ns,         -- 99th percentile launch delay, ns
    a.max_launch_delay_ns::BIGINT                                                AS max_launch_delay_ns,         -- longest launch delay, ns
    round(a.mean_hta_launch_delay_ns)::BIGINT                                    AS mean_hta_launch_delay_ns,    -- mean HTA launch_delay (kernel start − launch call end, ≥ 0), ns
    (CASE WHEN a.is_capture = 1 THEN a.c50_h ELSE a.s50_h END)::BIGINT           AS p50_hta_launch_delay_ns,     -- median HTA launch_delay, ns
    (CASE WHEN a.is_capture = 1 THEN a.c99_h ELSE a.s99_h END)::BIGINT           AS p99_hta_launch_delay_ns,     -- 99th percentile HTA launch_delay, ns
    a.max_hta_launch_delay_ns::BIGINT                                            AS max_hta_launch_delay_ns,     -- longest HTA launch_delay, ns
    round(a.mean_launch_dur_ns)::BIGINT                                          AS mean_launch_dur_ns,          -- mean launch call duration (HTA cpu_duration), ns
    (CASE WHEN a.is_capture = 1 THEN a.c50_u ELSE a.s50_u END)::BIGINT           AS p50_launch_dur_ns,           -- median launch call duration, ns
    (CASE WHEN a.is_capture = 1 THEN a.c90_u ELSE a.s90_u END)::BIGINT           AS p90_launch_dur_ns,           -- 90th percentile launch call duration, ns
    (CASE WHEN a.is_capture = 1 THEN a.c99_u ELSE a.s99_u END)::BIGINT           AS p99_launch_dur_ns,           -- 99th percentile launch call duration, ns
    a.max_launch_dur_ns::BIGINT                                                  AS max_launch_dur_ns,           -- longest launch call, ns
    a.runtime_outlier_count::BIGINT                                              AS runtime_outlier_count,       -- HTA runtime outliers: launch call longer than runtime_cutoff_ns
    a.launch_delay_outlier_count::BIGINT                                         AS launch_delay_outlier_count,  -- HTA launch delay outliers: hta_launch_delay_ns above launch_delay_cutoff_ns
    a.short_kernel_count::BIGINT                                                 AS short_kernel_count,          -- HTA short kernels: launch call ≤ runtime_cutoff_ns and kernel shorter than its launch call
    a.short_kernel_ns::BIGINT                                                    AS short_kernel_ns              -- device time of those short kernels, ns
FROM agg AS a
JOIN run AS r
    ON r.run_id = a.run_id
