-- temporal_breakdown — HolisticTraceAnalysis's temporal breakdown (device time split into idle,
-- compute and non-compute) per step, for the whole capture, and over HTA's own window.
-- Grain:     one row per (run, rank, scope, step). scope 'step': one row per step with device
--            events (step NOT NULL; the step's events are those of kernel.step, see
--            window_source); scope 'capture': one row per (run, rank), the whole capture (every
--            device event, inside a step or not: the extent of capture_breakdown); scope 'hta':
--            one row per Kineto (run, rank), HTA's own window (the events HTA keeps: launched
--            before the last ProfilerStep#N starts, the kernels before the first step included).
-- Source:    step_breakdown (scope step), capture_breakdown (scope capture): kernel rows
--            (Kineto kernel / gpu_memcpy / gpu_memset, NPU tasks, HCCL ops) classified by
--            kernel_class_rule; tracedb_internal.hta_gpu_event (scope hta: Kineto kernels and
--            copies, stream_event rows, step host and GPU-side windows).
-- Reference: HolisticTraceAnalysis 0.6.1 get_temporal_breakdown (BreakdownAnalysis
--            ._get_idle_time_for_kernels): over a set G of device events, kernel_time = last end −
--            first start; idle = kernel_time − |U(G)|; compute = |U(COMPUTATION events)|;
--            non_compute = kernel_time − compute − idle (communication, copies and other device
--            time not under compute). Its percentages are round(100 × *_ratio, 2). HTA reports one
--            row per rank over its window: scope 'hta' is that row at exact ns (HTA run with
--            HTA_DISABLE_NS_ROUNDING=1; as shipped it ceils each start and floors each end to the
--            µs): G = every GPU event on a stream, kernels, copies and stream_event rows (Stream
--            Sync ...), in HTA's window, compute by HTA's name patterns
--            (tracedb_internal.hta_gpu_event has both rules). HTA has no per-step breakdown;
--            scopes 'step' and 'capture' apply its formula with tracedb's own rules: G = kernel
--            rows (kernels, communication ops, copies; NPU copies clipped as in step_breakdown /
--            capture_breakdown), compute = computing kernels by kernel_class_rule (neither
--            communication nor copy). So per step: idle_ns = step_breakdown.free_excl_copy_ns,
--            compute_ns = computing_ns, kernel_time_ns = e2e_ns; whole capture: the same columns
--            of capture_breakdown. The 'capture' row differs from 'hta' by the last step's kernels
--            (HTA drops those launched after the cut), by kernels whose launch call is not in the
--            trace (HTA drops them) and by sync records (tracedb's kernel rows do not hold them);
--            the 'step' rows leave out the kernels launched outside every step. MindSpore
--            step_trace_raw steps keep that file's window (kernel_time_ns = its end − start).
-- Units:     *_ns integer nanoseconds (*_start_ns, *_end_ns, hta_cut_ns since the epoch); *_ratio
--            0–1 of kernel_time_ns; event_count device events counted.
CREATE OR REPLACE VIEW temporal_breakdown AS
WITH kernel_step_source AS (
    -- how each kernel got its step (derive/020, 030, 035, 040, readers/nsys.py, ascend_db.py)
    SELECT
        k.run_id, k.rank, k.step,
        CASE WHEN k.source = 'step_trace_raw' THEN 'step_trace_raw'
             WHEN k.source = 'mindspore_timeline' THEN 'step_point'
             WHEN k.source = 'kernel_details' AND d.step IS NOT NULL THEN 'step_id'
             WHEN k.source IN ('kineto', 'nsys', 'ascend_db')
                  AND k.launch_ts_ns >= s.host_start_ns AND k.launch_ts_ns < s.host_end_ns THEN 'launch'
             ELSE 'host_window' END AS label
    FROM kernel AS k
    LEFT JOIN step AS s
        ON s.run_id = k.run_id AND s.rank = k.rank AND s.step = k.step
    LEFT JOIN kernel_details_raw AS d
        ON k.source = 'kernel_details' AND d.run_id = k.run_id AND d.rank = k.rank AND d.file_id = k.file_id
       AND d.kernel_id = k.kernel_id
    WHERE k.step IS NOT NULL
),
step_source AS (
    SELECT run_id, rank, step, string_agg(label, '+' ORDER BY label) AS window_source
    FROM (SELECT DISTINCT run_id, rank, step, label FROM kernel_step_source) AS l
    GROUP BY run_id, rank, step
),
step_file_rank AS (
    -- MindSpore ranks whose steps are step_trace_raw windows (step_breakdown keeps them)
    SELECT DISTINCT run_id, rank
    FROM step_trace_raw_row
),
step_rows AS (
    SELECT
        b.run_name, b.rank, 'step' AS scope, b.step,
        b.free_excl_copy_ns AS idle_ns,
        b.computing_ns AS compute_ns,
        b.e2e_ns - b.computing_ns - b.free_excl_copy_ns AS non_compute_ns,
        b.e2e_ns AS kernel_time_ns,
        b.step_start_ns AS window_start_ns, b.step_end_ns AS window_end_ns,
        CASE WHEN f.run_id IS NOT NULL THEN 'step_trace_raw' ELSE coalesce(ss.window_source, 'host_window') END
            AS window_source,
        b.kernel_count + b.copy_count AS event_count,
        s.host_start_ns, s.host_end_ns, s.gpu_start_ns, s.gpu_end_ns,
        CAST(NULL AS BIGINT) AS hta_cut_ns
    FROM step_breakdown AS b
    JOIN run AS r
        ON r.run_name = b.run_name
    LEFT JOIN step AS s
        ON s.run_id = r.run_id AND s.rank = b.rank AND s.step = b.step
    LEFT JOIN step_source AS ss
        ON ss.run_id = r.run_id AND ss.rank = b.rank AND ss.step = b.step
    LEFT JOIN step_file_rank AS f
        ON f.run_id = r.run_id AND f.rank = b.rank
    WHERE b.step IS NOT NULL
),
capture_rows AS (
    SELECT
        run_name, rank, 'capture' AS scope, CAST(NULL AS INTEGER) AS step,
        free_excl_copy_ns AS idle_ns,
        computing_ns AS compute_ns,
        e2e_ns - computing_ns - free_excl_copy_ns AS non_compute_ns,
        e2e_ns AS kernel_time_ns,
        capture_start_ns AS window_start_ns, capture_end_ns AS window_end_ns,
        'all_events' AS window_source,
        kernel_count + communication_op_count + copy_count AS event_count,
        CAST(NULL AS BIGINT) AS host_start_ns, CAST(NULL AS BIGINT) AS host_end_ns,
        CAST(NULL AS BIGINT) AS gpu_start_ns, CAST(NULL AS BIGINT) AS gpu_end_ns,
        CAST(NULL AS BIGINT) AS hta_cut_ns
    FROM capture_breakdown
),
hta_ordered AS (
    -- HTA's window in start order, with the latest end before each event of all events and of
    -- the COMPUTATION events: a member adds to a union the part of it after that end
    SELECT
        run_id, rank, ts_ns, end_ns, kernel_type = 'COMPUTATION' AS is_compute, cut_ns, cut_source,
        max(end_ns) OVER w AS all_end_ns,
        max(CASE WHEN kernel_type = 'COMPUTATION' THEN end_ns END) OVER w AS compute_end_ns
    FROM tracedb_internal.hta_gpu_event
    WHERE in_window
    WINDOW w AS (PARTITION BY run_id, rank ORDER BY ts_ns, kernel_id ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING)
),
hta_union AS (
    SELECT
        run_id, rank, min(ts_ns) AS start_ns, max(end_ns) AS end_ns, count(*) AS event_count,
        any_value(cut_ns) AS cut_ns, any_value(cut_source) AS cut_source,
        sum(greatest(end_ns - greatest(ts_ns, coalesce(all_end_ns, ts_ns)), 0)) AS busy_ns,
        sum(CASE WHEN is_compute
                 THEN greatest(end_ns - greatest(ts_ns, coalesce(compute_end_ns, ts_ns)), 0) ELSE 0 END) AS compute_ns
    FROM hta_ordered
    GROUP BY run_id, rank
),
hta_rows AS (
    SELECT
        r.run_name, u.rank, 'hta' AS scope, CAST(NULL AS INTEGER) AS step,
        (u.end_ns - u.start_ns) - u.busy_ns AS idle_ns,
        u.compute_ns,
        u.busy_ns - u.compute_ns AS non_compute_ns,
        u.end_ns - u.start_ns AS kernel_time_ns,
        u.start_ns AS window_start_ns, u.end_ns AS window_end_ns,
        CASE u.cut_source WHEN 'gpu_annotation' THEN 'launch_before_last_gpu_step'
                          WHEN 'host_step' THEN 'launch_before_last_host_step'
                          ELSE 'all_events' END AS window_source,
        u.event_count,
        CAST(NULL AS BIGINT) AS host_start_ns, CAST(NULL AS BIGINT) AS host_end_ns,
        CAST(NULL AS BIGINT) AS gpu_start_ns, CAST(NULL AS BIGINT) AS gpu_end_ns,
        u.cut_ns AS hta_cut_ns
    FROM hta_union AS u
    JOIN run AS r
        ON r.run_id = u.run_id
),
all_rows AS (
    SELECT * FROM step_rows
    UNION ALL
    SELECT * FROM capture_rows
    UNION ALL
    SELECT * FROM hta_rows
)
SELECT
    run_name::VARCHAR                                   AS run_name,           -- run name
    rank::INTEGER                                       AS rank,               -- global rank
    scope::VARCHAR                                      AS scope,              -- step (one step), capture (whole capture, every device event) or hta (HTA's window, HTA's rules)
    step::INTEGER                                       AS step,               -- step number N of ProfilerStep#N; NULL for scopes capture and hta
    idle_ns::BIGINT                                     AS idle_ns,            -- idle: kernel_time_ns minus the union of the device events, ns (HTA idle_time)
    compute_ns::BIGINT                                  AS compute_ns,         -- compute: union of the computing kernels, ns (HTA compute_time); NULL where computing is unknown (MindSpore step_trace_raw steps without computing kernels)
    non_compute_ns::BIGINT                              AS non_compute_ns,     -- non-compute: kernel_time_ns − compute_ns − idle_ns: communication, copies and other device time not under compute, ns (HTA non_compute_time)
    kernel_time_ns::BIGINT                              AS kernel_time_ns,     -- window_end_ns − window_start_ns, ns (HTA kernel_time)
    CASE WHEN kernel_time_ns > 0 THEN idle_ns::DOUBLE / kernel_time_ns END::DOUBLE
                                                        AS idle_ratio,         -- idle_ns / kernel_time_ns (HTA idle_time_pctg = round(100 × this, 2))
    CASE WHEN kernel_time_ns > 0 THEN compute_ns::DOUBLE / kernel_time_ns END::DOUBLE
                                                        AS compute_ratio,      -- compute_ns / kernel_time_ns (HTA compute_time_pctg = round(100 × this, 2))
    CASE WHEN kernel_time_ns > 0 THEN non_compute_ns::DOUBLE / kernel_time_ns END::DOUBLE
                                                        AS non_compute_ratio,  -- non_compute_ns / kernel_time_ns (HTA non_compute_time_pctg = round(100 × this, 2))
    window_start_ns::BIGINT                             AS window_start_ns,    -- first device event start of the scope, ns since the epoch (MindSpore step_trace_raw: start_point)
    window_end_ns::BIGINT                               AS window_end_ns,      -- last device event end of the scope, ns since the epoch (MindSpore step_trace_raw: end_point)
    window_source::VARCHAR                              AS window_source,      -- what chose the events: step rows launch (launch call in the ProfilerStep#N host window), host_window (kernel start in it), step_id (kernel_details.csv Step Id), step_point (MindSpore fp/bp ops), step_trace_raw (MindSpore step file window), '+'-joined when a step mixes; capture all_events; hta launch_before_last_gpu_step / launch_before_last_host_step (HTA's cut, see hta_cut_ns) or all_events (no cut)
    event_count::BIGINT                                 AS event_count,        -- device events counted (kernels, communication ops, copies; scope hta: and stream_event rows)
    host_start_ns::BIGINT                               AS host_start_ns,      -- scope step: ProfilerStep#N host slice start (step.host_start_ns), ns since the epoch; NULL otherwise
    host_end_ns::BIGINT                                 AS host_end_ns,        -- scope step: ProfilerStep#N host slice end, ns since the epoch; NULL otherwise
    gpu_start_ns::BIGINT                                AS gpu_start_ns,       -- scope step: GPU-side ProfilerStep#N annotation start (step.gpu_start_ns), ns since the epoch; NULL otherwise or without one
    gpu_end_ns::BIGINT                                  AS gpu_end_ns,         -- scope step: GPU-side ProfilerStep#N annotation end, ns since the epoch; NULL otherwise or without one
    hta_cut_ns::BIGINT                                  AS hta_cut_ns          -- scope hta: HTA keeps the events launched before this (start of the rank's last ProfilerStep#N, host or GPU-side, the later), ns since the epoch; NULL = no cut (fewer than two ProfilerStep#N names)
FROM all_rows
ORDER BY run_name, rank, CASE scope WHEN 'step' THEN 0 WHEN 'capture' THEN 1 ELSE 2 END, step;
