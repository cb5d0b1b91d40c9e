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
    stream_ptr      VARCHAR,
    active_release_ts_ns    BIGINT,
    active_dur_ns           BIGINT,
    release_allocated_bytes BIGINT,
    release_reserved_bytes  BIGINT,
    release_active_bytes    BIGINT,
    addr                    VARCHAR
);
COMMENT ON TABLE memory IS 'Memory samples and allocations: memory_record.csv (kind record), operator_memory.csv (kind operator), npu_module_mem.csv (kind module), Kineto [memory] events (kind event).';
COMMENT ON COLUMN memory.run_id IS 'Run (run.run_id).';
COMMENT ON COLUMN memory.rank IS 'Rank (rank.rank).';
COMMENT ON COLUMN memory.file_id IS 'Input file (source_file.file_id).';
COMMENT ON COLUMN memory.kind IS 'record, operator, module or event.';
COMMENT ON COLUMN memory.component IS 'Component as written in memory_record.csv / npu_module_mem.csv (PTA, GE, APP, PTA+GE, WORKSPACE, MindSpore, MindSpore+GE, HCCL, RUNTIME ...); operator rows: GE for cann:: names, else PTA (torch_npu) or MindSpore; Kineto [memory] events: PyTorch.';
COMMENT ON COLUMN memory.name IS 'Operator name: operator_memory.csv Name; for Kineto [memory] events the innermost cpu_op of the same thread containing the event; NULL otherwise.';
COMMENT ON COLUMN memory.device IS 'Device: Device Type / Device column as written (NPU:0, CPU); Kineto: CPU or CUDA:<Device Id> from args Device Type / Device Id.';
COMMENT ON COLUMN memory.ts_ns IS 'Sample time (Timestamp(us)), allocation time (Allocation Time(us); NULL when the malloc was before the capture) or event ts, integer ns since the epoch, exact.';
COMMENT ON COLUMN memory.release_ts_ns IS 'Release time of an allocation, integer ns; NULL if still live at the end of the capture.';
COMMENT ON COLUMN memory.dur_ns IS 'Allocation lifetime (operator_memory.csv Duration(us)), integer ns; NULL if still live.';
COMMENT ON COLUMN memory.size_bytes IS 'Allocation size in bytes (Size(KB) x 1024; negative for CANN rows whose free only was captured); Kineto: args Bytes, negative = free.';
COMMENT ON COLUMN memory.allocated_bytes IS 'Total allocated in bytes (operator rows: at allocation; torch_npu MB = 1024^2 B; MindSpore memory_record MB = 1 024 000 B; Kineto args Total Allocated).';
COMMENT ON COLUMN memory.reserved_bytes IS 'Total reserved in bytes (operator rows: at allocation; module rows: Total Reserved(MB) x 1024^2 or Total Reserved(KB) x 1024).';
COMMENT ON COLUMN memory.active_bytes IS 'Total active in bytes (operator rows: at allocation); NULL if absent.';
COMMENT ON COLUMN memory.stream_ptr IS 'Stream Ptr as written; NULL if absent.';
COMMENT ON COLUMN memory.active_release_ts_ns IS 'operator_memory.csv Active Release Time(us) (block reusable again), integer ns; NULL if absent.';
COMMENT ON COLUMN memory.active_dur_ns IS 'operator_memory.csv Active Duration(us), integer ns; NULL if absent.';
COMMENT ON COLUMN memory.release_allocated_bytes IS 'operator_memory.csv Release Total Allocated(MB) in bytes (allocator total at the release).';
COMMENT ON COLUMN memory.release_reserved_bytes IS 'operator_memory.csv Release Total Reserved(MB) in bytes.';
COMMENT ON COLUMN memory.release_active_bytes IS 'operator_memory.csv Release Total Active(MB) in bytes.';
COMMENT ON COLUMN memory.addr IS 'Kineto [memory] args Addr (block address) as text; pairs an allocation with its free.';
