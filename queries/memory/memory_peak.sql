-- memory_peak — the highest memory use of each rank, per allocator component.
-- Grain:     one row per (run, rank, source, component, device).
-- Source:    memory rows: memory_record.csv (source memory_record: PTA, GE, PTA+GE, APP,
--            WORKSPACE, MindSpore …), npu_module_mem.csv (source npu_module_mem: reserved per
--            CANN module, HCCL, RUNTIME …), Kineto [memory] events (source kineto: component
--            PyTorch, device CPU or cuda:N).
-- Reference: msprof-analyze compare "Mem Usage" = max Total Reserved(MB) of memory_record.csv
--            (analyses.md §8); GPU: max "Total Reserved" of [memory] events. Traces without
--            totals (2021-era Kineto) get peak_allocated_bytes from the running sum of "Bytes"
--            since the capture started (allocations made before it are not seen; at equal
--            timestamps frees count first).
-- Units:     *_bytes bytes (torch_npu MB = 1024² B, MindSpore MB = 1 024 000 B); ts_ns integer ns.
CREATE OR REPLACE VIEW memory_peak AS
WITH samples AS (
    SELECT
        run_id, rank,
        CASE kind WHEN 'record' THEN 'memory_record' WHEN 'module' THEN 'npu_module_mem' ELSE 'kineto' END AS source,
        coalesce(component, '') AS component, coalesce(device, '') AS device, ts_ns,
        CASE WHEN kind = 'event' AND allocated_bytes IS NULL
             THEN sum(size_bytes) OVER (PARTITION BY run_id, rank, file_id, device ORDER BY ts_ns, size_bytes
                                        ROWS UNBOUNDED PRECEDING)
             ELSE allocated_bytes END AS allocated_bytes,
        reserved_bytes, active_bytes
    FROM memory
    WHERE kind IN ('record', 'module', 'event')
),
peaks AS (
    SELECT
        run_id, rank, source, component, device,
        max(allocated_bytes) AS peak_allocated_bytes,
        max(reserved_bytes) AS peak_reserved_bytes,
        max(active_bytes) AS peak_active_bytes,
        arg_min(ts_ns, struct_pack(r := -reserved_bytes, t := ts_ns)) FILTER (WHERE reserved_bytes IS NOT NULL)
            AS reserved_peak_ts_ns,
        arg_min(ts_ns, struct_pack(a := -allocated_bytes, t := ts_ns)) FILTER (WHERE allocated_bytes IS NOT NULL)
            AS allocated_peak_ts_ns,
        count(*) AS samples
    FROM samples
    GROUP BY run_id, rank, source, component, device
)
SELECT
    r.run_name::VARCHAR                 AS run_name,              -- run name
    p.rank::INTEGER                     AS rank,                  -- global rank
    p.source::VARCHAR                   AS source,                -- memory_record, npu_module_mem or kineto
    nullif(p.component, '')::VARCHAR    AS component,             -- allocator / module (PTA, GE, PTA+GE, APP, HCCL, PyTorch ...)
    nullif(p.device, '')::VARCHAR       AS device,                -- NPU:0, CPU, cuda:0 ...
    p.peak_allocated_bytes::BIGINT      AS peak_allocated_bytes,  -- highest Total Allocated, bytes; NULL if the source has none
    p.peak_reserved_bytes::BIGINT       AS peak_reserved_bytes,   -- highest Total Reserved, bytes; NULL if the source has none
    p.peak_active_bytes::BIGINT         AS peak_active_bytes,     -- highest Total Active, bytes; NULL if the source has none
    coalesce(p.reserved_peak_ts_ns, p.allocated_peak_ts_ns)::BIGINT
                                        AS ts_ns,                 -- first time the reserved peak (else the allocated peak) was reached, ns
    p.samples::BIGINT                   AS samples                -- samples or events counted
FROM peaks AS p
JOIN run AS r ON r.run_id = p.run_id
ORDER BY r.run_name, p.rank, p.source, p.component, p.device;
