-- module_memory — memory reserved by each NPU software module (CANN component) over the capture.
-- Grain:     one row per (run, rank, component, device) of npu_module_mem.csv.
-- Source:    memory rows of kind module (npu_module_mem.csv Component, Timestamp(us), Total
--            Reserved(MB) or Total Reserved(KB)).
-- Reference: MindStudio Insight memory view, per-component reserved memory of npu_module_mem.csv.
-- Units:     *_bytes integer bytes (MB = 1024^2 B, KB = 1024 B as the header says); *_ts_ns integer
--            ns since the epoch.
CREATE OR REPLACE VIEW module_memory AS
WITH samples AS (
    SELECT
        run_id, rank, component, device, ts_ns, reserved_bytes,
        max(reserved_bytes) OVER (PARTITION BY run_id, rank, component, device) AS peak_reserved,
        max(ts_ns) OVER (PARTITION BY run_id, rank, component, device) AS last_ts
    FROM memory
    WHERE kind = 'module'
),
modules AS (
    SELECT
        run_id, rank, component, device,
        max(reserved_bytes) AS peak_reserved_bytes,
        min(ts_ns) FILTER (WHERE reserved_bytes = peak_reserved) AS peak_ts_ns,
        max(reserved_bytes) FILTER (WHERE ts_ns = last_ts) AS last_reserved_bytes,
        min(ts_ns) AS first_ts_ns,
        max(ts_ns) AS last_ts_ns,
        count(*) AS samples
    FROM samples
    GROUP BY run_id, rank, component, device
)
SELECT
    r.run_name::VARCHAR             AS run_name,             -- run name
    m.rank::INTEGER                 AS rank,                 -- global rank
    m.component::VARCHAR            AS component,            -- npu_module_mem.csv Component (APP, HCCL, RUNTIME, GE ...)
    m.device::VARCHAR               AS device,               -- npu_module_mem.csv Device (NPU:0)
    m.peak_reserved_bytes::BIGINT   AS peak_reserved_bytes,  -- max Total Reserved of the module, bytes
    m.last_reserved_bytes::BIGINT   AS last_reserved_bytes,  -- Total Reserved at the last sample, bytes
    m.samples::BIGINT               AS samples,              -- number of samples of the module
    m.peak_ts_ns::BIGINT            AS peak_ts_ns,           -- time of the first sample at the peak, ns since the epoch
    m.first_ts_ns::BIGINT           AS first_ts_ns,          -- first sample time, ns
    m.last_ts_ns::BIGINT            AS last_ts_ns            -- last sample time, ns
FROM modules AS m
JOIN run AS r
    ON r.run_id = m.run_id
ORDER BY r.run_name, m.rank, m.peak_reserved_bytes DESC, m.component;
