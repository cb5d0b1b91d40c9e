-- memory_peak — peak allocator totals per run, rank, memory component and device.
-- Grain:     one row per (run, rank, component, device) of memory_record.csv samples (NPU:
--            components PTA, GE, PTA+GE, APP, WORKSPACE, MindSpore, MindSpore+GE ...) and of Kineto
--            [memory] events (GPU: component PyTorch, device CPU, CUDA:n or HIP:n).
-- Source:    memory rows of kind record (memory_record.csv Total Allocated/Reserved/Active(MB))
--            and kind event (Kineto [memory] args Total Allocated / Total Reserved).
--            Capacity: device.memory_capacity_bytes (Kineto deviceProperties totalGlobalMem of the
--            device, joined on run, rank and device label CUDA:n or HIP:n); Ascend output has no capacity.
-- Reference: msprof-analyze compare "Mem Usage" = max Total Reserved(MB) over memory_record.csv
--            (take the max over components here); GPU: max Total Reserved of [memory] events.
-- Units:     *_bytes integer bytes (torch_npu MB = 1024^2 B; MindSpore memory_record MB =
--            1 024 000 B); capacity_ratio a plain ratio (0.5 = half the device's memory); ts_ns
--            integer ns since the epoch.
CREATE OR REPLACE VIEW memory_peak AS
WITH samples AS (
    SELECT
        run_id, rank, component, device, ts_ns, allocated_bytes, reserved_bytes, active_bytes,
        max(reserved_bytes) OVER (PARTITION BY run_id, rank, component, device) AS peak_reserved
    FROM memory
    WHERE kind IN ('record', 'event')
),
peaks AS (
    SELECT
        run_id, rank, component, device,
        max(allocated_bytes) AS peak_allocated_bytes,
        max(reserved_bytes) AS peak_reserved_bytes,
        max(active_bytes) AS peak_active_bytes,
        min(ts_ns) FILTER (WHERE reserved_bytes = peak_reserved) AS peak_ts_ns,
        count(*) AS samples
    FROM samples
    GROUP BY run_id, rank, component, device
),
capacity AS (
    SELECT run_id, rank, device, max(memory_capacity_bytes) AS capacity_bytes
    FROM device
    GROUP BY run_id, rank, device
)
SELECT
    r.run_name::VARCHAR               AS run_name,              -- run name
    p.rank::INTEGER                   AS rank,                  -- global rank
    p.component::VARCHAR              AS component,             -- memory_record.csv Component (PTA, GE, PTA+GE, APP ...); PyTorch for Kineto [memory] events
    p.device::VARCHAR                 AS device,                -- device as written (NPU:0; Kineto CPU, CUDA:n, HIP:n (ROCm))
    p.peak_reserved_bytes::BIGINT     AS peak_reserved_bytes,   -- max Total Reserved, bytes; NULL if the source has none (old Kineto traces)
    c.capacity_bytes::BIGINT          AS capacity_bytes,        -- device memory capacity, bytes (Kineto deviceProperties totalGlobalMem); NULL when the input has none (Ascend, CPU)
    (p.peak_reserved_bytes / c.capacity_bytes)::DOUBLE AS capacity_ratio, -- peak_reserved_bytes / capacity_bytes; NULL without a capacity
    p.peak_allocated_bytes::BIGINT    AS peak_allocated_bytes,  -- max Total Allocated, bytes; NULL if the source has none (APP, old Kineto traces)
    p.peak_active_bytes::BIGINT       AS peak_active_bytes,     -- max Total Active, bytes; NULL if the source has none (Kineto, APP, torch_npu 5.0)
    p.samples::BIGINT                 AS samples,               -- number of samples/events of the component
    p.peak_ts_ns::BIGINT              AS ts_ns                  -- time of the first sample at the reserved peak, ns since the epoch
FROM peaks AS p
JOIN run AS r
    ON r.run_id = p.run_id
LEFT JOIN capacity AS c
    ON c.run_id = p.run_id AND c.rank = p.rank AND c.device = p.device
ORDER BY r.run_name, p.rank, p.component, p.device;
