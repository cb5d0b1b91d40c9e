-- copy_bandwidth — how many bytes the device's memory copies and sets moved, how long they took
-- and at what bandwidth, per copy kind and step.
-- Grain:     one row per (run, rank, step, copy kind) with copies, plus one row per (run, rank,
--            copy kind) with step NULL for the whole capture.
-- Source:    kernel rows with copy_kind (Kineto gpu_memcpy / gpu_memset events, args "bytes";
--            Nsight copies; NPU SDMA / PCIe DMA tasks), size_bytes, dur_ns.
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
    SELECT run_id, rank, step, copy_kind, size_bytes, dur_ns,
           CASE WHEN dur_ns > 0 THEN size_bytes / dur_ns END AS copy_gbps
    FROM kernel
    WHERE copy_kind IS NOT NULL
)
SELECT
    r.run_name::VARCHAR                                            AS run_name,        -- run name
    c.rank::INTEGER                                                AS rank,            -- global rank
    c.step::INTEGER                                                AS step,            -- step number; NULL = the whole capture
    c.copy_kind::VARCHAR                                           AS copy_kind,       -- HtoD, DtoH, DtoD, PtoP, HtoH or Memset (kernel.copy_kind)
    count(*)::BIGINT                                               AS copy_count,      -- copies (HTA count)
    sum(c.size_bytes)::BIGINT                                      AS size_bytes,      -- bytes moved or set; copies without a size count as unknown
    count(c.size_bytes)::BIGINT                                    AS sized_count,     -- copies with a known size
    sum(c.dur_ns)::BIGINT                                          AS dur_ns,          -- total copy duration, ns
    (sum(CASE WHEN c.size_bytes IS NOT NULL THEN c.size_bytes END)
        / nullif(sum(CASE WHEN c.size_bytes IS NOT NULL THEN c.dur_ns END), 0))::DOUBLE
                                                                   AS bandwidth_gbps,  -- Σ bytes / Σ duration of the sized copies, GB/s; NULL when that duration is 0
    avg(c.copy_gbps)::DOUBLE                                       AS mean_copy_gbps,  -- mean of the copies' own bandwidths, GB/s (HTA mean without overlap)
    min(c.copy_gbps)::DOUBLE                                       AS min_copy_gbps,   -- slowest copy, GB/s (HTA min without overlap)
    max(c.copy_gbps)::DOUBLE                                       AS max_copy_gbps    -- fastest copy, GB/s (HTA max without overlap)
FROM copy AS c
JOIN run AS r
    ON r.run_id = c.run_id
GROUP BY GROUPING SETS ((r.run_name, c.rank, c.step, c.copy_kind), (r.run_name, c.rank, c.copy_kind))
HAVING grouping(c.step) = 1 OR c.step IS NOT NULL
ORDER BY r.run_name, c.rank, c.step NULLS LAST, c.copy_kind;
