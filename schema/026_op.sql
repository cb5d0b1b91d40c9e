-- Framework ops (the op tree) and what links a device kernel to the op that launched it.
-- Built by the derive step from the rank's trace events (trace_view.json, Kineto) or, later,
-- from an Ascend profiler DB's PYTORCH_API table; every compare view starts here.

CREATE TABLE IF NOT EXISTS op (
    run_id             INTEGER NOT NULL,
    rank               INTEGER NOT NULL,
    file_id            INTEGER NOT NULL,
    op_id              BIGINT NOT NULL,
    step               INTEGER,
    tid                VARCHAR,
    ts_ns              BIGINT NOT NULL,
    dur_ns             BIGINT NOT NULL,
    name               VARCHAR NOT NULL,
    parent_op_id       BIGINT,
    depth              INTEGER NOT NULL,
    input_dims         VARCHAR,
    input_types        VARCHAR,
    sequence_number    BIGINT,
    is_backward        BOOLEAN,
    module_path        VARCHAR,
    kernel_count       INTEGER,
    kernel_total_count INTEGER,
    device_self_ns     BIGINT,
    device_total_ns    BIGINT,
    source             VARCHAR NOT NULL
);
COMMENT ON TABLE op IS 'One row per framework op (aten::*, torch_npu / user annotations such as Optimizer.step#SGD.step): the host-side op tree of a rank, with the device time of the kernels each op launched. Source: trace_view.json / Kineto events of category cpu_op (and user_annotation), Ascend DB PYTORCH_API.';
COMMENT ON COLUMN op.run_id IS 'Run (run.run_id).';
COMMENT ON COLUMN op.rank IS 'Rank (rank.rank).';
COMMENT ON COLUMN op.file_id IS 'Input file the op came from (source_file.file_id).';
COMMENT ON COLUMN op.op_id IS 'Row number of the op within (run, rank), by start, then longer first (parents before children); stable key for kernel.op_id and parent_op_id.';
COMMENT ON COLUMN op.step IS 'Step whose host window (ProfilerStep#N) holds the op start; NULL outside every step.';
COMMENT ON COLUMN op.tid IS 'Host thread id the op ran on, as text (event tid).';
COMMENT ON COLUMN op.ts_ns IS 'Op start on the host, integer ns since the epoch (event ts, exact).';
COMMENT ON COLUMN op.dur_ns IS 'Op duration on the host, integer ns (event dur).';
COMMENT ON COLUMN op.name IS 'Framework op name as written (aten::conv2d, Optimizer.step#SGD.step, ...).';
COMMENT ON COLUMN op.parent_op_id IS 'op_id of the innermost op on the same thread that encloses this one; NULL for a top-level op.';
COMMENT ON COLUMN op.depth IS 'Nesting depth on its thread: 0 for a top-level op, parent depth + 1 otherwise.';
COMMENT ON COLUMN op.input_dims IS 'args "Input Dims" as written (JSON text), NULL if absent.';
COMMENT ON COLUMN op.input_types IS 'args "Input type" as written (JSON text), NULL if absent.';
COMMENT ON COLUMN op.sequence_number IS 'args "Sequence number" (autograd sequence id pairing a forward op with its backward), NULL if absent.';
COMMENT ON COLUMN op.is_backward IS 'TRUE when the op runs on the autograd (backward) thread: the tid at the end of the fwdbwd flows (msprof-analyze''s rule); NULL when the trace has no fwdbwd flow.';
COMMENT ON COLUMN op.module_path IS 'nn.Module path of the innermost enclosing python_function module event ("nn.Module: ResNet_0/Conv2d_1" chain, with_stack traces); NULL without python_function events.';
COMMENT ON COLUMN op.kernel_count IS 'Number of kernels whose kernel.op_id is this op (launched by it directly); copies (kernel.copy_kind set) are not counted, as msprof-analyze counts kernel events only.';
COMMENT ON COLUMN op.kernel_total_count IS 'Number of kernels (copies aside) launched by this op or any op below it.';
COMMENT ON COLUMN op.device_self_ns IS 'Sum of kernel dur_ns of the kernels (copies aside) launched by this op directly, integer ns.';
COMMENT ON COLUMN op.device_total_ns IS 'Sum of kernel dur_ns of the kernels (copies aside) launched by this op or any op below it, integer ns.';
COMMENT ON COLUMN op.source IS 'Where the row came from: trace_view, kineto or ascend_db.';

-- The kernel table gained these columns in schema 2; a database written by schema 1 gets them
-- here (NULL until the rank is re-derived).
ALTER TABLE kernel ADD COLUMN IF NOT EXISTS op_id BIGINT;
ALTER TABLE kernel ADD COLUMN IF NOT EXISTS launch_name VARCHAR;
ALTER TABLE kernel ADD COLUMN IF NOT EXISTS launch_tid VARCHAR;
ALTER TABLE kernel ADD COLUMN IF NOT EXISTS launch_ts_ns BIGINT;
ALTER TABLE kernel ADD COLUMN IF NOT EXISTS launch_dur_ns BIGINT;
COMMENT ON COLUMN kernel.op_id IS 'The innermost framework op that launched the kernel (op.op_id): NPU trace_view.json async_npu flow (start = op, end = device task); Kineto ac2g/async_gpu flow, else the op enclosing the cuda/hip runtime launch with the same correlation id. NULL when no op launched it (counted by tracedb check, never dropped).';
COMMENT ON COLUMN kernel.launch_name IS 'Host call that launched the kernel: cudaLaunchKernel / hipLaunchKernel / cudaMemcpyAsync ... (Kineto runtime event with the same correlation id); NPU: the innermost CANN event (Node@launch, AscendCL@aclnn*, AscendCL@aclopCompileAndExecute ...) running on the host thread where the HostToDevice flow to the device task starts (the async_npu flow starts at the framework op instead). NULL if unknown (Level0 traces have no CANN events; Kineto kernels known only by their flow).';
COMMENT ON COLUMN kernel.launch_tid IS 'Host thread of the launch call, as text (NPU: the CANN thread, which is the task-queue thread, not the op thread, when torch_npu queues ops).';
COMMENT ON COLUMN kernel.launch_ts_ns IS 'Start of the launch call on the host, integer ns since the epoch; without a named call (see launch_name) the start of the flow to the kernel.';
COMMENT ON COLUMN kernel.launch_dur_ns IS 'Duration of the launch call, integer ns; NULL when launch_name is.';

-- Copies (memcpy / memset, NPU SDMA / PCIe DMA tasks) are kernel rows too, with their kind and
-- bytes; they count neither as computing nor as communication.
ALTER TABLE kernel ADD COLUMN IF NOT EXISTS copy_kind VARCHAR;
ALTER TABLE kernel ADD COLUMN IF NOT EXISTS size_bytes BIGINT;
COMMENT ON COLUMN kernel.copy_kind IS 'For a copy row: HtoD, DtoH, DtoD, PtoP, HtoH, Memset, or Unknown when the input does not say (Kineto gpu_memcpy/gpu_memset args or name, Nsight copyKind, NPU SDMA_SQE / PCIE_DMA_SQE / MEMCPY_ASYNC task: args "operation" of newer CANN, else Unknown); NULL for kernels and communication ops.';
COMMENT ON COLUMN kernel.size_bytes IS 'Bytes a copy moved or set (Kineto args "bytes", Nsight bytes, NPU task args "size(B)"); NULL when unknown or not a copy.';
