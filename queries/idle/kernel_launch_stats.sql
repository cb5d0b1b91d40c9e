-- kernel_launch_stats — launch delay and launch call duration per step, with HTA's outlier
-- counts at its default cutoffs (runtime 50 µs, launch delay 100 µs).
-- Grain:     one row per (run, rank, step) with launched kernels, plus one row per (run, rank)
--            with step NULL for the whole capture.
--            Scope: per step, steps of kernel.step (the ProfilerStep#N host window holding the
--            launch call, kernel_details.csv Step Id, else the host window holding the kernel;
--            temporal_breakdown.window_source names it per step), and whole capture (step NULL).
-- Source:    kernel_launch_stats_with(50000, 100000) over kernel_launch.
-- Reference: HolisticTraceAnalysis get_cuda_kernel_launch_stats defaults; other cutoffs:
--            kernel_launch_stats_with(runtime_cutoff_ns, launch_delay_cutoff_ns).
-- Units:     *_ns integer nanoseconds (mean_* rounded to the nearest ns); *_count kernels.
CREATE OR REPLACE VIEW kernel_launch_stats AS
SELECT
    run_name,
    rank,
    step,
    kernel_count,
    mean_launch_delay_ns,
    p50_launch_delay_ns,
    p90_launch_delay_ns,
    p99_launch_delay_ns,
    max_launch_delay_ns,
    mean_hta_launch_delay_ns,
    p50_hta_launch_delay_ns,
    p99_hta_launch_delay_ns,
    max_hta_launch_delay_ns,
    mean_launch_dur_ns,
    p50_launch_dur_ns,
    p90_launch_dur_ns,
    p99_launch_dur_ns,
    max_launch_dur_ns,
    runtime_outlier_count,
    launch_delay_outlier_count,
    short_kernel_count,
    short_kernel_ns
FROM kernel_launch_stats_with(50000, 100000)
ORDER BY run_name, rank, step NULLS LAST;
