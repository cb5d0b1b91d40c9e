-- Trace events and device kernels.

-- Columns with a few distinct values per file are stored dictionary-compressed without trying
-- FSST first: measured 0.6 s less per GB of trace (4.4 → 3.8 s to write 5.3 M events on 2
-- cores), same file size. The clause is a storage hint only: DuckDB 1.0.0 reads and appends to
-- such a file (measured), and its catalog shows the plain type.
CREATE TABLE IF NOT EXISTS event (
    run_id       INTEGER NOT NULL,
    rank         INTEGER NOT NULL,
    file_id      INTEGER NOT NULL,
    ph           VARCHAR USING COMPRESSION dictionary,
    name         VARCHAR,
    cat          VARCHAR USING COMPRESSION dictionary,
    pid          VARCHAR USING COMPRESSION dictionary,
    tid          VARCHAR USING COMPRESSION dictionary,
    process_name VARCHAR USING COMPRESSION dictionary,
    thread_name  VARCHAR USING COMPRESSION dictionary,
    ts_ns        BIGINT,
    dur_ns       BIGINT,
    flow_id      VARCHAR,
    flow_bp      VARCHAR USING COMPRESSION dictionary,
    args         VARCHAR
);
COMMENT ON TABLE event IS 'One row per Chrome-trace event of trace_view.json (torch_npu/MindSpore) or a Kineto *.pt.trace.json(.gz): every phase (X, B/E, i, C, M, s/t/f).';
COMMENT ON COLUMN event.run_id IS 'Run (run.run_id).';
COMMENT ON COLUMN event.rank IS 'Rank (rank.rank).';
COMMENT ON COLUMN event.file_id IS 'Input file (source_file.file_id).';
COMMENT ON COLUMN event.ph IS 'Trace phase "ph": X complete, B/E begin/end, i/I instant, C counter, M metadata, s/t/f flow.';
COMMENT ON COLUMN event.name IS 'Event "name" (op, kernel, task, metadata kind).';
COMMENT ON COLUMN event.cat IS 'Event "cat" as written (cpu_op, kernel, Kernel, async_npu, ...); NULL if absent.';
COMMENT ON COLUMN event.pid IS 'Event "pid" as text (Kineto writes string pids such as "Spans" and "").';
COMMENT ON COLUMN event.tid IS 'Event "tid" as text (Ascend Hardware: stream id; Kineto GPU: stream).';
COMMENT ON COLUMN event.process_name IS 'process_name metadata (M event args.name) of pid, e.g. Python, CANN, Ascend Hardware, HCCL, Communication, Overlap Analysis.';
COMMENT ON COLUMN event.thread_name IS 'thread_name metadata (M event args.name) of (pid, tid), e.g. Stream 2, Group 0 Communication, Plane 1.';
COMMENT ON COLUMN event.ts_ns IS 'Event "ts" in integer ns: exact decimal parse of the microsecond text (string ts with 3 decimals stay exact); Kineto: baseTimeNanoseconds + ts. NULL for M events.';
COMMENT ON COLUMN event.dur_ns IS 'Event "dur" in integer ns (X events), exact decimal parse of the microsecond value; NULL otherwise.';
COMMENT ON COLUMN event.flow_id IS 'Flow/async "id" as text (ids can exceed 64 bits or be strings); NULL if absent.';
COMMENT ON COLUMN event.flow_bp IS 'Flow binding point "bp" (e = enclosing slice); NULL if absent.';
COMMENT ON COLUMN event.args IS 'Event "args" object as JSON text; NULL if absent.';

CREATE TABLE IF NOT EXISTS kernel (
    run_id           INTEGER NOT NULL,
    rank             INTEGER NOT NULL,
    file_id          INTEGER NOT NULL,
    kernel_id        BIGINT NOT NULL,
    step             INTEGER,
    name             VARCHAR,
    op_type          VARCHAR,
    accelerator_core VARCHAR,
    task_type        VARCHAR,
    device_id        INTEGER,
    stream_id        VARCHAR,
    ts_ns            BIGINT NOT NULL,
    dur_ns           BIGINT NOT NULL,
    wait_ns          BIGINT,
    is_communication BOOLEAN NOT NULL,
    group_name       VARCHAR,
    input_shapes     VARCHAR,
    input_dtypes     VARCHAR,
    output_shapes    VARCHAR,
    block_dim        INTEGER,
    source           VARCHAR NOT NULL
);
COMMENT ON TABLE kernel IS 'One row per device kernel/task. NPU: kernel_details.csv rows (compute kernels and one row per HCCL communication op), joined to the trace_view.json task with the same name and start; without kernel_details.csv, the Ascend Hardware compute tasks and HCCL op slices of trace_view.json; copies: the SDMA_SQE / PCIE_DMA_SQE / MEMCPY_ASYNC tasks of trace_view.json (copy_kind set). GPU: Kineto events of category kernel (NCCL kernels are communication).';
COMMENT ON COLUMN kernel.run_id IS 'Run (run.run_id).';
COMMENT ON COLUMN kernel.rank IS 'Rank (rank.rank).';
COMMENT ON COLUMN kernel.file_id IS 'Input file the row came from (source_file.file_id).';
COMMENT ON COLUMN kernel.kernel_id IS 'Row number of the kernel within (run, rank): kernel_details.csv rows in file order; trace_view.json tasks (no kernel_details.csv) and Kineto kernels by start, then name (Kineto ties: event row); stable key for joins.';
COMMENT ON COLUMN kernel.step IS 'Step number: kernel_details.csv "Step Id"/"Step ID"; else the ProfilerStep#N whose host window holds the launch (Kineto: the cuda_runtime launch with the same correlation id); else the step whose [host start, next host start) holds the kernel start. NULL outside every step.';
COMMENT ON COLUMN kernel.name IS 'Kernel name: kernel_details.csv "Name", trace event name.';
COMMENT ON COLUMN kernel.op_type IS 'Op type: kernel_details.csv "Type" as written (N/A at Level0); trace-only NPU rows: the kernel name; GPU: the kernel name.';
COMMENT ON COLUMN kernel.accelerator_core IS 'kernel_details.csv "Accelerator Core" (AI_CORE, AI_VECTOR_CORE, MIX_AIC, MIX_AIV, AI_CPU, HCCL, COMMUNICATION, N/A ...); trace-only: args "Task Type"; GPU: KERNEL or COMMUNICATION.';
COMMENT ON COLUMN kernel.task_type IS 'Ascend Hardware args "Task Type" of the matching trace task (AI_CORE, MIX_AIV, ...); NULL if unmatched or GPU.';
COMMENT ON COLUMN kernel.device_id IS 'Device id: kernel_details.csv Device_id, else trace process_labels "NPU n", else Kineto args.device.';
COMMENT ON COLUMN kernel.stream_id IS 'Stream: kernel_details.csv "Stream ID" (N/A for communication ops), else trace tid; Kineto args.stream.';
COMMENT ON COLUMN kernel.ts_ns IS 'Kernel start, integer ns since the epoch: kernel_details.csv "Start Time(us)" parsed exactly (tab stripped); trace ts.';
COMMENT ON COLUMN kernel.dur_ns IS 'Kernel duration, integer ns: "Duration(us)" x 1000; trace dur.';
COMMENT ON COLUMN kernel.wait_ns IS 'kernel_details.csv "Wait Time(us)" x 1000: gap after the previous task on the stream; NULL if absent.';
COMMENT ON COLUMN kernel.is_communication IS 'TRUE for communication ops: Accelerator Core HCCL/COMMUNICATION or name hcom_* (NPU), NCCL/RCCL kernels (name nccl*/rccl*, GPU). Everything else counts as computing.';
COMMENT ON COLUMN kernel.group_name IS 'Communication group of an HCCL op (trace thread "Group <g> Communication"); NULL otherwise.';
COMMENT ON COLUMN kernel.input_shapes IS 'kernel_details.csv "Input Shapes" with the literal quotes removed ("32,3,224,224;64"); NULL if absent.';
COMMENT ON COLUMN kernel.input_dtypes IS 'kernel_details.csv "Input Data Types"; NULL if absent.';
COMMENT ON COLUMN kernel.output_shapes IS 'kernel_details.csv "Output Shapes" without the literal quotes; NULL if absent.';
COMMENT ON COLUMN kernel.block_dim IS 'kernel_details.csv "Block Dim"/"Block Num" (cores used); NULL if absent or N/A.';
COMMENT ON COLUMN kernel.source IS 'Where the row came from: kernel_details, trace_view, kineto or step_trace_raw (MindSpore comm-op columns).';
