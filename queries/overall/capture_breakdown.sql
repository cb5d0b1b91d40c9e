-- capture_breakdown — the whole capture of each rank split into computing, communication,
-- uncovered communication, copy and free time, as msprof-analyze compare's overall numbers.
-- Grain:     one row per (run, rank) with at least one device event.
--            Scope: whole capture (every step and the device events outside steps); per step:
--            step_breakdown; HTA's window: temporal_breakdown scope hta.
-- Source:    kernel (kernel_details.csv / trace_view.json tasks and HCCL ops, Kineto kernels,
--            memcpy and memset), classified by kernel_class_rule (tracedb_internal.capture_union).
-- Reference: msprof-analyze compare ProfilingInfo (analyses.md §2.1): E2E = last device event end −
--            first device event start over the whole capture (every step and the events outside
--            steps; NPU text path: the Overlap Analysis slices, GPU: kernel and gpu_memcpy events);
--            Computing = |U(computing kernels)|; Uncovered Communication = |U(comm) \ U(computing)|;
--            Free = E2E − Computing − Uncovered Communication (msprof-analyze also subtracts Lccl,
--            which tracedb counts in Computing). GPU: exact ns unions, where msprof-analyze counts
--            1 µs ticks (a tick t counts if floor(start) < t <= floor(end)), so its GPU numbers
--            differ by up to about 1 µs per interval. NPU: copies (SDMA / PCIE_DMA / MEMCPY_ASYNC
--            tasks) are clipped to the extent of computing and communication, as the Overlap
--            Analysis does not see them (an input copy before the first kernel does not lengthen
--            E2E). copy_ns = |U(copies) \ U(computing ∪ comm)| inside E2E, free_excl_copy_ns the
--            rest (overall_summary's SDMA row is msprof-analyze's sum over the compute streams
--            instead).
-- Units:     *_ns integer nanoseconds; *_count kernels, ops and copies; *_ratio 0–1 of e2e_ns.
CREATE OR REPLACE VIEW capture_breakdown AS
WITH sums AS (
    SELECT
        run_id, rank,
        sum(CASE WHEN kind = 'computing' THEN union_ns ELSE 0 END) AS computing_ns,
        sum(CASE WHEN kind = 'communication' THEN union_ns ELSE 0 END) AS communication_ns,
        sum(CASE WHEN kind = 'busy' THEN union_ns ELSE 0 END) AS busy_ns,
        sum(CASE WHEN kind = 'all' THEN union_ns ELSE 0 END) AS all_ns,
        min(CASE WHEN kind = 'all' THEN start_ns END) AS start_ns,
        max(CASE WHEN kind = 'all' THEN end_ns END) AS end_ns
    FROM tracedb_internal.capture_union
    WHERE kind IN ('computing', 'communication', 'busy', 'all')
    GROUP BY run_id, rank
),
counts AS (
    SELECT
        run_id, rank,
        sum(CASE WHEN NOT is_communication AND NOT is_copy THEN 1 ELSE 0 END) AS kernel_count,
        sum(CASE WHEN is_communication THEN 1 ELSE 0 END) AS communication_op_count,
        sum(CASE WHEN is_copy THEN 1 ELSE 0 END) AS copy_count
    FROM tracedb_internal.kernel_class
    GROUP BY run_id, rank
)
SELECT
    r.run_name::VARCHAR                                              AS run_name,                      -- run name
    s.rank::INTEGER                                                  AS rank,                          -- global rank
    s.computing_ns::BIGINT                                           AS computing_ns,                  -- Computing Time: union of computing kernels over the capture, ns
    s.communication_ns::BIGINT                                       AS communication_ns,              -- union of communication ops over the capture, ns
    (s.busy_ns - s.computing_ns)::BIGINT                             AS uncovered_communication_ns,    -- Uncovered Communication Time: communication not under computing, ns
    ((s.end_ns - s.start_ns) - s.busy_ns)::BIGINT                    AS free_ns,                       -- Free Time: E2E − Computing − Uncovered Communication, ns
    (s.all_ns - s.busy_ns)::BIGINT                                   AS copy_ns,                       -- copies (memcpy, memset, SDMA) not under computing or communication, ns; part of free_ns (msprof-analyze Free Time > SDMA)
    ((s.end_ns - s.start_ns) - s.all_ns)::BIGINT                     AS free_excl_copy_ns,             -- free_ns − copy_ns: no device event at all, ns (msprof-analyze Free Time > Free)
    (s.end_ns - s.start_ns)::BIGINT                                  AS e2e_ns,                        -- E2E Time: last device event end − first device event start, ns
    (s.communication_ns - (s.busy_ns - s.computing_ns))::BIGINT      AS overlapped_ns,                 -- communication under computing, ns
    s.start_ns::BIGINT                                               AS capture_start_ns,              -- first device event start, ns since the epoch
    s.end_ns::BIGINT                                                 AS capture_end_ns,                -- last device event end, ns since the epoch
    c.kernel_count::BIGINT                                           AS kernel_count,                  -- computing kernels
    c.communication_op_count::BIGINT                                 AS communication_op_count,        -- communication ops
    c.copy_count::BIGINT                                             AS copy_count,                    -- copies (all of the rank's, also NPU copies outside E2E)
    CASE WHEN s.end_ns > s.start_ns
         THEN (s.busy_ns - s.computing_ns)::DOUBLE / (s.end_ns - s.start_ns) END::DOUBLE
                                                                     AS uncovered_communication_ratio, -- uncovered_communication_ns / e2e_ns
    CASE WHEN s.end_ns > s.start_ns
         THEN ((s.end_ns - s.start_ns) - s.busy_ns)::DOUBLE / (s.end_ns - s.start_ns) END::DOUBLE
                                                                     AS free_ratio                     -- free_ns / e2e_ns
FROM sums AS s
JOIN counts AS c
    ON c.run_id = s.run_id AND c.rank = s.rank
JOIN run AS r
    ON r.run_id = s.run_id
ORDER BY r.run_name, s.rank;
