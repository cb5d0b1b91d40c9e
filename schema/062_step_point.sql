-- MindSpore step_trace_point_info.json: the ops that mark a step's forward start and backward end.

CREATE TABLE IF NOT EXISTS step_point (
    run_id      INTEGER NOT NULL,
    rank        INTEGER NOT NULL,
    file_id     INTEGER NOT NULL,
    point_index INTEGER NOT NULL,
    fp_start    VARCHAR,
    bp_end      VARCHAR
);
COMMENT ON TABLE step_point IS 'One row per fp/bp point pair of step_trace_point_info.json (one object; a list of them in MindSpore GPU async mode): the full names of the ops at which MindSpore''s step trace sets a step''s fp_point and bp_point. The steps of a MindSpore timeline_display are cut at the bp_end op (derive/035).';
COMMENT ON COLUMN step_point.run_id IS 'Run (run.run_id).';
COMMENT ON COLUMN step_point.rank IS 'Rank (rank.rank).';
COMMENT ON COLUMN step_point.file_id IS 'Input file (source_file.file_id).';
COMMENT ON COLUMN step_point.point_index IS '0 for the object form; the position in the list form.';
COMMENT ON COLUMN step_point.fp_start IS 'Full name of the first forward op (fp_start), e.g. Default/network-.../Conv2D-op1.';
COMMENT ON COLUMN step_point.bp_end IS 'Full name of the last backward op (bp_end).';
