-- kernel_launch_stats_with — launch delay and launch call duration statistics per step, with
-- HolisticTraceAnalysis's outlier rules at chosen cutoffs.
-- Grain:     one row per (run, rank, step) with launched kernels, plus one row per (run, rank)
--            with step NULL for the whole capture (every kernel of kernel_launch).
-- Source:    kernel_launch (kernel.launch_* and kernel ts_ns / dur_ns).
-- Reference: HolisticTraceAnalysis get_cuda_kernel_launch_stats (runtime_cutoff 50 µs,
--            launch_delay_cutoff 100 µs) and its three groups: runtime outliers = launch call
--            longer than runtime_cutoff_ns; launch delay outliers = hta_launch_delay_ns (kernel
--            start − launch call end, ≥ 0) above launch_delay_cutoff_ns; short kernels = launch
--            call ≤ runtime_cutoff_ns and kernel shorter than its launch call (fusion
--            candidates: launching costs more than running). Exact ns. Percentiles are
--            nearest-rank: the value at rank ceil(p·n) in ascending order.
-- Units:     *_ns integer nanoseconds (mean_* rounded to the nearest ns); *_count kernels.
-- Parameters: runtime_cutoff_ns (HTA default 50 µs = 50000), launch_delay_cutoff_ns (HTA default
--            100 µs = 100000), positional.
CREATE OR REPLACE MACRO kernel_launch_stats_with(runtime_cutoff_ns, launch_delay_cutoff_ns) AS TABLE
WITH scoped AS (
    SELECT run_name, rank, step, launch_delay_ns, hta_launch_delay_ns, launch_dur_ns, kernel_dur_ns
    FROM kernel_launch
    WHERE step IS NOT NULL
    UNION ALL
    SELECT run_name, rank, CAST(NULL AS INTEGER) AS step, launch_delay_ns, hta_launch_delay_ns, launch_dur_ns,
           kernel_dur_ns
    FROM kernel_launch
),
ranked AS (
    SELECT
        *,
        count(*) OVER (PARTITION BY run_name, rank, step) AS n,
        row_number() OVER (PARTITION BY run_name, rank, step ORDER BY launch_delay_ns) AS delay_rank,
        count(hta_launch_delay_ns) OVER (PARTITION BY run_name, rank, step) AS n_hta,
        row_number() OVER (PARTITION BY run_name, rank, step ORDER BY hta_launch_delay_ns NULLS LAST) AS hta_delay_rank,
        count(launch_dur_ns) OVER (PARTITION BY run_name, rank, step) AS n_dur,
        row_number() OVER (PARTITION BY run_name, rank, step ORDER BY launch_dur_ns NULLS LAST) AS dur_rank
    FROM scoped
)
SELECT
    run_name::VARCHAR                                                                   AS run_name,                    -- run name
    rank::INTEGER                                                                       AS rank,                        -- global rank
    step::INTEGER                                                                       AS step,                        -- step number; NULL = the whole capture
    count(*)::BIGINT                                                                    AS kernel_count,                -- kernels with a known launch call
    round(avg(launch_delay_ns))::BIGINT                                                        AS mean_launch_delay_ns,        -- mean kernel start − launch call start, ns
    min(CASE WHEN delay_rank >= ceil(0.5 * n) THEN launch_delay_ns END)::BIGINT         AS p50_launch_delay_ns,         -- median launch delay (nearest rank), ns
    min(CASE WHEN delay_rank >= ceil(0.9 * n) THEN launch_delay_ns END)::BIGINT         AS p90_launch_delay_ns,         -- 90th percentile launch delay, ns
    min(CASE WHEN delay_rank >= ceil(0.99 * n) THEN launch_delay_ns END)::BIGINT        AS p99_launch_delay_ns,         -- 99th percentile launch delay, ns
    max(launch_delay_ns)::BIGINT                                                        AS max_launch_delay_ns,         -- longest launch delay, ns
    round(avg(hta_launch_delay_ns))::BIGINT                                                    AS mean_hta_launch_delay_ns,    -- mean HTA launch_delay (kernel start − launch call end, ≥ 0), ns
    min(CASE WHEN hta_delay_rank >= ceil(0.5 * n_hta) THEN hta_launch_delay_ns END)::BIGINT AS p50_hta_launch_delay_ns,     -- median HTA launch_delay, ns
    min(CASE WHEN hta_delay_rank >= ceil(0.99 * n_hta) THEN hta_launch_delay_ns END)::BIGINT
                                                                                        AS p99_hta_launch_delay_ns,     -- 99th percentile HTA launch_delay, ns
    max(hta_launch_delay_ns)::BIGINT                                                    AS max_hta_launch_delay_ns,     -- longest HTA launch_delay, ns
    round(avg(launch_dur_ns))::BIGINT                                                          AS mean_launch_dur_ns,          -- mean launch call duration (HTA cpu_duration), ns
    min(CASE WHEN dur_rank >= ceil(0.5 * n_dur) THEN launch_dur_ns END)::BIGINT         AS p50_launch_dur_ns,           -- median launch call duration, ns
    min(CASE WHEN dur_rank >= ceil(0.9 * n_dur) THEN launch_dur_ns END)::BIGINT         AS p90_launch_dur_ns,           -- 90th percentile launch call duration, ns
    min(CASE WHEN dur_rank >= ceil(0.99 * n_dur) THEN launch_dur_ns END)::BIGINT        AS p99_launch_dur_ns,           -- 99th percentile launch call duration, ns
    max(launch_dur_ns)::BIGINT                                                          AS max_launch_dur_ns,           -- longest launch call, ns
    sum(CASE WHEN launch_dur_ns > runtime_cutoff_ns THEN 1 ELSE 0 END)::BIGINT          AS runtime_outlier_count,       -- HTA runtime outliers: launch call longer than runtime_cutoff_ns
    sum(CASE WHEN hta_launch_delay_ns > launch_delay_cutoff_ns THEN 1 ELSE 0 END)::BIGINT
                                                                                        AS launch_delay_outlier_count,  -- HTA launch delay outliers: hta_launch_delay_ns above launch_delay_cutoff_ns
    sum(CASE WHEN launch_dur_ns <= runtime_cutoff_ns AND kernel_dur_ns < launch_dur_ns THEN 1 ELSE 0 END)::BIGINT
                                                                                        AS short_kernel_count,          -- HTA short kernels: launch call ≤ runtime_cutoff_ns and kernel shorter than its launch call
    sum(CASE WHEN launch_dur_ns <= runtime_cutoff_ns AND kernel_dur_ns < launch_dur_ns THEN kernel_dur_ns ELSE 0 END)::BIGINT
                                                                                        AS short_kernel_ns              -- device time of those short kernels, ns
FROM ranked
GROUP BY run_name, rank, step
