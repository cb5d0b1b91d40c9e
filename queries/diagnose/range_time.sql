-- range_time — every annotated host range (NVTX, Kineto user_annotation, Ascend mstx) with its host
-- time, the GPU time it projects to and the kernels it launched.
-- Grain:     one row per host range (host_range: NVTX_EVENTS ranges of an Nsight Systems export,
--            step ranges included; Kineto user_annotation ranges; mstx ranges of an Ascend
--            profiler DB); a range that launched nothing has gpu_op_count 0 and NULL GPU times.
-- Source:    host_range (event ts / dur of the range), kernel_range (the kernels whose launch call,
--            or launching framework op, lies within the range on its thread: derive/124), kernel
--            (ts_ns, dur_ns, copy_kind of each).
-- Reference: Nsight Systems nvtx_gpu_proj_trace / nvtx_gpu_proj_sum: a GPU operation (kernel,
--            memcpy, memset) is "contained" by an NVTX range when the CUDA API call that launched
--            it is within the range on the range's thread; the projected range starts at the first
--            contained operation's start and ends at the last one's end (gpu_proj_ns = Projected
--            Duration; nested ranges project their children's operations too); NumGPUOps =
--            gpu_op_count. nvtx_gpu_proj_sum is this view summed per name: Total Proj Time =
--            sum(gpu_proj_ns), Total Range Time = sum(host_ns), Range Instances = count(*),
--            Total GPU Ops = sum(gpu_op_count). Nsight leaves out ranges without GPU operations
--            and the ranges of another thread's launches; Kineto's and mstx's ranges follow the
--            same rule (mstx: the framework op that launched the kernel stands for the launch call,
--            which torch_npu makes on its task-queue thread). gpu_busy_ns (the union of the
--            operations' intervals) is tracedb's addition: the time the device worked for the range,
--            gaps excluded.
-- Units:     *_ns integer nanoseconds (ts since the epoch); *_count operations.
CREATE OR REPLACE VIEW range_time AS
WITH ops AS (
    SELECT kr.run_id, kr.rank, kr.range_id, kr.is_innermost, k.kernel_id, k.ts_ns, k.ts_ns + k.dur_ns AS end_ns,
           k.dur_ns, k.copy_kind IS NULL AS is_kernel
    FROM kernel_range AS kr
    JOIN kernel AS k
        ON k.run_id = kr.run_id AND k.rank = kr.rank AND k.kernel_id = kr.kernel_id
),
ordered AS (
    -- each range's operations by start, with the latest end before each: a kernel adds to the
    -- union the part of it after that end
    SELECT run_id, rank, range_id, is_innermost, is_kernel, ts_ns, end_ns, dur_ns,
           max(end_ns) OVER (PARTITION BY run_id, rank, range_id ORDER BY ts_ns, end_ns, kernel_id
                             ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING) AS prev_end_ns
    FROM ops
),
per_range AS (
    SELECT run_id, rank, range_id,
           count(*) AS gpu_op_count,
           sum(CASE WHEN is_kernel THEN 1 ELSE 0 END) AS kernel_count,
           sum(CASE WHEN is_innermost THEN 1 ELSE 0 END) AS innermost_op_count,
           min(ts_ns) AS gpu_start_ns,
           max(end_ns) AS gpu_end_ns,
           sum(dur_ns) AS gpu_sum_ns,
           sum(greatest(end_ns - greatest(ts_ns, coalesce(prev_end_ns, ts_ns)), 0)) AS gpu_busy_ns
    FROM ordered
    GROUP BY run_id, rank, range_id
)
SELECT
    r.run_name::VARCHAR                                       AS run_name,            -- run name
    h.rank::INTEGER                                           AS rank,                -- global rank
    h.step::INTEGER                                           AS step,                -- step whose host window holds the range start; NULL outside every step
    h.range_id::BIGINT                                        AS range_id,            -- host_range.range_id (by start within the rank)
    h.kind::VARCHAR                                           AS kind,                -- nvtx, user_annotation or mstx
    h.name::VARCHAR                                           AS name,                -- range text (Nsight Range / Name)
    h.tid::VARCHAR                                            AS tid,                 -- host thread of the range
    h.depth::INTEGER                                          AS depth,               -- nesting level among its kind's ranges on the thread, 0 at the top (Nsight Lvl)
    h.parent_range_id::BIGINT                                 AS parent_range_id,     -- enclosing range (host_range.range_id); NULL at the top (Nsight ParentId)
    h.ts_ns::BIGINT                                           AS ts_ns,               -- range start on the host, ns since the epoch (Nsight Orig Start)
    h.dur_ns::BIGINT                                          AS host_ns,             -- range length on the host, ns (Nsight Orig Duration)
    coalesce(p.gpu_op_count, 0)::BIGINT                       AS gpu_op_count,        -- kernels, copies and memsets launched within the range or its children (Nsight NumGPUOps)
    coalesce(p.kernel_count, 0)::BIGINT                       AS kernel_count,        -- of which kernels (copies and memsets aside)
    coalesce(p.innermost_op_count, 0)::BIGINT                 AS innermost_op_count,  -- operations linked to this range as their innermost range of its kind
    p.gpu_start_ns::BIGINT                                    AS gpu_start_ns,        -- start of the first operation, ns since the epoch (Nsight Projected Start); NULL without operations
    (p.gpu_end_ns - p.gpu_start_ns)::BIGINT                   AS gpu_proj_ns,         -- end of the last operation minus start of the first, ns (Nsight Projected Duration)
    p.gpu_busy_ns::BIGINT                                     AS gpu_busy_ns,         -- union of the operations' intervals, ns: the device time the range kept busy
    p.gpu_sum_ns::BIGINT                                      AS gpu_sum_ns           -- sum of the operations' durations, ns (overlaps counted twice)
FROM host_range AS h
JOIN run AS r
    ON r.run_id = h.run_id
LEFT JOIN per_range AS p
    ON p.run_id = h.run_id AND p.rank = h.rank AND p.range_id = h.range_id
ORDER BY r.run_name, h.rank, h.range_id;
