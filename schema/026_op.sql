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
COMMENT ON COLUMN op.module_path IS 'module.module_path of the innermost nn.Module call (python_function "nn.Module: X_n" event of a with_stack trace, any thread) running at the op start, e.g. DistributedDataParallel_0/AlexNet_0/Conv2d_1; NULL outside every nn.Module or without python_function events (derive/125).';
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

-- nn.Module instances (with_stack traces): the module tree msprof-analyze's module comparison
-- builds, with the device time of the kernels launched inside each module. Built by derive/125.
CREATE TABLE IF NOT EXISTS module (
    run_id           INTEGER NOT NULL,
    rank             INTEGER NOT NULL,
    file_id          INTEGER NOT NULL,
    module_id        BIGINT NOT NULL,
    kind             VARCHAR NOT NULL,
    name             VARCHAR NOT NULL,
    module_path      VARCHAR,
    module_level     INTEGER,
    parent_module_id BIGINT,
    step             INTEGER,
    tid              VARCHAR,
    ts_ns            BIGINT NOT NULL,
    dur_ns           BIGINT NOT NULL,
    called_at_ns     BIGINT,
    op_count         INTEGER,
    kernel_count     INTEGER,
    device_self_ns   BIGINT,
    device_total_ns  BIGINT,
    source           VARCHAR NOT NULL
);
COMMENT ON TABLE module IS 'One row per nn.Module call (python_function event "nn.Module: X_n" of a with_stack trace), per optimizer op (Optimizer.*, a module of its own as msprof-analyze counts it) and per backward module (the autograd op a fwdbwd flow ends at, named after the module the flow starts in); with the device time of the kernels launched inside it. Source: trace_view.json / Kineto events, Ascend profiler DB PYTORCH_API. Empty for a rank without nn.Module events.';
COMMENT ON COLUMN module.run_id IS 'Run (run.run_id).';
COMMENT ON COLUMN module.rank IS 'Rank (rank.rank).';
COMMENT ON COLUMN module.file_id IS 'Input file the module came from (source_file.file_id).';
COMMENT ON COLUMN module.module_id IS 'Key within (run, rank), increasing with the start (longer first) among forward modules and optimizer ops, then among backward modules; key for parent_module_id.';
COMMENT ON COLUMN module.kind IS 'forward (nn.Module python_function event), optimizer (Optimizer.* op) or backward (the autograd op a fwdbwd flow ends at; Ascend DB: the later of two ops sharing a connection id).';
COMMENT ON COLUMN module.name IS 'Module name: the nn.Module event name without "nn.Module: " (Conv2d_1), the optimizer op name (Optimizer.step#SGD.step), or "[ BACKWARD ]/" + the module_path of the innermost forward module running at the fwdbwd flow start.';
COMMENT ON COLUMN module.module_path IS 'Names of the enclosing modules of the same tree (forward and optimizer; backward), outermost first, then the module''s own, joined by "/" (DistributedDataParallel_0/AlexNet_0/Linear_2, [ BACKWARD ]/DistributedDataParallel_0/AlexNet_0/Linear_2): msprof-analyze''s Module Name without "nn.Module: ".';
COMMENT ON COLUMN module.module_level IS 'Number of "/"-separated parts of module_path (msprof-analyze ModuleCompareStatistic Module Level).';
COMMENT ON COLUMN module.parent_module_id IS 'module_id of the innermost module of the same tree that encloses this one; NULL at the top.';
COMMENT ON COLUMN module.step IS 'Step whose host window (ProfilerStep#N) holds the module start; NULL outside every step.';
COMMENT ON COLUMN module.tid IS 'Host thread of the module event (backward: of the autograd op), as text.';
COMMENT ON COLUMN module.ts_ns IS 'Module start on the host, integer ns since the epoch.';
COMMENT ON COLUMN module.dur_ns IS 'Module duration on the host, integer ns.';
COMMENT ON COLUMN module.called_at_ns IS 'Backward module: the start of its forward side (fwdbwd flow start; Ascend DB: the earlier op of the pair), where the innermost forward module running names it; NULL for the others.';
COMMENT ON COLUMN module.op_count IS 'Framework ops (any depth) that start inside this module and inside none of its children.';
COMMENT ON COLUMN module.kernel_count IS 'Kernels launched by those ops (kernel.op_id is one of them), copies (kernel.copy_kind set) aside as in op.kernel_count.';
COMMENT ON COLUMN module.device_self_ns IS 'Sum of kernel dur_ns of those kernels, integer ns (msprof-analyze Device Self Time).';
COMMENT ON COLUMN module.device_total_ns IS 'device_self_ns of this module and every module below it in its tree, integer ns (msprof-analyze Device Total Time).';
COMMENT ON COLUMN module.source IS 'Where the row came from: trace_view, kineto or ascend_db.';
