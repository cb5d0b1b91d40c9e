-- step_breakdown — how each step of each rank splits into computing, communication and free time.
-- Grain:     one row per (run, rank, step); a rank without step markers gets one row for its
--            whole window with step NULL.
-- Source:    kernel (kernel_details.csv "Start Time(us)"/"Duration(us)"/"Accelerator Core",
--            trace_view.json Ascend Hardware/HCCL slices, Kineto kernel events, MindSpore
--            step_trace_raw comm-op columns); step (ProfilerStep#N host window; MindSpore
--            step_trace_raw points); event (first framework op, for runs without steps).
-- Reference: torch_npu step_trace_time.csv (analyses.md §1.1–1.2), recomputed from kernel
--            intervals, never copied from "Overlap Analysis" slices: Computing = |U(compute)|,
--            Communication = |U(comm ops)|, Not Overlapped = |U(comm) \ U(compute)|,
--            Overlapped = Communication − Not Overlapped, Free = step span − |U(all)|,
--            Bubble = Σ dur of hcom_receive* ops (MindSpore: *Receive-op*), Stage = span − Bubble, Exclude Receive =
--            max(Not Overlapped − Bubble, 0), Preparing = first kernel start − ProfilerStep#N
--            host start. Kernels belong to the step of kernel.step (by kernel start, no
--            clipping). GPU runs: NCCL kernels are communication (msprof-analyze GPU path,
--            without its 1 µs quantisation). MindSpore step_trace_raw runs (analyses.md §1.5):
--            the step is [start_point, end_point) × 10 ns, iteration_interval = fp − start,
--            fp_and_bp = bp − fp, tail = end − bp; its comm-op columns are the communication
--            intervals; computing, overlap and free are NULL unless computing kernels are known.
--            Copies: memcpy / memset (Kineto) and SDMA rows (kernel_class_rule categories Memcpy, Memset,
--            SDMA) are neither computing nor communication; they widen the step window (first to
--            last device event) and copy_ns = |U(copies) \ U(computing ∪ communication)| is the
--            part of free_ns they fill (msprof-analyze's Free Time splits into SDMA and Free alike).
--            Column order: keys; headline numbers (computing, communication, uncovered communication, free,
--            copy); details; MindSpore fp/bp last.
-- Units:     *_ns integer nanoseconds; *_count kernels and ops; computing + not overlapped + free = stage + bubble.
CREATE OR REPLACE VIEW step_breakdown AS
WITH kernel_span AS (
    -- first kernel start, last kernel end and kernel counts of each step
    SELECT run_id, rank, step, min(start_ns) AS start_ns, max(end_ns) AS end_ns,
           sum(CASE WHEN is_copy THEN 0 ELSE 1 END) AS kernel_count,
           sum(CASE WHEN is_communication THEN 1 ELSE 0 END) AS communication_op_count,
           sum(CASE WHEN is_copy THEN 1 ELSE 0 END) AS copy_count,
           sum(CASE WHEN is_communication AND (lower(name) LIKE 'hcom_receive%' OR name LIKE '%Receive-op%')
                    THEN dur_ns ELSE 0 END)
               AS bubble_ns
    FROM tracedb_internal.step_kernel
    GROUP BY run_id, rank, step
),
computing AS (
    SELECT run_id, rank, step, sum(end_ns - start_ns) AS computing_ns
    FROM tracedb_internal.compute_island
    GROUP BY run_id, rank, step
),
copy AS (
    -- copies not under computing or communication: |U(all)| - |U(computing ∪ communication)|
    SELECT run_id, rank, step,
           sum(CASE WHEN kind = 'all' THEN end_ns - start_ns ELSE start_ns - end_ns END) AS copy_ns
    FROM tracedb_internal.kernel_island
    WHERE kind IN ('all', 'busy')
    GROUP BY run_id, rank, step
),
communication AS (
    SELECT run_id, rank, step,
           sum(booked_ns) AS communication_ns,
           sum(booked_overlapped_ns) AS overlapped_ns
    FROM tracedb_internal.comm_booked
    GROUP BY run_id, rank, step
),
mindspore_step AS (
    -- MindSpore step_trace_raw points: the step window and fp/bp
    SELECT run_id, rank, step, device_start_ns, device_end_ns, fp_ns, bp_ns
    FROM step
    WHERE fp_ns IS NOT NULL OR bp_ns IS NOT NULL
),
step_window AS (
    -- the step window: the kernel span, or the MindSpore step_trace_raw window when there is one
    SELECT
        coalesce(w.run_id, m.run_id) AS run_id,
        coalesce(w.rank, m.rank) AS rank,
        coalesce(w.step, m.step) AS step,
        coalesce(m.device_start_ns, w.start_ns) AS start_ns,
        coalesce(m.device_end_ns, w.end_ns) AS end_ns,
        coalesce(w.kernel_count, 0) AS kernel_count,
        coalesce(w.communication_op_count, 0) AS communication_op_count,
        coalesce(w.copy_count, 0) AS copy_count,
        coalesce(w.bubble_ns, 0) AS bubble_ns,
        m.fp_ns, m.bp_ns
    FROM kernel_span AS w
    FULL OUTER JOIN mindspore_step AS m
        ON m.run_id = w.run_id AND m.rank = w.rank AND m.step = w.step
),
first_host_op AS (
    SELECT run_id, rank, min(ts_ns) AS ts_ns
    FROM event
    WHERE ph = 'X' AND lower(cat) IN ('cpu_op', 'operator')
    GROUP BY run_id, rank
),
parts AS (
    SELECT
        w.run_id, w.rank, w.step, w.start_ns, w.end_ns, w.kernel_count, w.communication_op_count,
        w.copy_count, w.bubble_ns, w.fp_ns, w.bp_ns,
        -- computing is unknown in a MindSpore step_trace_raw step without computing kernels
        -- (communication intervals only), as in free_time and uncovered_communication
        u.run_id IS NULL AS has_computing,
        coalesce(c.computing_ns, 0) AS computing_ns,
        coalesce(m.communication_ns, 0) AS communication_ns,
        coalesce(m.overlapped_ns, 0) AS overlapped_ns,
        coalesce(y.copy_ns, 0) AS copy_ns,
        coalesce(s.host_start_ns, CASE WHEN w.step IS NULL THEN f.ts_ns END) AS host_start_ns
    FROM step_window AS w
    LEFT JOIN computing AS c
        ON c.run_id = w.run_id AND c.rank = w.rank AND c.step IS NOT DISTINCT FROM w.step
    LEFT JOIN communication AS m
        ON m.run_id = w.run_id AND m.rank = w.rank AND m.step IS NOT DISTINCT FROM w.step
    LEFT JOIN copy AS y
        ON y.run_id = w.run_id AND y.rank = w.rank AND y.step IS NOT DISTINCT FROM w.step
    LEFT JOIN step AS s
        ON s.run_id = w.run_id AND s.rank = w.rank AND s.step = w.step
    LEFT JOIN first_host_op AS f
        ON f.run_id = w.run_id AND f.rank = w.rank
    LEFT JOIN tracedb_internal.comm_only_step AS u
        ON u.run_id = w.run_id AND u.rank = w.rank AND u.step = w.step
)
SELECT
    r.run_name::VARCHAR                                                 AS run_name,                                         -- run name (run.run_name)
    p.rank::INTEGER                                                     AS rank,                                             -- global rank
    p.step::INTEGER                                                     AS step,                                             -- step number N of ProfilerStep#N (MindSpore: step_num); NULL = whole capture without steps
    CASE WHEN p.has_computing THEN p.computing_ns END::BIGINT           AS computing_ns,                                     -- Computing: union of computing kernels, ns; NULL when only communication intervals are known (MindSpore step_trace_raw)
    p.communication_ns::BIGINT                                          AS communication_ns,                                 -- Communication: union of communication ops, ns
    CASE WHEN p.has_computing THEN p.communication_ns - p.overlapped_ns END::BIGINT
                                                                        AS communication_not_overlapped_ns,                  -- Communication(Not Overlapped): communication not covered by computing, ns; NULL without computing kernels
    CASE WHEN p.has_computing
         THEN (p.end_ns - p.start_ns) - (p.computing_ns + p.communication_ns - p.overlapped_ns) END::BIGINT
                                                                        AS free_ns,                                          -- Free: step span with neither computing nor communication, ns; NULL without computing kernels
    CASE WHEN p.has_computing THEN p.copy_ns END::BIGINT              AS copy_ns,                                          -- Copy: union of copies (Kineto memcpy / memset, NPU SDMA tasks) not under computing or communication, ns; part of free_ns; NULL without computing kernels
    CASE WHEN p.has_computing
         THEN (p.end_ns - p.start_ns) - (p.computing_ns + p.communication_ns - p.overlapped_ns) - p.copy_ns END::BIGINT
                                                                        AS free_excl_copy_ns,                                -- Free without copies: step span with no kernel, communication op nor copy, ns; free_ns = copy_ns + free_excl_copy_ns
    (p.end_ns - p.start_ns)::BIGINT                                     AS e2e_ns,                                           -- E2E time of the step: step_end_ns − step_start_ns (MindSpore: end_point − start_point), ns
    CASE WHEN p.has_computing THEN p.overlapped_ns END::BIGINT          AS overlapped_ns,                                    -- Overlapped: communication covered by computing, ns; NULL without computing kernels
    p.bubble_ns::BIGINT                                                 AS bubble_ns,                                        -- Bubble: total duration of hcom_receive* (MindSpore Receive-op*) ops (pipeline wait), ns
    CASE WHEN p.has_computing
         THEN greatest(p.communication_ns - p.overlapped_ns - p.bubble_ns, 0) END::BIGINT
                                                                        AS communication_not_overlapped_exclude_receive_ns,  -- Communication(Not Overlapped and Exclude Receive), ns
    ((p.end_ns - p.start_ns) - p.bubble_ns)::BIGINT                     AS stage_ns,                                         -- Stage: step span minus Bubble, ns
    (p.start_ns - p.host_start_ns)::BIGINT                              AS preparing_ns,                                     -- Preparing: first kernel start minus ProfilerStep#N host start, ns (NULL without a host step)
    p.start_ns::BIGINT                                                  AS step_start_ns,                                    -- first device event (kernel, communication op or copy) start of the step, ns since the epoch; MindSpore: start_point x 10 ns (device counter)
    p.end_ns::BIGINT                                                    AS step_end_ns,                                      -- last device event (kernel, communication op or copy) end of the step, ns since the epoch; MindSpore: end_point x 10 ns (device counter)
    p.kernel_count::BIGINT                                              AS kernel_count,                                     -- kernels and communication ops in the step
    p.communication_op_count::BIGINT                                    AS communication_op_count,                           -- communication ops in the step
    p.copy_count::BIGINT                                                AS copy_count,                                       -- copies (memcpy / memset / SDMA rows) in the step
    (p.fp_ns - p.start_ns)::BIGINT                                      AS iteration_interval_ns,                            -- MindSpore iteration_interval: fp_point − start_point (data/host wait), ns; NULL for other runs
    (p.bp_ns - p.fp_ns)::BIGINT                                         AS fp_and_bp_ns,                                     -- MindSpore fp_and_bp: bp_point − fp_point (forward + backward), ns; NULL for other runs
    (p.end_ns - p.bp_ns)::BIGINT                                        AS tail_ns                                           -- MindSpore tail: end_point − bp_point (after backward: gradient update ...), ns; NULL for other runs
FROM parts AS p
JOIN run AS r
    ON r.run_id = p.run_id
ORDER BY r.run_name, p.rank, p.step;
