-- MindSpore MindData (dataset pipeline) profile: the output-queue samples of every pipeline op.

CREATE TABLE IF NOT EXISTS data_pipeline (
    run_id             INTEGER NOT NULL,
    rank               INTEGER NOT NULL,
    file_id            INTEGER NOT NULL,
    op_id              INTEGER NOT NULL,
    op_type            VARCHAR,
    num_workers        INTEGER,
    parent_op_id       INTEGER,
    children_op_ids    INTEGER[],
    depth              INTEGER,
    sample             INTEGER,
    queue_size         BIGINT,
    queue_capacity     BIGINT,
    sampling_interval_ms BIGINT,
    source             VARCHAR NOT NULL
);
COMMENT ON TABLE data_pipeline IS 'One row per (pipeline op, queue sample) of a MindSpore dataset pipeline: the number of rows (batches) waiting in the op''s output queue at each sampling. Source: pipeline_profiling_{rank}.json (op_info[].metrics.output_queue.size), else minddata_pipeline_raw_{rank}.csv (output_queue_size); an op without queue metrics (the root, e.g. EpochCtrlOp / DeviceQueueOp) has one row with sample NULL.';
COMMENT ON COLUMN data_pipeline.run_id IS 'Run (run.run_id).';
COMMENT ON COLUMN data_pipeline.rank IS 'Rank (rank.rank): the {rank} of the file name.';
COMMENT ON COLUMN data_pipeline.file_id IS 'Input file (source_file.file_id).';
COMMENT ON COLUMN data_pipeline.op_id IS 'Pipeline op id (op_id); the root op (no parent) feeds the device.';
COMMENT ON COLUMN data_pipeline.op_type IS 'Op type as written (ImageFolderOp, MapOp, BatchOp, ...; the CSV writes Batch, Shuffle, ...).';
COMMENT ON COLUMN data_pipeline.num_workers IS 'Worker threads of the op (num_workers).';
COMMENT ON COLUMN data_pipeline.parent_op_id IS 'The op that consumes this op''s output queue (JSON: the op listing it in children; CSV parent_id); NULL for the root.';
COMMENT ON COLUMN data_pipeline.children_op_ids IS 'Ops whose output queues this op reads (children / children_id); NULL for a source (leaf) op.';
COMMENT ON COLUMN data_pipeline.depth IS 'Steps from the root op down the parent links: 0 for the root (the op feeding the device), 1 for its children, ...; NULL if the op is not reachable from a root.';
COMMENT ON COLUMN data_pipeline.sample IS '0-based index of the queue sample (position in output_queue.size); samples are taken every sampling_interval_ms; NULL for an op without queue metrics.';
COMMENT ON COLUMN data_pipeline.queue_size IS 'Rows (batches) in the op''s output queue at the sample; 0 = empty: its consumer had nothing to take.';
COMMENT ON COLUMN data_pipeline.queue_capacity IS 'Capacity of the output queue (output_queue.length / output_queue_length).';
COMMENT ON COLUMN data_pipeline.sampling_interval_ms IS 'Sampling interval of the queue sizes, ms (sampling_interval / sample_interval).';
COMMENT ON COLUMN data_pipeline.source IS 'pipeline_profiling (JSON) or minddata_pipeline_raw (CSV).';
