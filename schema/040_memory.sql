-- Memory records (filled by the memory ingest).

CREATE TABLE IF NOT EXISTS memory (
    run_id          INTEGER NOT NULL,
    rank            INTEGER NOT NULL,
    file_id         INTEGER NOT NULL,
    kind            VARCHAR NOT NULL,
    component       VARCHAR,
    name            VARCHAR,
    device          VARCHAR,
    ts_ns           BIGINT,
    release_ts_ns   BIGINT,
    dur_ns          BIGINT,
    size_bytes      BIGINT,
    allocated_bytes BIGINT,
    reserved_bytes  BIGINT,
    active_bytes    BIGINT,
    stream_ptr      VARCHAR
);
COMMENT ON TABLE memory IS 'Memory samples and allocations: memory_record.csv (kind record), operator_memory.csv (kind operator), npu_module_mem.csv (kind module), Kineto [memory] events (kind event).';
COMMENT ON COLUMN memory.run_id IS 'Run (run.run_id).';
COMMENT ON COLUMN memory.rank IS 'Rank (rank.rank).';
COMMENT ON COLUMN memory.file_id IS 'Input file (source_file.file_id).';
COMMENT ON COLUMN memory.kind IS 'record, operator, module or event.';
COMMENT ON COLUMN memory.component IS 'Component (PTA, GE, APP, PTA+GE, WORKSPACE, MindSpore, HCCL, RUNTIME ...).';
COMMENT ON COLUMN memory.name IS 'Operator name (operator_memory.csv Name); NULL otherwise.';
COMMENT ON COLUMN memory.device IS 'Device as written (NPU:0, CPU, Device Id).';
COMMENT ON COLUMN memory.ts_ns IS 'Sample or allocation time, integer ns.';
COMMENT ON COLUMN memory.release_ts_ns IS 'Release time of an allocation, integer ns; NULL if still live at the end of the capture.';
COMMENT ON COLUMN memory.dur_ns IS 'Allocation lifetime, integer ns.';
COMMENT ON COLUMN memory.size_bytes IS 'Allocation size in bytes (torch_npu KB = 1024 B; negative when only the free was captured).';
COMMENT ON COLUMN memory.allocated_bytes IS 'Total allocated in bytes (torch_npu MB = 1024^2 B; MindSpore memory_record MB = 1 024 000 B).';
COMMENT ON COLUMN memory.reserved_bytes IS 'Total reserved in bytes.';
COMMENT ON COLUMN memory.active_bytes IS 'Total active in bytes.';
COMMENT ON COLUMN memory.stream_ptr IS 'Stream Ptr as written; NULL if absent.';
