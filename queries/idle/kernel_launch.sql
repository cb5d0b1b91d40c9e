-- kernel_launch — per kernel, the host call that launched it and how long the kernel waited
-- after it: launch delay and launch call duration, for CUDA, HIP and NPU.
-- Grain:     one row per kernel (or copy, or communication op) whose launch call is known
--            (kernel.launch_ts_ns not NULL); kernels without one are left out.
--            Scope: whole capture; step is kernel.step.
-- Source:    kernel (ts_ns, dur_ns, stream_id, step, launch_name / launch_tid / launch_ts_ns /
--            launch_dur_ns: Kineto cuda_runtime / hip_runtime event with the kernel's
--            correlation id; NPU: CANN launch call at the start of the HostToDevice /
--            async_npu flow).
-- Reference: HolisticTraceAnalysis get_cuda_kernel_launch_stats (CudaKernelAnalysis
--            .cuda_kernel_launch_stats): cpu_duration = launch_dur_ns, gpu_duration = dur_ns,
--            launch_delay = max(kernel start − launch call end, 0) = hta_launch_delay_ns, exact
--            ns instead of whole µs. HTA only takes cudaLaunchKernel, cudaLaunchKernelExC and
--            cudaMemcpyAsync / cudaMemsetAsync (so it finds no launches on AMD traces:
--            hipLaunchKernel); this view takes every launch call. launch_delay_ns is the full
--            delay from the launch call's start (kernel start − launch start).
-- Units:     *_ns integer nanoseconds (ts since the epoch).
CREATE OR REPLACE VIEW kernel_launch AS
SELECT
    r.run_name::VARCHAR                                                 AS run_name,             -- run name
    k.rank::INTEGER                                                     AS rank,                 -- global rank
    k.step::INTEGER                                                     AS step,                 -- step of the kernel (kernel.step: the ProfilerStep holding its launch)
    k.stream_id::VARCHAR                                                AS stream_id,            -- device stream
    k.kernel_id::BIGINT                                                 AS kernel_id,            -- kernel.kernel_id
    k.name::VARCHAR                                                     AS kernel_name,          -- kernel name
    k.copy_kind::VARCHAR                                                AS copy_kind,            -- HtoD, DtoH, DtoD, PtoP, HtoH, Memset for a copy; NULL for a kernel
    k.launch_name::VARCHAR                                              AS launch_name,          -- launch call: cudaLaunchKernel, hipLaunchKernel, cudaMemcpyAsync, CANN api ...
    k.launch_tid::VARCHAR                                               AS launch_tid,           -- host thread of the launch call
    k.launch_ts_ns::BIGINT                                              AS launch_ts_ns,         -- launch call start, ns since the epoch
    k.launch_dur_ns::BIGINT                                             AS launch_dur_ns,        -- launch call duration, ns (HTA cpu_duration); NULL if only the flow start is known
    k.ts_ns::BIGINT                                                     AS kernel_ts_ns,         -- kernel start on the device, ns since the epoch
    k.dur_ns::BIGINT                                                    AS kernel_dur_ns,        -- kernel duration, ns (HTA gpu_duration)
    (k.ts_ns - k.launch_ts_ns)::BIGINT                                  AS launch_delay_ns,      -- kernel start − launch call start, ns
    greatest(k.ts_ns - (k.launch_ts_ns + k.launch_dur_ns), 0)::BIGINT   AS hta_launch_delay_ns   -- HTA launch_delay: kernel start − launch call end, clipped at 0, ns
FROM kernel AS k
JOIN run AS r
    ON r.run_id = k.run_id
WHERE k.launch_ts_ns IS NOT NULL
ORDER BY r.run_name, k.rank, k.launch_ts_ns, k.kernel_id;
