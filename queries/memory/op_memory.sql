-- op_memory — every tensor allocation an op made: size, when, for how long.
-- Grain:     one row per operator_memory.csv row (one allocation/free pair).
-- Source:    memory rows of kind operator (operator_memory.csv Name, Size(KB), Allocation Time(us),
--            Release Time(us), Duration(us), Allocation Total Allocated/Reserved(MB)); step from
--            the ProfilerStep#N host window containing the allocation.
-- Reference: torch_npu operator_memory.csv (formats.md §7.1): release NULL = still live at the end
--            of the capture; a negative size = a CANN block whose allocation was not captured.
-- Units:     size_bytes bytes (KB = 1024 B); *_ts_ns, lifetime_ns integer ns.
CREATE OR REPLACE VIEW op_memory AS
SELECT
    r.run_name::VARCHAR                                      AS run_name,         -- run name
    m.rank::INTEGER                                          AS rank,             -- global rank
    s.step::INTEGER                                          AS step,             -- step whose ProfilerStep#N window holds the allocation; NULL outside steps
    m.name::VARCHAR                                          AS op_name,          -- op that owned the allocation (aten::empty_strided, cann::...)
    m.size_bytes::BIGINT                                     AS size_bytes,       -- Size(KB) x 1024, bytes; negative when only the free was captured
    m.ts_ns::BIGINT                                          AS alloc_ts_ns,      -- Allocation Time, ns; NULL when allocated before the capture
    m.release_ts_ns::BIGINT                                  AS release_ts_ns,    -- Release Time, ns; NULL when still live at the end
    coalesce(m.dur_ns, m.release_ts_ns - m.ts_ns)::BIGINT    AS lifetime_ns,      -- Duration(us) as ns (else release − allocation); NULL when either end is missing
    m.allocated_bytes::BIGINT                                AS allocated_bytes,  -- allocator Total Allocated at the allocation, bytes
    m.reserved_bytes::BIGINT                                 AS reserved_bytes,   -- allocator Total Reserved at the allocation, bytes
    m.device::VARCHAR                                        AS device            -- Device Type (NPU:0 ...)
FROM memory AS m
JOIN run AS r ON r.run_id = m.run_id
LEFT JOIN step AS s
    ON s.run_id = m.run_id AND s.rank = m.rank
   AND m.ts_ns >= s.host_start_ns AND m.ts_ns < s.host_end_ns
WHERE m.kind = 'operator'
ORDER BY r.run_name, m.rank, m.ts_ns NULLS FIRST;
