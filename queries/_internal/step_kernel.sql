-- step_kernel — device kernels and copies attributed to a step, with end time and class.
-- Grain:     one row per kernel (kernel table) that belongs to a step. Kernels outside every
--            step are dropped when the rank has steps (torch_npu step_trace_time.csv drops slices
--            whose start is in no step); a rank without any step keeps all kernels (step NULL).
-- Source:    tracedb_internal.kernel_class (kernel rows: kernel_details.csv / trace_view.json /
--            Kineto kernel, memcpy and memset events, classified by kernel_class_rule).
-- Reference: kernels belong to the step of kernel.step (by kernel start, no clipping), as in
--            torch_npu step_trace_time.csv. NPU copies (SDMA / PCIE_DMA / MEMCPY_ASYNC tasks)
--            are clipped to the step's device window (step.device_start_ns/device_end_ns: compute
--            and HCCL tasks) and dropped when wholly outside it: CANN's step trace and Overlap
--            Analysis do not see copies, so they do not widen an NPU step (Kineto copies do).
--            Communication and copies come from the rules (kernel_class.is_communication,
--            is_copy), not from kernel.is_communication.
-- Units:     *_ns integer nanoseconds since the epoch.
CREATE OR REPLACE VIEW tracedb_internal.step_kernel AS
WITH stepped_rank AS (
    SELECT DISTINCT run_id, rank
    FROM kernel
    WHERE step IS NOT NULL
),
npu_copy_window AS (
    -- NPU steps' device windows (derive/050: compute and HCCL tasks only, as CANN's step trace)
    SELECT s.run_id, s.rank, s.step, s.device_start_ns, s.device_end_ns
    FROM step AS s
    JOIN run AS r
        ON r.run_id = s.run_id
    WHERE r.platform = 'npu' AND s.device_start_ns IS NOT NULL AND s.device_end_ns IS NOT NULL
)
SELECT
    k.run_id::INTEGER                   AS run_id,            -- run
    k.rank::INTEGER                     AS rank,              -- rank
    k.step::INTEGER                     AS step,              -- step number, NULL without steps
    k.kernel_id::BIGINT                 AS kernel_id,         -- kernel.kernel_id
    k.name::VARCHAR                     AS name,              -- kernel name
    k.group_name::VARCHAR               AS group_name,        -- HCCL group of a communication op
    k.is_communication::BOOLEAN         AS is_communication,  -- communication op (kernel_class_rule category Communication)
    k.is_copy::BOOLEAN                  AS is_copy,           -- copy (Memcpy, Memset, SDMA): neither computing nor communication
    CASE WHEN w.device_start_ns IS NOT NULL THEN greatest(k.ts_ns, w.device_start_ns) ELSE k.ts_ns END::BIGINT
                                        AS start_ns,          -- kernel start, ns (NPU copy: clipped to the step's device window)
    CASE WHEN w.device_end_ns IS NOT NULL THEN least(k.ts_ns + k.dur_ns, w.device_end_ns)
         ELSE k.ts_ns + k.dur_ns END::BIGINT
                                        AS end_ns,            -- kernel end, ns (NPU copy: clipped to the step's device window)
    k.dur_ns::BIGINT                    AS dur_ns             -- kernel duration, ns (as recorded)
FROM tracedb_internal.kernel_class AS k
LEFT JOIN stepped_rank AS s
    ON s.run_id = k.run_id AND s.rank = k.rank
LEFT JOIN npu_copy_window AS w
    ON k.copy_kind IS NOT NULL AND w.run_id = k.run_id AND w.rank = k.rank AND w.step = k.step
WHERE (k.step IS NOT NULL OR s.run_id IS NULL)
    -- an NPU copy wholly outside its step's device window is not part of the step
    AND (w.device_start_ns IS NULL OR (k.ts_ns < w.device_end_ns AND k.ts_ns + k.dur_ns > w.device_start_ns));
