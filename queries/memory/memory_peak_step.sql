-- memory_peak_step — peak allocator totals per run, rank, step, memory component and device.
-- Grain:     one row per (run, rank, step, component, device); a sample belongs to step N when its
--            time lies in the host window of ProfilerStep#N [host_start_ns, host_end_ns).
--            Samples outside every step window are left out.
-- Source:    memory rows of kind record (memory_record.csv) and event (Kineto [memory]); step
--            host windows (trace_view.json / Kineto ProfilerStep#N).
-- Reference: msprof-analyze compare (NPU DB) = max MEMORY_RECORD.totalReserved, step-filtered.
-- Units:     *_bytes integer bytes; ts_ns integer ns since the epoch.
CREATE OR REPLACE VIEW memory_peak_step AS
WITH samples AS (
    SELECT
        m.run_id, m.rank, s.step, m.component, m.device, m.ts_ns,
        m.allocated_bytes, m.reserved_bytes, m.active_bytes
    FROM memory AS m
    JOIN step AS s
        ON s.run_id = m.run_id AND s.rank = m.rank
        AND m.ts_ns >= s.host_start_ns AND m.ts_ns < s.host_end_ns
    WHERE m.kind IN ('record', 'event')
),
marked AS (
    SELECT
        *,
        max(reserved_bytes) OVER (PARTITION BY run_id, rank, step, component, device) AS peak_reserved
    FROM samples
),
peaks AS (
    SELECT
        run_id, rank, step, component, device,
        max(allocated_bytes) AS peak_allocated_bytes,
        max(reserved_bytes) AS peak_reserved_bytes,
        max(active_bytes) AS peak_active_bytes,
        min(ts_ns) FILTER (WHERE reserved_bytes = peak_reserved) AS peak_ts_ns,
        count(*) AS samples
    FROM marked
    GROUP BY run_id, rank, step, component, device
)
SELECT
    r.run_name::VARCHAR               AS run_name,              -- run name
    p.rank::INTEGER                   AS rank,                  -- global rank
    p.step::INTEGER                   AS step,                  -- step number N of ProfilerStep#N
    p.component::VARCHAR              AS component,             -- memory_record.csv Component; PyTorch for Kineto [memory] events
    p.device::VARCHAR                 AS device,                -- device as written (NPU:0; Kineto CPU or CUDA:n)
    p.peak_reserved_bytes::BIGINT     AS peak_reserved_bytes,   -- max Total Reserved in the step, bytes; NULL if the source has none
    p.peak_allocated_bytes::BIGINT    AS peak_allocated_bytes,  -- max Total Allocated in the step, bytes; NULL if the source has none
    p.peak_active_bytes::BIGINT       AS peak_active_bytes,     -- max Total Active in the step, bytes; NULL if the source has none
    p.samples::BIGINT                 AS samples,               -- number of samples/events of the component in the step
    p.peak_ts_ns::BIGINT              AS ts_ns                  -- time of the first sample at the step's reserved peak, ns
FROM peaks AS p
JOIN run AS r
    ON r.run_id = p.run_id
ORDER BY r.run_name, p.rank, p.step, p.component, p.device;
