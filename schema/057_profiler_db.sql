-- What the Ascend profiler DB (torch_npu export_type=db: ascend_pytorch_profiler_{rank}.db)
-- holds beyond the common tables: its step windows (STEP_TIME, turned into step rows by
-- derive/015) and its metadata (META_DATA, NPU_INFO, RANK_DEVICE_MAP, HOST_INFO). analysis.db
-- (StepTraceTime, CommAnalyzer*) goes into the reference tables of 050 and 055.

CREATE TABLE IF NOT EXISTS ascend_db_step (
    run_id   INTEGER NOT NULL,
    rank     INTEGER NOT NULL,
    file_id  INTEGER NOT NULL,
    step     INTEGER NOT NULL,
    start_ns BIGINT,
    end_ns   BIGINT
);
COMMENT ON TABLE ascend_db_step IS 'One row per STEP_TIME row of an Ascend profiler DB: the host window of ProfilerStep#N as torch_npu wrote it. derive/015_step_from_ascend_db.sql makes step rows of them.';
COMMENT ON COLUMN ascend_db_step.run_id IS 'Run (run.run_id).';
COMMENT ON COLUMN ascend_db_step.rank IS 'Rank (rank.rank).';
COMMENT ON COLUMN ascend_db_step.file_id IS 'Input file (source_file.file_id).';
COMMENT ON COLUMN ascend_db_step.step IS 'STEP_TIME.id: the N of ProfilerStep#N.';
COMMENT ON COLUMN ascend_db_step.start_ns IS 'STEP_TIME.startNs: host start of the step, integer ns since the epoch (as stored).';
COMMENT ON COLUMN ascend_db_step.end_ns IS 'STEP_TIME.endNs: host end of the step, integer ns since the epoch.';

CREATE TABLE IF NOT EXISTS profiler_db_meta (
    run_id  INTEGER NOT NULL,
    rank    INTEGER NOT NULL,
    file_id INTEGER NOT NULL,
    name    VARCHAR NOT NULL,
    value   VARCHAR
);
COMMENT ON TABLE profiler_db_meta IS 'Metadata of an Ascend profiler DB, one row per item: META_DATA rows as written (SCHEMA_VERSION, ENV_VARIABLES ...), npu_name (NPU_INFO.name), rank_id and device_id (RANK_DEVICE_MAP), host_name (HOST_INFO).';
COMMENT ON COLUMN profiler_db_meta.run_id IS 'Run (run.run_id).';
COMMENT ON COLUMN profiler_db_meta.rank IS 'Rank (rank.rank).';
COMMENT ON COLUMN profiler_db_meta.file_id IS 'Input file (source_file.file_id).';
COMMENT ON COLUMN profiler_db_meta.name IS 'Item name: a META_DATA name, or npu_name, rank_id, device_id, host_name.';
COMMENT ON COLUMN profiler_db_meta.value IS 'Item value as text.';
