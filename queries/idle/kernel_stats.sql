-- kernel_stats — per kernel name: calls, total / mean / min / max / standard deviation and
-- percentiles of its duration, and its share of the step's kernel time, per step and for the
-- whole capture.
-- Grain:     one row per (run, rank, step, kernel name, op type, accelerator core, kernel type),
--            plus the same per (run, rank) with step NULL for the whole capture.
--            Scope: per step, steps of kernel.step (the ProfilerStep#N host window holding the
--            launch call, kernel_details.csv Step Id, else the host window holding the kernel;
--            temporal_breakdown.window_source names it per step), and whole capture (step NULL).
-- Source:    kernel (name, op_type, accelerator_core, is_communication, copy_kind, dur_ns, step).
-- Reference: HolisticTraceAnalysis get_gpu_kernel_breakdown, per-kernel table (name, sum, max,
--            min, mean, std per rank and kernel_type) on exact ns, every kernel listed (HTA
--            folds the kernels past the top 10 / 80 % of time into "others"). kernel_type is
--            HTA's get_kernel_type: COMMUNICATION (communication ops: NCCL / HCCL), MEMORY
--            (copies, names Memcpy* / Memset* / dma*), else COMPUTATION. std_ns is the sample
--            standard deviation (pandas std), 0 for a single call as in HTA. Percentiles are
--            nearest-rank (value at rank ceil(p·n)). NPU: op_type and accelerator_core from
--            kernel_details.csv (msprof-analyze kernel statistics by Type).
-- Method:    each kernel key (name, op type, core, class) gets a small number first, so that the
--            percentile windows sort integers, not kernel names; one pass of windows gives the
--            step and the capture ranks (cume_dist), one GROUPING SETS both row kinds.
-- Units:     *_ns integer nanoseconds (mean_ns, std_ns rounded to the nearest ns); *_count kernels;
--            *_ratio plain ratio (0–1).
CREATE OR REPLACE VIEW kernel_stats AS
WITH key AS (
    SELECT
        *,
        row_number() OVER (ORDER BY run_id, rank, name, op_type, accelerator_core, is_communication, copy_kind) AS gid,
        CASE WHEN is_communication THEN 'COMMUNICATION'
             WHEN copy_kind IS NOT NULL OR name LIKE 'Memcpy%' OR name LIKE 'Memset%' OR name LIKE 'dma%'
                 THEN 'MEMORY'
             ELSE 'COMPUTATION' END AS kernel_type
    FROM (SELECT DISTINCT run_id, rank, name, op_type, accelerator_core, is_communication, copy_kind FROM kernel) AS d
),
keyed AS (
    SELECT y.gid, k.step, k.dur_ns
    FROM kernel AS k
    JOIN key AS y
        ON y.run_id = k.run_id AND y.rank = k.rank AND y.name IS NOT DISTINCT FROM k.name
        AND y.op_type IS NOT DISTINCT FROM k.op_type AND y.accelerator_core IS NOT DISTINCT FROM k.accelerator_core
        AND y.is_communication = k.is_communication AND y.copy_kind IS NOT DISTINCT FROM k.copy_kind
),
ranked AS (
    SELECT
        gid, step, dur_ns,
        cume_dist() OVER (PARTITION BY gid, step ORDER BY dur_ns) AS step_cd,
        cume_dist() OVER (PARTITION BY gid ORDER BY dur_ns) AS capture_cd
    FROM keyed
),
agg AS (
    SELECT
        gid, step, grouping(step) AS is_capture,
        count(*) AS call_count, sum(dur_ns) AS total_ns, avg(dur_ns) AS mean_ns, min(dur_ns) AS min_ns,
        max(dur_ns) AS max_ns, stddev_samp(dur_ns) AS std_ns,
        min(CASE WHEN step_cd >= 0.5 THEN dur_ns END) AS step_p50_ns,
        min(CASE WHEN step_cd >= 0.9 THEN dur_ns END) AS step_p90_ns,
        min(CASE WHEN step_cd >= 0.99 THEN dur_ns END) AS step_p99_ns,
        min(CASE WHEN capture_cd >= 0.5 THEN dur_ns END) AS capture_p50_ns,
        min(CASE WHEN capture_cd >= 0.9 THEN dur_ns END) AS capture_p90_ns,
        min(CASE WHEN capture_cd >= 0.99 THEN dur_ns END) AS capture_p99_ns
    FROM ranked
    GROUP BY GROUPING SETS ((gid, step), (gid))
    HAVING grouping(step) = 1 OR step IS NOT NULL
),
scope AS (
    SELECT run_id, rank, step, grouping(step) AS is_capture, sum(dur_ns) AS kernel_ns,
           max(ts_ns + dur_ns) - min(ts_ns) AS span_ns
    FROM kernel
    GROUP BY GROUPING SETS ((run_id, rank, step), (run_id, rank))
    HAVING grouping(step) = 1 OR step IS NOT NULL
)
SELECT
    r.run_name::VARCHAR                                                        AS run_name,          -- run name
    y.rank::INTEGER                                                            AS rank,              -- global rank
    a.step::INTEGER                                                            AS step,              -- step number; NULL = the whole capture
    y.name::VARCHAR                                                            AS kernel_name,       -- kernel name (HTA name)
    y.op_type::VARCHAR                                                         AS op_type,           -- op type (kernel_details.csv Type; GPU: the kernel name)
    y.accelerator_core::VARCHAR                                                AS accelerator_core,  -- accelerator core (AI_CORE, AI_VECTOR_CORE, ...; GPU: KERNEL / COMMUNICATION / MEMCPY / MEMSET)
    y.kernel_type::VARCHAR                                                     AS kernel_type,       -- HTA kernel_type: COMPUTATION, COMMUNICATION or MEMORY
    a.call_count::BIGINT                                                       AS call_count,        -- kernel executions (HTA count)
    a.total_ns::BIGINT                                                         AS total_ns,          -- total duration, ns (HTA sum)
    round(a.mean_ns)::BIGINT                                                   AS mean_ns,           -- mean duration rounded to the nearest ns (HTA mean; exact: total_ns / call_count)
    a.min_ns::BIGINT                                                           AS min_ns,            -- shortest, ns (HTA min)
    a.max_ns::BIGINT                                                           AS max_ns,            -- longest, ns (HTA max)
    round(coalesce(a.std_ns, 0))::BIGINT                                       AS std_ns,            -- sample standard deviation rounded to the nearest ns; 0 for one call (HTA std)
    (CASE WHEN a.is_capture = 1 THEN a.capture_p50_ns ELSE a.step_p50_ns END)::BIGINT
                                                                               AS p50_ns,            -- median duration (nearest rank), ns
    (CASE WHEN a.is_capture = 1 THEN a.capture_p90_ns ELSE a.step_p90_ns END)::BIGINT
                                                                               AS p90_ns,            -- 90th percentile, ns
    (CASE WHEN a.is_capture = 1 THEN a.capture_p99_ns ELSE a.step_p99_ns END)::BIGINT
                                                                               AS p99_ns,            -- 99th percentile, ns
    (a.total_ns / nullif(s.kernel_ns, 0))::DOUBLE                              AS kernel_time_ratio, -- share of all kernel time of the step (Σ dur of every kernel)
    (a.total_ns / nullif(s.span_ns, 0))::DOUBLE                                AS step_span_ratio    -- total / the step's device span (first kernel start to last kernel end); kernels on several streams can add up past 1
FROM agg AS a
JOIN key AS y
    ON y.gid = a.gid
JOIN scope AS s
    ON s.run_id = y.run_id AND s.rank = y.rank AND s.is_capture = a.is_capture AND s.step IS NOT DISTINCT FROM a.step
JOIN run AS r
    ON r.run_id = y.run_id
ORDER BY r.run_name, y.rank, a.step NULLS LAST, a.total_ns DESC, y.name;
