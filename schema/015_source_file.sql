-- Every ingested input file, for idempotent re-ingest (content hash) and provenance.

CREATE TABLE IF NOT EXISTS source_file (
    file_id     INTEGER PRIMARY KEY,
    run_id      INTEGER NOT NULL,
    rank        INTEGER NOT NULL,
    format      VARCHAR NOT NULL,
    path        VARCHAR NOT NULL,
    size_bytes  BIGINT NOT NULL,
    sha256      VARCHAR NOT NULL,
    row_count   BIGINT,
    ingested_at VARCHAR
);
COMMENT ON TABLE source_file IS 'One row per ingested input file. A file whose content hash is already here is skipped on re-ingest.';
COMMENT ON COLUMN source_file.file_id IS 'Surrogate key of the file; event/kernel rows carry it.';
COMMENT ON COLUMN source_file.run_id IS 'Run the file belongs to.';
COMMENT ON COLUMN source_file.rank IS 'Rank the file belongs to.';
COMMENT ON COLUMN source_file.format IS 'Detected format: trace_view, kernel_details, step_trace_time, communication, communication_matrix, operator_memory, memory_record, npu_module_mem, profiler_info, profiler_metadata (torch_npu); msprof_timeline, step_trace_raw, hccl_raw, hccl_trace (MindSpore); kineto (PyTorch).';
COMMENT ON COLUMN source_file.path IS 'Absolute path at ingest time.';
COMMENT ON COLUMN source_file.size_bytes IS 'File size in bytes.';
COMMENT ON COLUMN source_file.sha256 IS 'SHA-256 of the file content (hex); the re-ingest key.';
COMMENT ON COLUMN source_file.row_count IS 'Rows this file added to its main table.';
COMMENT ON COLUMN source_file.ingested_at IS 'UTC ingest time, ISO 8601 text.';
