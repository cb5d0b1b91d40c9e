-- kernel_stats — per kernel name: calls, total / mean / min / max / standard deviation and
-- percentiles of its duration, and its share of the step's kernel time, per step and for the
-- whole capture.
-- Grain:     one row per (run, rank, step, kernel name, op type, accelerator core, kernel type),
--            plus the same per (run, rank) with step NULL for the whole capture.
-- Source:    kernel (name, op_type, accelerator_core, is_communication, copy_kind, dur_ns, step).
-- Reference: HolisticTraceAnalysis get_gpu_kernel_breakdown, per-kernel table (name, sum, max,
--            min, mean, std per rank and kernel_type) on exact ns, every kernel listed (HTA
--            folds the kernels past the top 10 / 80 % of time into "others"). kernel_type is
--            HTA's get_kernel_type: COMMUNICATION (communication ops: NCCL / HCCL), MEMORY
--            (copies, names Memcpy* / Memset* / dma*), else COMPUTATION. std_ns is the sample
--            standard deviation (pandas std), 0 for a single call as in HTA. Percentiles are
--            nearest-rank (value at rank ceil(p·n)). NPU: op_type and accelerator_core from
--            kernel_details.csv (msprof-analyze kernel statistics by Type).
-- Units:     *_ns integer nanoseconds (mean_ns, std_ns rounded to the nearest ns); *_count kernels;
--            *_ratio plain ratio (0–1).
CREATE OR REPLACE VIEW kernel_stats AS
WITH typed AS (
    SELECT
        run_id, rank, step, name, op_type, accelerator_core, ts_ns, dur_ns,
        CASE WHEN is_communication THEN 'COMMUNICATION'
             WHEN copy_kind IS NOT NULL OR name LIKE 'Memcpy%' OR name LIKE 'Memset%' OR name LIKE 'dma%'
                 THEN 'MEMORY'
             ELSE 'COMPUTATION' END AS kernel_type
    FROM kernel
),
scoped AS (
    SELECT * FROM typed WHERE step IS NOT NULL
    UNION ALL
    SELECT run_id, rank, CAST(NULL AS INTEGER) AS step, name, op_type, accelerator_core, ts_ns, dur_ns, kernel_type
    FROM typed
),
ranked AS (
    SELECT
        *,
        count(*) OVER (PARTITION BY run_id, rank, step, name, op_type, accelerator_core, kernel_type) AS n,
        row_number() OVER (PARTITION BY run_id, rank, step, name, op_type, accelerator_core, kernel_type
                           ORDER BY dur_ns) AS dur_rank,
        sum(dur_ns) OVER (PARTITION BY run_id, rank, step) AS scope_kernel_ns,
        max(ts_ns + dur_ns) OVER (PARTITION BY run_id, rank, step)
            - min(ts_ns) OVER (PARTITION BY run_id, rank, step) AS scope_span_ns
    FROM scoped
)
SELECT
    r.run_name::VARCHAR                                                        AS run_name,            -- run name
    k.rank::INTEGER                                                            AS rank,                -- global rank
    k.step::INTEGER                                                            AS step,                -- step number; NULL = the whole capture
    k.name::VARCHAR                                                            AS kernel_name,         -- kernel name (HTA name)
    k.op_type::VARCHAR                                                         AS op_type,             -- op type (kernel_details.csv Type; GPU: the kernel name)
    k.accelerator_core::VARCHAR                                                AS accelerator_core,    -- accelerator core (AI_CORE, AI_VECTOR_CORE, ...; GPU: KERNEL / COMMUNICATION)
    k.kernel_type::VARCHAR                                                     AS kernel_type,         -- HTA kernel_type: COMPUTATION, COMMUNICATION or MEMORY
    count(*)::BIGINT                                                           AS call_count,          -- kernel executions (HTA count)
    sum(k.dur_ns)::BIGINT                                                      AS total_ns,            -- total duration, ns (HTA sum)
    round(avg(k.dur_ns))::BIGINT                                               AS mean_ns,             -- mean duration rounded to the nearest ns (HTA mean; exact: total_ns / call_count)
    min(k.dur_ns)::BIGINT                                                      AS min_ns,              -- shortest, ns (HTA min)
    max(k.dur_ns)::BIGINT                                                      AS max_ns,              -- longest, ns (HTA max)
    round(coalesce(stddev_samp(k.dur_ns), 0))::BIGINT                          AS std_ns,              -- sample standard deviation rounded to the nearest ns; 0 for one call (HTA std)
    min(CASE WHEN k.dur_rank >= ceil(0.5 * k.n) THEN k.dur_ns END)::BIGINT     AS p50_ns,              -- median duration (nearest rank), ns
    min(CASE WHEN k.dur_rank >= ceil(0.9 * k.n) THEN k.dur_ns END)::BIGINT     AS p90_ns,              -- 90th percentile, ns
    min(CASE WHEN k.dur_rank >= ceil(0.99 * k.n) THEN k.dur_ns END)::BIGINT    AS p99_ns,              -- 99th percentile, ns
    (sum(k.dur_ns) / nullif(max(k.scope_kernel_ns), 0))::DOUBLE                          AS kernel_time_ratio,         -- share of all kernel time of the step (Σ dur of every kernel)
    (sum(k.dur_ns) / nullif(max(k.scope_span_ns), 0))::DOUBLE                            AS step_span_ratio            -- total / the step's device span (first kernel start to last kernel end); kernels on several streams can add up past 1
FROM ranked AS k
JOIN run AS r
    ON r.run_id = k.run_id
GROUP BY r.run_name, k.rank, k.step, k.name, k.op_type, k.accelerator_core, k.kernel_type
ORDER BY r.run_name, k.rank, k.step NULLS LAST, total_ns DESC, k.name;
