-- op_memory — one row per memory allocation of an operator, with its lifetime and the allocator
-- totals at the allocation.
-- Grain:     one row per operator_memory.csv row (NPU), and per positive Kineto [memory] event
--            (GPU), paired with the next event of the same Addr and device when that one is a free.
-- Source:    memory rows of kind operator (operator_memory.csv Name, Size(KB), Allocation/Release
--            Time(us), Duration(us), Allocation Total *(MB)) and kind event (Kineto [memory] Bytes,
--            Addr, Total Allocated/Reserved); step host windows (ProfilerStep#N).
-- Reference: msprof-analyze compare --enable_memory_compare (operator_memory.csv rows; GPU events
--            paired by Addr, unmatched allocations stay open).
-- Units:     size_bytes / *_bytes integer bytes (Size(KB) x 1024, MB = 1024^2 B); *_ts_ns integer
--            ns since the epoch; lifetime_ns integer ns.
CREATE OR REPLACE VIEW op_memory AS
WITH npu AS (
    SELECT
        run_id, rank, device, component, name AS op_name, size_bytes, ts_ns AS alloc_ts_ns,
        release_ts_ns, dur_ns AS lifetime_ns, allocated_bytes, reserved_bytes, active_bytes,
        'operator_memory' AS source
    FROM memory
    WHERE kind = 'operator'
),
gpu_events AS (
    SELECT
        run_id, rank, device, component, name, size_bytes, ts_ns, allocated_bytes, reserved_bytes,
        lead(size_bytes) OVER w AS next_size_bytes,
        lead(ts_ns) OVER w AS next_ts_ns
    FROM memory
    WHERE kind = 'event' AND addr IS NOT NULL
    WINDOW w AS (PARTITION BY run_id, rank, device, addr ORDER BY ts_ns, size_bytes DESC)
),
gpu AS (
    SELECT
        run_id, rank, device, component, name AS op_name, size_bytes, ts_ns AS alloc_ts_ns,
        CASE WHEN next_size_bytes < 0 THEN next_ts_ns END AS release_ts_ns,
        CASE WHEN next_size_bytes < 0 THEN next_ts_ns - ts_ns END AS lifetime_ns,
        allocated_bytes, reserved_bytes, NULL::BIGINT AS active_bytes,
        'kineto' AS source
    FROM gpu_events
    WHERE size_bytes > 0
),
allocations AS (
    SELECT * FROM npu
    UNION ALL
    SELECT * FROM gpu
)
SELECT
    r.run_name::VARCHAR           AS run_name,         -- run name
    a.rank::INTEGER               AS rank,             -- global rank
    s.step::INTEGER               AS step,             -- step whose ProfilerStep#N host window holds the allocation; NULL if none
    a.op_name::VARCHAR            AS op_name,          -- operator_memory.csv Name; Kineto: innermost cpu_op around the event (NULL if none)
    a.size_bytes::BIGINT          AS size_bytes,       -- allocation size, bytes (negative for CANN rows whose free only was captured)
    a.lifetime_ns::BIGINT         AS lifetime_ns,      -- release - allocation (operator_memory.csv Duration(us)), ns; NULL if still live
    a.allocated_bytes::BIGINT     AS allocated_bytes,  -- allocator Total Allocated right after the allocation, bytes
    a.reserved_bytes::BIGINT      AS reserved_bytes,   -- allocator Total Reserved right after the allocation, bytes
    a.active_bytes::BIGINT        AS active_bytes,     -- allocator Total Active right after the allocation, bytes; NULL if absent
    a.component::VARCHAR          AS component,        -- GE for cann:: rows, PTA (torch_npu) or MindSpore otherwise; PyTorch for Kineto
    a.device::VARCHAR             AS device,           -- device as written (NPU:0; Kineto CPU or CUDA:n)
    a.source::VARCHAR             AS source,           -- operator_memory (operator_memory.csv) or kineto ([memory] events)
    a.alloc_ts_ns::BIGINT         AS alloc_ts_ns,      -- allocation time, ns; NULL when the malloc was before the capture
    a.release_ts_ns::BIGINT       AS release_ts_ns     -- release time, ns; NULL when still live at the end of the capture
FROM allocations AS a
JOIN run AS r
    ON r.run_id = a.run_id
LEFT JOIN step AS s
    ON s.run_id = a.run_id AND s.rank = a.rank
    AND a.alloc_ts_ns >= s.host_start_ns AND a.alloc_ts_ns < s.host_end_ns
ORDER BY r.run_name, a.rank, a.alloc_ts_ns NULLS FIRST, a.op_name;
