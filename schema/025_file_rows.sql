-- Rows of input files that derived tables are rebuilt from: each reader writes only its own
-- file's rows here; the derive step builds kernel and step from them (and from event), so the
-- result does not depend on the order the files arrive in.

CREATE TABLE IF NOT EXISTS kernel_details_raw (
    run_id    INTEGER NOT NULL,
    rank      INTEGER NOT NULL,
    file_id   INTEGER NOT NULL,
    kernel_id BIGINT NOT NULL,
    step      INTEGER,
    stream_id VARCHAR
);
COMMENT ON TABLE kernel_details_raw IS 'What kernel_details.csv itself says of each kernel where the kernel table may hold a value from another file: its Step Id (else the kernel takes the step whose host window holds it) and Stream ID (else the trace task''s stream). The other columns of the row are kept verbatim in kernel; the derive step rebuilds kernel from both when a file of the rank arrives later.';
COMMENT ON COLUMN kernel_details_raw.run_id IS 'Run (run.run_id).';
COMMENT ON COLUMN kernel_details_raw.rank IS 'Rank (rank.rank).';
COMMENT ON COLUMN kernel_details_raw.file_id IS 'Input file (source_file.file_id).';
COMMENT ON COLUMN kernel_details_raw.kernel_id IS 'Row number in the file (1 = first data row) = kernel.kernel_id.';
COMMENT ON COLUMN kernel_details_raw.step IS '"Step Id"/"Step ID" as written; NULL when the file has no step column or the cell is empty.';
COMMENT ON COLUMN kernel_details_raw.stream_id IS '"Stream ID" as written; NULL if absent or N/A.';

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
