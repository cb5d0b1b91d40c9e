-- Communication link tasks: trace_view.json Plane threads, MindSpore HCCL .trace files and hccl_raw_{rank}.csv.

CREATE TABLE IF NOT EXISTS link (
    run_id         INTEGER NOT NULL,
    rank           INTEGER NOT NULL,
    file_id        INTEGER NOT NULL,
    step           INTEGER,
    group_name     VARCHAR,
    op_name        VARCHAR,
    plane_id       INTEGER,
    task_name      VARCHAR,
    src_rank       BIGINT,
    dst_rank       BIGINT,
    transport_type VARCHAR,
    link_type      VARCHAR,
    ts_ns          BIGINT,
    dur_ns         BIGINT,
    size_bytes     BIGINT,
    bandwidth_gbps DOUBLE,
    notify_id      VARCHAR,
    op_ts_ns       BIGINT,
    rdma_type      VARCHAR
);
COMMENT ON TABLE link IS 'One row per HCCL link task (Memcpy, Reduce_Inline, Notify_Wait, RDMASend ...): trace_view.json Plane threads, HCCL .trace files, hccl_raw_{rank}.csv.';
COMMENT ON COLUMN link.run_id IS 'Run (run.run_id).';
COMMENT ON COLUMN link.rank IS 'Rank that recorded the task.';
COMMENT ON COLUMN link.file_id IS 'Input file (source_file.file_id).';
COMMENT ON COLUMN link.step IS 'Step number the task belongs to; NULL if unknown.';
COMMENT ON COLUMN link.group_name IS 'Communication group (trace thread "Group <g> Communication").';
COMMENT ON COLUMN link.op_name IS 'HCCL op the task belongs to (e.g. hcom_allReduce__271_0_1).';
COMMENT ON COLUMN link.plane_id IS 'Plane number (thread "Plane <k>", .trace tid).';
COMMENT ON COLUMN link.task_name IS 'Task type, normalised with underscores (Notify_Wait, Reduce_Inline, Memcpy, RDMASend ...).';
COMMENT ON COLUMN link.src_rank IS 'args "src rank" (group-local rank).';
COMMENT ON COLUMN link.dst_rank IS 'args "dst rank" (group-local rank; 4294967295 = local/on-chip).';
COMMENT ON COLUMN link.transport_type IS 'args "transport type": SDMA, RDMA or LOCAL.';
COMMENT ON COLUMN link.link_type IS 'args "link type": HCCS, PCIE, ROCE, SIO, ON_CHIP, HCCS_SW ...';
COMMENT ON COLUMN link.ts_ns IS 'Task start, integer ns.';
COMMENT ON COLUMN link.dur_ns IS 'Task duration, integer ns.';
COMMENT ON COLUMN link.size_bytes IS 'Bytes moved: args "size(Byte)" (an integer; a string is read as hex, as MindSpore does for older data); 0 for notify tasks, NULL if absent.';
COMMENT ON COLUMN link.bandwidth_gbps IS 'args "bandwidth(GB/s)" as written by the profiler (GB = 10^9 B); NULL if absent.';
COMMENT ON COLUMN link.notify_id IS 'args "notify_id" as text (can be 2^64-1).';
COMMENT ON COLUMN link.op_ts_ns IS 'Start of the op slice the task belongs to (ts of the "Group <g> Communication" slice), integer ns; with op_name it identifies one op execution. NULL if no op slice holds the task.';
COMMENT ON COLUMN link.rdma_type IS 'args "rdma type" when the profiler writes it (RDMA_SEND_PAYLOAD, RDMA_SEND_NOTIFY); NULL otherwise.';

-- Each HCCL task's place in its op execution, set at ingest by derive/075 (the comm views read
-- them through tracedb_internal.comm_task); NULL on rows without an op.
ALTER TABLE link ADD COLUMN IF NOT EXISTS plane_seq BIGINT;
ALTER TABLE link ADD COLUMN IF NOT EXISTS is_master_plane BOOLEAN;
ALTER TABLE link ADD COLUMN IF NOT EXISTS in_rdma_window BOOLEAN;
ALTER TABLE link ADD COLUMN IF NOT EXISTS starts_rdma_window BOOLEAN;
ALTER TABLE link ADD COLUMN IF NOT EXISTS rdma_window_ns BIGINT;
ALTER TABLE link ADD COLUMN IF NOT EXISTS rdma_window_bytes BIGINT;
ALTER TABLE link ADD COLUMN IF NOT EXISTS rdma_payload_count BIGINT;
COMMENT ON COLUMN link.plane_seq IS 'Position of the task on its plane within its op execution (op_name, op_ts_ns), 1-based, by start, duration, task name (derive/075).';
COMMENT ON COLUMN link.is_master_plane IS 'The task lies on its op''s master plane: the only plane; else plane 0 if it has an RDMA task, else plane 1, else the lowest (CANN 8.0 get_main_plane_id; derive/075).';
COMMENT ON COLUMN link.in_rdma_window IS 'The task lies in an RDMA window: from its first RDMA_SEND_PAYLOAD to the closing task payload_count + k - 2 positions after it (k = 3 for send/receive ops, 5 otherwise; derive/075).';
COMMENT ON COLUMN link.starts_rdma_window IS 'The task is the first payload of an RDMA window (derive/075).';
COMMENT ON COLUMN link.rdma_window_ns IS 'On the first payload of an RDMA window: closing task end - first payload start, integer ns; NULL elsewhere (derive/075).';
COMMENT ON COLUMN link.rdma_window_bytes IS 'On the first payload of an RDMA window: sum of its payload sizes, bytes; NULL elsewhere (derive/075).';
COMMENT ON COLUMN link.rdma_payload_count IS 'On the first payload of an RDMA window: its payload tasks; NULL elsewhere (derive/075).';
