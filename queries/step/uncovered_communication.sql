-- uncovered_communication — how much of each communication op is not hidden behind computing.
-- Grain:     one row per communication op (HCCL op / NCCL kernel) of a (run, rank, step).
--            Scope: per step, steps of kernel.step (the ProfilerStep#N host window holding the
--            launch call, kernel_details.csv Step Id, else the host window holding the kernel;
--            temporal_breakdown.window_source names it per step).
-- Source:    kernel rows with is_communication (kernel_details.csv HCCL/COMMUNICATION rows,
--            trace_view.json HCCL op slices, Kineto nccl* kernels); computing islands.
-- Reference: CANN "Communication(Not Overlapped)" = U(comm) \ U(compute). Time that several
--            communication ops share is booked once, to the op that started first, so
--            Σ uncovered_ns per step = step_breakdown.communication_not_overlapped_ns exactly;
--            uncovered_self_ns ignores the other ops (dur_ns minus the op's overlap with computing).
-- Units:     *_ns integer nanoseconds; uncovered_ratio = uncovered_self_ns / dur_ns (0–1).
CREATE OR REPLACE VIEW uncovered_communication AS
SELECT
    r.run_name::VARCHAR                                            AS run_name,           -- run name
    x.rank::INTEGER                                                AS rank,               -- global rank
    x.step::INTEGER                                                AS step,               -- step number; NULL without steps
    x.name::VARCHAR                                                AS op_name,            -- communication op name (hcom_allReduce__868_0_1, ncclDevKernel_...)
    x.group_name::VARCHAR                                          AS group_name,         -- HCCL group; NULL if unknown
    x.start_ns::BIGINT                                             AS start_ns,           -- op start, ns since the epoch
    x.dur_ns::BIGINT                                               AS dur_ns,             -- op duration, ns
    CASE WHEN u.run_id IS NULL THEN x.booked_ns - x.booked_overlapped_ns END::BIGINT
                                                                   AS uncovered_ns,       -- part not overlapped by computing nor already booked to an earlier op, ns; NULL when computing is unknown (MindSpore step_trace_raw)
    CASE WHEN u.run_id IS NULL THEN x.dur_ns - x.self_overlapped_ns END::BIGINT
                                                                   AS uncovered_self_ns,  -- part of the op not overlapped by computing, ns; NULL when computing is unknown
    CASE WHEN u.run_id IS NULL THEN x.self_overlapped_ns END::BIGINT
                                                                   AS overlapped_ns,      -- part of the op overlapped by computing, ns; NULL when computing is unknown
    CASE WHEN x.dur_ns > 0 AND u.run_id IS NULL
         THEN (x.dur_ns - x.self_overlapped_ns)::DOUBLE / x.dur_ns END::DOUBLE AS uncovered_ratio     -- uncovered_self_ns / dur_ns (0–1); NULL for zero-length ops and unknown computing
FROM tracedb_internal.comm_booked AS x
JOIN run AS r
    ON r.run_id = x.run_id
LEFT JOIN tracedb_internal.comm_only_step AS u
    ON u.run_id = x.run_id AND u.rank = x.rank AND u.step = x.step
ORDER BY r.run_name, x.rank, x.step, x.start_ns;
