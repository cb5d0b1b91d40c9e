-- idle_interval_with — every interval in which a stream of the device is idle between two of its
-- kernels, with its cause, for a chosen kernel-wait threshold.
-- Grain:     one row per kernel (or copy, or communication op) that starts after the end of the
--            kernel before it on the same (run, rank, stream): the gap between them. The step is
--            the step of the kernel after the gap (the one the device waited for); a gap across
--            a step boundary belongs to the later step.
--            Scope: whole capture; step is the kernel.step of the kernel after the gap.
-- Source:    kernel (ts_ns, dur_ns, stream_id, step; launch_name / launch_ts_ns: Kineto runtime
--            call with the kernel's correlation id, NPU CANN launch at the start of the
--            HostToDevice / async_npu flow).
-- Reference: HolisticTraceAnalysis get_idle_time_breakdown (BreakdownAnalysis
--            ._analyze_idle_time_for_stream), on exact integer ns instead of HTA's whole µs
--            (HTA ceils each start and floors each end to the µs, which widens every gap by up
--            to 2 µs): kernels of a stream in start order; gap = start − end of the previous
--            kernel; host_wait when the kernel's launch call started after the previous kernel
--            ended (launch_ts_ns > previous end: the device waited for the host); else
--            kernel_wait when the gap is shorter than kernel_wait_threshold_ns (HTA
--            consecutive_kernel_delay, default 30 µs: the cost of launching back-to-back
--            kernels); else other (e.g. waiting for an event of another stream). A kernel
--            without a known launch call is never host_wait (as in HTA). HTA's kernel set is
--            cat kernel / gpu_memcpy / gpu_memset: copies count here too. Differences from HTA:
--            every step is kept (HTA drops the kernels launched in the last ProfilerStep); a
--            kernel starting at or before the previous end leaves no row (HTA adds such
--            negative or zero "gaps" to its sums); AMD kernels on stream 0 and NPU streams are
--            treated like any stream. NPU: the same rule from kernel.launch_* (CANN launch
--            call); msprof-analyze's free_analysis rules (device-wide free intervals, reason
--            from the framework op → launch wait on both sides) are the free_analysis view.
-- Units:     *_ns integer nanoseconds (start_ns, end_ns, launch_ts_ns since the epoch).
-- Parameters: kernel_wait_threshold_ns — gaps shorter than this (and not host waits) are
--            kernel_wait; HTA's default is 30 µs = 30000 (idle_interval uses it).
-- Browse:    idle_interval(30000) ORDER BY run_name, rank, stream_id, start_ns — at HTA's default kernel-wait threshold, 30 µs
CREATE OR REPLACE MACRO idle_interval_with(kernel_wait_threshold_ns) AS TABLE
WITH ordered AS (
    SELECT
        run_id, rank, step, stream_id, kernel_id, name, ts_ns, dur_ns, launch_name, launch_tid, launch_ts_ns,
        lag(ts_ns + dur_ns) OVER (PARTITION BY run_id, rank, stream_id ORDER BY ts_ns, kernel_id) AS previous_end_ns,
        lag(name) OVER (PARTITION BY run_id, rank, stream_id ORDER BY ts_ns, kernel_id) AS previous_name
    FROM kernel
),
gap AS (
    SELECT
        *,
        ts_ns - previous_end_ns AS gap_ns,
        coalesce(launch_ts_ns > previous_end_ns, false) AS is_host_wait
    FROM ordered
    WHERE previous_end_ns IS NOT NULL AND ts_ns > previous_end_ns
)
SELECT
    r.run_name::VARCHAR                                        AS run_name,          -- run name
    g.rank::INTEGER                                            AS rank,              -- global rank
    g.step::INTEGER                                            AS step,              -- step of the kernel after the gap (kernel.step); NULL outside every step
    g.stream_id::VARCHAR                                       AS stream_id,         -- device stream (kernel.stream_id; NULL for NPU communication ops)
    g.previous_end_ns::BIGINT                                  AS start_ns,          -- idle start: end of the previous kernel on the stream, ns since the epoch
    g.ts_ns::BIGINT                                            AS end_ns,            -- idle end: start of the kernel after the gap, ns since the epoch
    g.gap_ns::BIGINT                                           AS dur_ns,            -- idle time, ns (HTA idle_interval, exact)
    (CASE WHEN g.is_host_wait THEN 'host_wait'
          WHEN g.gap_ns < kernel_wait_threshold_ns THEN 'kernel_wait'
          ELSE 'other' END)::VARCHAR                           AS cause,             -- host_wait, kernel_wait or other (HTA idle_category)
    g.previous_name::VARCHAR                                   AS kernel_before,     -- kernel that ends where the gap starts
    g.name::VARCHAR                                            AS kernel_after,      -- kernel that starts where the gap ends
    g.kernel_id::BIGINT                                        AS kernel_id,         -- kernel.kernel_id of the kernel after the gap
    g.launch_name::VARCHAR                                     AS launch_name,       -- launch call of the kernel after the gap (cudaLaunchKernel, hipLaunchKernel, CANN api ...); NULL if unknown
    g.launch_tid::VARCHAR                                      AS launch_tid,        -- host thread of that launch call
    g.launch_ts_ns::BIGINT                                     AS launch_ts_ns,      -- start of that launch call, ns since the epoch
    CASE WHEN g.is_host_wait THEN g.launch_ts_ns - g.previous_end_ns END::BIGINT
                                                               AS host_late_ns       -- host_wait only: how long after the stream went idle the launch call started, ns
FROM gap AS g
JOIN run AS r
    ON r.run_id = g.run_id
