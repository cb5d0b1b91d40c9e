-- Annotated host ranges (NVTX of Nsight Systems, Kineto user_annotation, Ascend mstx) and which
-- device kernels each range launched: built by derive/124_host_range from the rank's events and
-- kernels; read by range_time.

CREATE TABLE IF NOT EXISTS host_range (
    run_id          INTEGER NOT NULL,
    rank            INTEGER NOT NULL,
    file_id         INTEGER NOT NULL,
    range_id        BIGINT NOT NULL,
    kind            VARCHAR NOT NULL,
    name            VARCHAR,
    pid             VARCHAR,
    tid             VARCHAR,
    ts_ns           BIGINT NOT NULL,
    dur_ns          BIGINT NOT NULL,
    depth           INTEGER NOT NULL,
    parent_range_id BIGINT,
    step            INTEGER
);
COMMENT ON TABLE host_range IS 'One row per annotated host range of a rank: NVTX push/pop and start/end ranges of an Nsight Systems export (event cat nvtx, ProfilerStep#N step ranges included, as Nsight''s reports include them), Kineto user_annotation ranges (record_function, ProfilerStep#N, Optimizer.step#..., torch.cuda.nvtx is not recorded by Kineto) and Ascend mstx ranges (event cat mstx: Ascend profiler DB MSTX_EVENTS). Built by derive/124_host_range.';
COMMENT ON COLUMN host_range.run_id IS 'Run (run.run_id).';
COMMENT ON COLUMN host_range.rank IS 'Rank (rank.rank).';
COMMENT ON COLUMN host_range.file_id IS 'Input file of the range (source_file.file_id).';
COMMENT ON COLUMN host_range.range_id IS 'Row number of the range within (run, rank) by start, then longer first (parents before children); key for kernel_range and parent_range_id.';
COMMENT ON COLUMN host_range.kind IS 'nvtx (Nsight Systems), user_annotation (Kineto) or mstx (Ascend).';
COMMENT ON COLUMN host_range.name IS 'Range text as written (NVTX step ranges: ProfilerStep#N, their own text in event.args).';
COMMENT ON COLUMN host_range.pid IS 'Process of the range, as text (event.pid).';
COMMENT ON COLUMN host_range.tid IS 'Thread the range started on, as text (event.tid).';
COMMENT ON COLUMN host_range.ts_ns IS 'Range start on the host, integer ns since the epoch.';
COMMENT ON COLUMN host_range.dur_ns IS 'Range length on the host, integer ns.';
COMMENT ON COLUMN host_range.depth IS 'Nesting level among the ranges of its kind and thread: 0 at the top (Nsight nvtx_gpu_proj_trace Lvl).';
COMMENT ON COLUMN host_range.parent_range_id IS 'The tightest range of the same kind and thread that encloses this one (Nsight''s ParentId rule: start <= start and end >= end, smallest slack); NULL at the top.';
COMMENT ON COLUMN host_range.step IS 'Step whose host window holds the range start; NULL outside every step.';

CREATE TABLE IF NOT EXISTS kernel_range (
    run_id       INTEGER NOT NULL,
    rank         INTEGER NOT NULL,
    kernel_id    BIGINT NOT NULL,
    range_id     BIGINT NOT NULL,
    is_innermost BOOLEAN NOT NULL
);
COMMENT ON TABLE kernel_range IS 'One row per (device kernel or copy, host range enclosing its launch): Nsight Systems'' containment rule (nvtx_gpu_proj_trace: a GPU operation belongs to a range when the CUDA API call that launched it lies within the range, start <= call start and call end <= end, on the range''s thread), applied to the launch call (kernel.launch_tid / launch_ts_ns / launch_dur_ns) and, where the launch call ran on another thread than the range (torch_npu''s task queue), to the framework op that launched the kernel (kernel.op_id). A kernel inside nested ranges has a row for each. Built by derive/124_host_range.';
COMMENT ON COLUMN kernel_range.run_id IS 'Run (run.run_id).';
COMMENT ON COLUMN kernel_range.rank IS 'Rank (rank.rank).';
COMMENT ON COLUMN kernel_range.kernel_id IS 'Kernel (kernel.kernel_id).';
COMMENT ON COLUMN kernel_range.range_id IS 'Range (host_range.range_id).';
COMMENT ON COLUMN kernel_range.is_innermost IS 'TRUE for the deepest of the kernel''s ranges of that kind: the range the kernel is linked to.';
