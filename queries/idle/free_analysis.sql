-- free_analysis — msprof-analyze's free_analysis: each device-wide free interval of a rank with
-- its reason (device task running, framework layer idle, CANN launch gap or long launch call).
-- Grain:     one row per free interval of a (run, rank) between busy islands of the whole device
--            (kernels and communication ops of every stream), over the whole capture.
--            Scope: whole capture; step is the kernel.step of the task after the gap.
-- Source:    free_analysis_with(50000) over kernel (launch_*, op_id) and op.
-- Reference: msprof-analyze cluster -m free_analysis with its DIFF_WAIT_THRESHOLD_NS = 50 µs, on
--            exact ns; msprof's output is the rows with free_order <= 10 (--top_num). The rules
--            and where they differ from msprof and from HTA's per-stream idle_time are in
--            free_analysis_with.
-- Units:     *_ns integer nanoseconds; *_count tasks.
CREATE OR REPLACE VIEW free_analysis AS
SELECT
    run_name,
    rank,
    step,
    start_ns,
    end_ns,
    dur_ns,
    free_order,
    reason,
    device_task_count,
    max_remaining_free_ns,
    pytorch_idle_ns,
    cann_idle_ns,
    prev_dispatch_wait_ns,
    next_dispatch_wait_ns,
    launch_gap_ns,
    prev_launch_dur_ns,
    next_launch_dur_ns,
    prev_kernel,
    next_kernel,
    prev_op,
    next_op
FROM free_analysis_with(50000)
ORDER BY run_name, rank, start_ns;
