-- Runs, ranks and steps: the metadata every other table hangs off.

CREATE TABLE IF NOT EXISTS run (
    run_id      INTEGER PRIMARY KEY,
    run_name    VARCHAR NOT NULL UNIQUE,
    role        VARCHAR,
    platform    VARCHAR,
    source_path VARCHAR,
    ingested_at VARCHAR
);
COMMENT ON TABLE run IS 'One row per run (one training job profile, all its ranks). Source: tracedb ingest --run/--role; run_name defaults to the folder name of the ingested PATH.';
COMMENT ON COLUMN run.run_id IS 'Surrogate key of the run (1, 2, ...).';
COMMENT ON COLUMN run.run_name IS 'Run name, unique in the database (tracedb ingest --run, default: folder name of PATH).';
COMMENT ON COLUMN run.role IS 'baseline, comparison or NULL (tracedb ingest --role); op_diff compares the baseline run with the comparison run.';
COMMENT ON COLUMN run.platform IS 'npu (Ascend: torch_npu / MindSpore output) or gpu (PyTorch Kineto traces).';
COMMENT ON COLUMN run.source_path IS 'Absolute path the run was first ingested from.';
COMMENT ON COLUMN run.ingested_at IS 'UTC time of the first ingest into this run, ISO 8601 text.';

CREATE TABLE IF NOT EXISTS rank (
    run_id            INTEGER NOT NULL,
    rank              INTEGER NOT NULL,
    device_id         INTEGER,
    rank_source       VARCHAR,
    world_size        INTEGER,
    profiler_level    VARCHAR,
    framework_version VARCHAR,
    source_dir        VARCHAR,
    PRIMARY KEY (run_id, rank)
);
COMMENT ON TABLE rank IS 'One row per (run, rank). Source: profiler_info_{rank}.json (torch_npu/MindSpore), Kineto distributedInfo.rank, else the file name, else 0.';
COMMENT ON COLUMN rank.run_id IS 'Run (run.run_id).';
COMMENT ON COLUMN rank.rank IS 'Global rank id: profiler_info_{rank}.json file name or its rank_id; Kineto distributedInfo.rank; else a number in the file name; else 0.';
COMMENT ON COLUMN rank.device_id IS 'Device id (not the rank): trace_view.json process_labels "NPU n", kernel_details.csv Device_id, Kineto kernel args.device. NULL when unknown.';
COMMENT ON COLUMN rank.rank_source IS 'Where the rank came from: profiler_info, distributedInfo, file_name or default.';
COMMENT ON COLUMN rank.world_size IS 'Number of ranks in the job when the profiler wrote it (Kineto distributedInfo.world_size), else NULL.';
COMMENT ON COLUMN rank.profiler_level IS 'torch_npu profiler level (profiler_info experimental_config._profiler_level: Level0/Level1/Level2), else NULL.';
COMMENT ON COLUMN rank.framework_version IS 'torch_npu_version / ms_version from profiler_info, else NULL.';
COMMENT ON COLUMN rank.source_dir IS 'Folder (or file) the rank was ingested from.';

CREATE TABLE IF NOT EXISTS step (
    run_id          INTEGER NOT NULL,
    rank            INTEGER NOT NULL,
    step            INTEGER NOT NULL,
    host_start_ns   BIGINT,
    host_end_ns     BIGINT,
    device_start_ns BIGINT,
    device_end_ns   BIGINT,
    fp_ns           BIGINT,
    bp_ns           BIGINT,
    PRIMARY KEY (run_id, rank, step)
);
COMMENT ON TABLE step IS 'One row per (run, rank, step). Host window from the framework ProfilerStep#N slice (trace_view.json / Kineto); device window from the kernels attributed to the step, or (MindSpore) from step_trace_raw_{rank}_detail_time.csv start_point/end_point.';
COMMENT ON COLUMN step.run_id IS 'Run (run.run_id).';
COMMENT ON COLUMN step.rank IS 'Rank (rank.rank).';
COMMENT ON COLUMN step.step IS 'Step number N of ProfilerStep#N (kernel_details.csv Step Id uses the same number).';
COMMENT ON COLUMN step.host_start_ns IS 'Start of ProfilerStep#N on the host, integer ns since the epoch (trace ts, exact).';
COMMENT ON COLUMN step.host_end_ns IS 'End of ProfilerStep#N on the host (ts + dur), integer ns.';
COMMENT ON COLUMN step.device_start_ns IS 'Start of the first kernel attributed to the step, integer ns; NULL if the step has no kernel. MindSpore: step_trace_raw start_point x 10 ns (device counter time, the clock of HCCL .trace files).';
COMMENT ON COLUMN step.device_end_ns IS 'End of the last kernel attributed to the step, integer ns; NULL if the step has no kernel. MindSpore: end_point x 10 ns.';
COMMENT ON COLUMN step.fp_ns IS 'MindSpore step_trace_raw fp_point (forward start) x 10 ns, device counter time (not epoch); NULL elsewhere.';
COMMENT ON COLUMN step.bp_ns IS 'MindSpore step_trace_raw bp_point (backward end) x 10 ns, device counter time; NULL elsewhere and in inference files.';
