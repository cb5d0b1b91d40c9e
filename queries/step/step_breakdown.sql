-- step_breakdown — how each step of each rank splits into computing, communication and free time.
-- Grain:     one row per (run, rank, step); a rank without step markers gets one row for its
--            whole window with step NULL.
--            Scope: per step, steps of kernel.step (the ProfilerStep#N host window holding the
--            launch call, kernel_details.csv Step Id, else the host window holding the kernel;
--            temporal_breakdown.window_source names it per step); MindSpore step_trace_raw steps
--            keep that file's window. The step NULL row is a rank's whole capture (only for a rank
--            without steps).
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
--            Column order: keys, computing, uncovered communication, free and E2E first (the columns a
--            table fitted to the terminal keeps), details, then MindSpore's fp/bp/tail and communication
--            and free without copies last: the DuckDB shell shows a wide result's first and last
--            columns, so these are what it shows.
-- Method:    one sort of each step's kernels by start: a kernel adds to the union of its set
--            (computing, communication, both, all) the part of it after the latest end of the
--            set's kernels before it (touching intervals merge); Overlapped = |U(comm)| +
--            |U(computing)| − |U(computing ∪ comm)|. Same numbers as the islands of
--            tracedb_internal.kernel_island and comm_booked, without building them.
-- Units:     *_ns integer nanoseconds; *_count kernels and ops; computing + not overlapped + free = stage + bubble.
CREATE OR REPLACE VIEW step_breakdown AS
WITH ordered AS (
    -- the step's kernels in start order, each with the latest end of the computing kernels, of
    -- the communication ops and of the copies before it: one sort of the step's kernels gives
    -- every union below (a kernel adds the part of it beyond the latest end of its set before it;
    -- computing ∪ communication ends at the later of the two, all kernels at the latest of three)
    SELECT
        run_id, rank, step, start_ns, end_ns, is_communication, is_copy,
        NOT is_communication AND NOT is_copy AS is_computing,
        CASE WHEN is_communication AND (lower(name) LIKE 'hcom_receive%' OR name LIKE '%Receive-op%')
             THEN dur_ns ELSE 0 END AS receive_ns,
        max(CASE WHEN NOT is_communication AND NOT is_copy THEN end_ns END) OVER w AS computing_end_ns,
        max(CASE WHEN is_communication THEN end_ns END) OVER w AS communication_end_ns,
        max(CASE WHEN is_copy THEN end_ns END) OVER w AS copy_end_ns
    FROM tracedb_internal.step_kernel
    WINDOW w AS (PARTITION BY run_id, rank, step ORDER BY start_ns, end_ns, kernel_id
                 ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING)
),
kernel_span AS (
    -- per step: first kernel start, last kernel end, kernel counts, and the lengths of the unions
    -- |U(computing)|, |U(communication)|, |U(computing ∪ communication)| and |U(all, copies too)|
    SELECT run_id, rank, step, min(start_ns) AS start_ns, max(end_ns) AS end_ns,
           sum(CASE WHEN is_copy THEN 0 ELSE 1 END) AS kernel_count,
           sum(CASE WHEN is_communication THEN 1 ELSE 0 END) AS communication_op_count,
           sum(CASE WHEN is_copy THEN 1 ELSE 0 END) AS copy_count,
           sum(receive_ns) AS bubble_ns,
           sum(CASE WHEN is_computing THEN 1 ELSE 0 END) AS computing_kernel_count,
           sum(CASE WHEN is_computing
                    THEN greatest(end_ns - greatest(start_ns, coalesce(computing_end_ns, start_ns)), 0) ELSE 0 END)
               AS computing_ns,
           sum(CASE WHEN is_communication
                    THEN greatest(end_ns - greatest(start_ns, coalesce(communication_end_ns, start_ns)), 0) ELSE 0 END)
               AS communication_ns,
           sum(CASE WHEN NOT is_copy
                    THEN greatest(end_ns - greatest(start_ns, coalesce(computing_end_ns, start_ns),
                                                    coalesce(communication_end_ns, start_ns)), 0) ELSE 0 END)
               AS busy_ns,
           sum(greatest(end_ns - greatest(start_ns, coalesce(computing_end_ns, start_ns),
                                          coalesce(communication_end_ns, start_ns), coalesce(copy_end_ns, start_ns)), 0))
               AS all_ns
    FROM ordered
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
        m.fp_ns, m.bp_ns,
        -- computing is unknown in a MindSpore step_trace_raw step without computing kernels
        -- (communication intervals only), as in free_time and uncovered_communication
        -- (tracedb_internal.comm_only_step)
        m.run_id IS NULL OR coalesce(w.computing_kernel_count, 0) > 0 AS has_computing,
        coalesce(w.computing_ns, 0) AS computing_ns,
        coalesce(w.communication_ns, 0) AS communication_ns,
        -- |U(comm) ∩ U(computing)| = |U(comm)| + |U(computing)| − |U(computing ∪ comm)|
        coalesce(w.communication_ns + w.computing_ns - w.busy_ns, 0) AS overlapped_ns,
        -- copies outside computing and communication: |U(all)| − |U(computing ∪ communication)|
        coalesce(w.all_ns - w.busy_ns, 0) AS copy_ns
    FROM kernel_span AS w
    FULL OUTER JOIN mindspore_step AS m
        ON m.run_id = w.run_id AND m.rank = w.rank AND m.step = w.step
),
first_host_op AS (
    -- the first framework op of each rank without steps (the only rows that use it: the event
    -- table is read only for them)
    SELECT e.run_id, e.rank, min(e.ts_ns) AS ts_ns
    FROM event AS e
    JOIN (SELECT DISTINCT run_id, rank FROM step_window WHERE step IS NULL) AS n
        ON n.run_id = e.run_id AND n.rank = e.rank
    WHERE e.ph = 'X' AND lower(e.cat) IN ('cpu_op', 'operator')
    GROUP BY e.run_id, e.rank
),
parts AS (
    SELECT
        w.*,
        coalesce(s.host_start_ns, CASE WHEN w.step IS NULL THEN f.ts_ns END) AS host_start_ns
    FROM step_window AS w
    LEFT JOIN step AS s
        ON s.run_id = w.run_id AND s.rank = w.rank AND s.step = w.step
    LEFT JOIN first_host_op AS f
        ON f.run_id = w.run_id AND f.rank = w.rank
)
SELECT
    r.run_name::VARCHAR                                                 AS run_name,                                         -- run name (run.run_name)
    p.rank::INTEGER                                                     AS rank,                                             -- global rank
    p.step::INTEGER                                                     AS step,                                             -- step number N of ProfilerStep#N (MindSpore: step_num); NULL = whole capture without steps
    CASE WHEN p.has_computing THEN p.computing_ns END::BIGINT           AS computing_ns,                                     -- Computing: union of computing kernels, ns; NULL when only communication intervals are known (MindSpore step_trace_raw)
    CASE WHEN p.has_computing THEN p.communication_ns - p.overlapped_ns END::BIGINT
                                                                        AS communication_not_overlapped_ns,                  -- Communication(Not Overlapped): communication not covered by computing, ns; NULL without computing kernels
    CASE WHEN p.has_computing
         THEN (p.end_ns - p.start_ns) - (p.computing_ns + p.communication_ns - p.overlapped_ns) END::BIGINT
                                                                        AS free_ns,                                          -- Free: step span with neither computing nor communication, ns; NULL without computing kernels
    (p.end_ns - p.start_ns)::BIGINT                                     AS e2e_ns,                                           -- E2E time of the step: step_end_ns − step_start_ns (MindSpore: end_point − start_point), ns
    CASE WHEN p.has_computing THEN p.overlapped_ns END::BIGINT          AS overlapped_ns,                                    -- Overlapped: communication covered by computing, ns; NULL without computing kernels
    CASE WHEN p.has_computing THEN p.copy_ns END::BIGINT              AS copy_ns,                                          -- Copy: union of copies (Kineto memcpy / memset, NPU SDMA tasks) not under computing or communication, ns; part of free_ns; NULL without computing kernels
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
    (p.end_ns - p.bp_ns)::BIGINT                                        AS tail_ns,                                          -- MindSpore tail: end_point − bp_point (after backward: gradient update ...), ns; NULL for other runs
    p.communication_ns::BIGINT                                          AS communication_ns,                                 -- Communication: union of communication ops, ns
    CASE WHEN p.has_computing
         THEN (p.end_ns - p.start_ns) - (p.computing_ns + p.communication_ns - p.overlapped_ns) - p.copy_ns END::BIGINT
                                                                        AS free_excl_copy_ns                                 -- Free without copies: step span with no kernel, communication op nor copy, ns; free_ns = copy_ns + free_excl_copy_ns
FROM parts AS p
JOIN run AS r
    ON r.run_id = p.run_id
ORDER BY r.run_name, p.rank, p.step;
