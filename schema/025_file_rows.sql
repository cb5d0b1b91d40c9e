-- Rows of input files that other tables are derived from: each reader writes only its own
-- file's rows here; the derive step builds kernel and step from them (and from event), so the
-- result does not depend on the order the files arrive in.

CREATE TABLE IF NOT EXISTS kernel_details_row (
    run_id           INTEGER NOT NULL,
    rank             INTEGER NOT NULL,
    file_id          INTEGER NOT NULL,
    step             INTEGER,
    name             VARCHAR,
    op_type          VARCHAR,
    accelerator_core VARCHAR,
    device_id        INTEGER,
    stream_id        VARCHAR,
    ts_ns            BIGINT,
    dur_ns           BIGINT,
    wait_ns          BIGINT,
    is_communication BOOLEAN,
    input_shapes     VARCHAR,
    input_dtypes     VARCHAR,
    output_shapes    VARCHAR,
    block_dim        INTEGER
);
COMMENT ON TABLE kernel_details_row IS 'kernel_details.csv rows as parsed (one per row, header variants matched by name), stored in file order: the n-th row of a file (ORDER BY rowid) is kernel_id n. The kernel table is derived from them, with the trace task type, stream and group and the window step.';
COMMENT ON COLUMN kernel_details_row.run_id IS 'Run (run.run_id).';
COMMENT ON COLUMN kernel_details_row.rank IS 'Rank (rank.rank).';
COMMENT ON COLUMN kernel_details_row.file_id IS 'Input file (source_file.file_id).';
COMMENT ON COLUMN kernel_details_row.step IS '"Step Id"/"Step ID"; NULL when the file has no step column or the cell is empty.';
COMMENT ON COLUMN kernel_details_row.name IS '"Name".';
COMMENT ON COLUMN kernel_details_row.op_type IS '"Type" as written (N/A at Level0).';
COMMENT ON COLUMN kernel_details_row.accelerator_core IS '"Accelerator Core" (older files: "Task Type").';
COMMENT ON COLUMN kernel_details_row.device_id IS '"Device_id"; NULL if absent.';
COMMENT ON COLUMN kernel_details_row.stream_id IS '"Stream ID"; NULL if absent or N/A.';
COMMENT ON COLUMN kernel_details_row.ts_ns IS '"Start Time(us)" in integer ns since the epoch, exact.';
COMMENT ON COLUMN kernel_details_row.dur_ns IS '"Duration(us)" in integer ns.';
COMMENT ON COLUMN kernel_details_row.wait_ns IS '"Wait Time(us)" in integer ns; NULL if absent.';
COMMENT ON COLUMN kernel_details_row.is_communication IS 'Accelerator Core HCCL/COMMUNICATION or a name starting hcom_.';
COMMENT ON COLUMN kernel_details_row.input_shapes IS '"Input Shapes" without the literal quotes.';
COMMENT ON COLUMN kernel_details_row.input_dtypes IS '"Input Data Types".';
COMMENT ON COLUMN kernel_details_row.output_shapes IS '"Output Shapes" without the literal quotes.';
COMMENT ON COLUMN kernel_details_row.block_dim IS '"Block Dim"/"Block Num"; NULL if absent or N/A.';

CREATE TABLE IF NOT EXISTS step_trace_raw_row (
    run_id          INTEGER NOT NULL,
    rank            INTEGER NOT NULL,
    file_id         INTEGER NOT NULL,
    step            INTEGER NOT NULL,
    start_ns        BIGINT,
    end_ns          BIGINT,
    fp_ns           BIGINT,
    bp_ns           BIGINT
);
COMMENT ON TABLE step_trace_raw_row IS 'MindSpore step_trace_raw_{rank}_detail_time.csv step rows as parsed (device counter ticks x 10 ns). The step table takes its device window, fp and bp from them.';
COMMENT ON COLUMN step_trace_raw_row.run_id IS 'Run (run.run_id).';
COMMENT ON COLUMN step_trace_raw_row.rank IS 'Rank (rank.rank).';
COMMENT ON COLUMN step_trace_raw_row.file_id IS 'Input file (source_file.file_id).';
COMMENT ON COLUMN step_trace_raw_row.step IS 'step_num (the average row is skipped).';
COMMENT ON COLUMN step_trace_raw_row.start_ns IS 'start_point x 10 ns (device counter time, not the epoch).';
COMMENT ON COLUMN step_trace_raw_row.end_ns IS 'end_point x 10 ns.';
COMMENT ON COLUMN step_trace_raw_row.fp_ns IS 'fp_point x 10 ns (forward start); NULL if absent.';
COMMENT ON COLUMN step_trace_raw_row.bp_ns IS 'bp_point x 10 ns (backward end); NULL if absent.';
