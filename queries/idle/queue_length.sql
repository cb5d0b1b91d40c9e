-- queue_length — per device stream, how many kernels have been launched but not yet started,
-- over time: one point each time the number changes.
-- Grain:     one row per launch call (+1) and per kernel start (−1) of every kernel with a known
--            launch call, per (run, rank, stream), in time order; the value holds until the
--            next point of the stream (dur_ns). The step is the kernel's step.
--            Scope: whole capture; step is the kernel's kernel.step.
-- Source:    kernel (launch_ts_ns: Kineto runtime launch call / NPU CANN launch; ts_ns: kernel
--            start; stream_id).
-- Reference: HolisticTraceAnalysis get_queue_length_time_series: incremented when a runtime
--            call enqueues a kernel (or memcpy / memset) on a stream, decremented when the kernel
--            starts executing; exact ns. HTA takes only the launch calls cudaLaunchKernel(ExC),
--            cuLaunchKernel, cudaMemcpyAsync, cudaMemsetAsync, hipLaunchKernel,
--            hipExtModuleLaunchKernel, hipMemcpyAsync, hipMemsetAsync, hipMemcpyWithStream; this
--            view takes every known launch (NPU too). Points at the same instant: launches
--            before starts, then by kernel_id (HTA's order is its sort's).
-- Units:     ts_ns ns since the epoch; dur_ns integer ns; *_count kernels.
CREATE OR REPLACE VIEW queue_length AS
WITH point AS (
    SELECT run_id, rank, step, stream_id, kernel_id, launch_ts_ns AS ts_ns, 1 AS delta
    FROM kernel
    WHERE launch_ts_ns IS NOT NULL
    UNION ALL
    SELECT run_id, rank, step, stream_id, kernel_id, ts_ns, -1 AS delta
    FROM kernel
    WHERE launch_ts_ns IS NOT NULL
),
series AS (
    SELECT
        *,
        sum(delta) OVER (PARTITION BY run_id, rank, stream_id ORDER BY ts_ns, delta DESC, kernel_id
                         ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) AS queue_length,
        lead(ts_ns) OVER (PARTITION BY run_id, rank, stream_id ORDER BY ts_ns, delta DESC, kernel_id) AS next_ts_ns
    FROM point
)
SELECT
    r.run_name::VARCHAR                                          AS run_name,      -- run name
    s.rank::INTEGER                                              AS rank,          -- global rank
    s.step::INTEGER                                              AS step,          -- step of the kernel that made the change
    s.stream_id::VARCHAR                                         AS stream_id,     -- device stream
    s.ts_ns::BIGINT                                              AS ts_ns,         -- time of the change: launch call start or kernel start, ns since the epoch
    (CASE WHEN s.delta = 1 THEN 'launch' ELSE 'start' END)::VARCHAR
                                                                 AS event,         -- launch (+1) or start (−1)
    s.kernel_id::BIGINT                                          AS kernel_id,     -- kernel.kernel_id of the kernel launched or started
    s.queue_length::BIGINT                                       AS queued_count,  -- kernels launched on the stream and not yet started, after this point (HTA queue_length)
    (s.next_ts_ns - s.ts_ns)::BIGINT                             AS dur_ns         -- how long the value holds: until the stream's next point, ns; NULL at the last point
FROM series AS s
JOIN run AS r
    ON r.run_id = s.run_id
ORDER BY r.run_name, s.rank, TRY_CAST(s.stream_id AS BIGINT) NULLS LAST, s.stream_id, s.ts_ns, s.delta DESC, s.kernel_id;
