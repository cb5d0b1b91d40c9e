-- idle_interval — every interval in which a device stream is idle between two of its kernels,
-- with its cause (host wait, kernel wait, other) at HTA's default kernel-wait threshold.
-- Grain:     one row per gap between consecutive kernels of a (run, rank, stream); step = step
--            of the kernel after the gap.
--            Scope: whole capture; step is the kernel.step of the kernel after the gap.
-- Source:    idle_interval_with(30000) over kernel (ts_ns, dur_ns, stream_id, launch_ts_ns).
-- Reference: HolisticTraceAnalysis get_idle_time_breakdown with consecutive_kernel_delay = 30 µs,
--            on exact ns; idle_interval_with(threshold_ns) takes another threshold.
-- Units:     *_ns integer nanoseconds.
CREATE OR REPLACE VIEW idle_interval AS
SELECT
    run_name,
    rank,
    step,
    stream_id,
    start_ns,
    end_ns,
    dur_ns,
    cause,
    kernel_before,
    kernel_after,
    kernel_id,
    launch_name,
    launch_tid,
    launch_ts_ns,
    host_late_ns
FROM idle_interval_with(30000)
ORDER BY run_name, rank, stream_id, start_ns;
