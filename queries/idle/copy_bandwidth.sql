-- copy_bandwidth — how many bytes the device's memory copies and sets moved, how long they took
-- and at what bandwidth, per copy kind and step.
-- Grain:     one row per (run, rank, step, copy kind) with copies, plus one row per (run, rank,
--            copy kind) with step NULL for the whole capture.
--            Scope: per step, steps of kernel.step (the ProfilerStep#N host window holding the
--            launch call, kernel_details.csv Step Id, else the host window holding the kernel;
--            temporal_breakdown.window_source names it per step), and whole capture (step NULL).
-- Source:    kernel rows with copy_kind (Kineto gpu_memcpy / gpu_memset events, args "bytes";
--            Nsight copies; NPU SDMA_SQE / PCIE_DMA_SQE / MEMCPY_ASYNC tasks, args "size(B)" where
--            newer CANN writes it), size_bytes, dur_ns.
-- Reference: HolisticTraceAnalysis get_memory_bw_summary, per memory op type (Memcpy HtoD /
--            DtoH / DtoD / PtoP, Memset): HTA reads each copy's Kineto "memory bandwidth (GB/s)"
--            (= bytes / duration in ns) and describes the sum over concurrent copies at every
--            change; without overlapping copies of a kind its count / mean / min / max are
--            copy_count / mean_copy_gbps / min_copy_gbps / max_copy_gbps here. HTA rounds a
--            0 µs copy up to 1 µs; here a copy with dur_ns = 0 is left out of the per-copy
--            bandwidths. bandwidth_gbps = Σ bytes / Σ duration (1 GB = 10^9 bytes, as Kineto).
-- Units:     *_count copies; *_bytes bytes; *_ns integer nanoseconds; *_gbps GB/s (10^9 bytes per second).
CREATE OR REPLACE VIEW copy_bandwidth AS
WITH copy AS (
    SELECT r.run_name, k.rank, k.step, k.copy_kind, k.size_bytes, k.dur_ns,
           CASE WHEN k.dur_ns > 0 THEN k.size_bytes / k.dur_ns END AS copy_gbps
    FROM kernel AS k
    JOIN run AS r
        ON r.run_id = k.run_id
    WHERE k.copy_kind IS NOT NULL
),
agg AS (
    -- grouped on bare columns: Spark resolves grouping(step) in HAVING against the select list,
    -- where step is the cast output column, and refuses it
    SELECT
        run_name,
        rank,
        step,
        copy_kind,
        count(*) AS copy_count,
        sum(size_bytes) AS size_bytes,
        count(size_bytes) AS sized_count,
        sum(dur_ns) AS dur_ns,
        sum(CASE WHEN size_bytes IS NOT NULL THEN size_bytes END)
            / nullif(sum(CASE WHEN size_bytes IS NOT NULL THEN dur_ns END), 0) AS bandwidth_gbps,
        avg(copy_gbps) AS mean_copy_gbps,
        min(copy_gbps) AS min_copy_gbps,
        max(copy_gbps) AS max_copy_gbps
    FROM copy
    GROUP BY GROUPING SETS ((run_name, rank, step, copy_kind), (run_name, rank, copy_kind))
    HAVING grouping(step) = 1 OR step IS NOT NULL
)
SELECT
    a.run_name::VARCHAR         AS run_name,        -- run name
    a.rank::INTEGER             AS rank,            -- global rank
    a.step::INTEGER             AS step,            -- step number; NULL = the whole capture
    a.copy_kind::VARCHAR        AS copy_kind,       -- HtoD, DtoH, DtoD, PtoP, HtoH, Memset or Unknown (kernel.copy_kind)
    a.copy_count::BIGINT        AS copy_count,      -- copies (HTA count)
    a.size_bytes::BIGINT        AS size_bytes,      -- bytes moved or set; copies without a size count as unknown
    a.sized_count::BIGINT       AS sized_count,     -- copies with a known size
    a.dur_ns::BIGINT            AS dur_ns,          -- total copy duration, ns
    a.bandwidth_gbps::DOUBLE    AS bandwidth_gbps,  -- Σ bytes / Σ duration of the sized copies, GB/s; NULL when that duration is 0
    a.mean_copy_gbps::DOUBLE    AS mean_copy_gbps,  -- mean of the copies' own bandwidths, GB/s (HTA mean without overlap)
    a.min_copy_gbps::DOUBLE     AS min_copy_gbps,   -- slowest copy, GB/s (HTA min without overlap)
    a.max_copy_gbps::DOUBLE     AS max_copy_gbps    -- fastest copy, GB/s (HTA max without overlap)
FROM agg AS a
ORDER BY a.run_name, a.rank, a.step NULLS LAST, a.copy_kind;
