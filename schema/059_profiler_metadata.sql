-- profiler_metadata.json (torch_npu): the parallel layout the training job reported. Read by the
-- cluster views (parallel_layout, cluster_step_stage, the group labels).

CREATE TABLE IF NOT EXISTS profiler_parallel_group (
    run_id       INTEGER NOT NULL,
    rank         INTEGER NOT NULL,
    file_id      INTEGER NOT NULL,
    group_id     VARCHAR,
    group_name   VARCHAR,
    pg_name      VARCHAR,
    group_rank   INTEGER,
    global_rank  INTEGER
);
COMMENT ON TABLE profiler_parallel_group IS 'profiler_metadata.json "parallel_group_info": one row per (rank folder, process group, member global rank); a group with no global_ranks has one row with global_rank NULL.';
COMMENT ON COLUMN profiler_parallel_group.run_id IS 'Run (run.run_id).';
COMMENT ON COLUMN profiler_parallel_group.rank IS 'Rank (rank.rank) of the folder the file came from.';
COMMENT ON COLUMN profiler_parallel_group.file_id IS 'Input file (source_file.file_id).';
COMMENT ON COLUMN profiler_parallel_group.group_id IS 'Key of parallel_group_info as written, e.g. group_name_5.';
COMMENT ON COLUMN profiler_parallel_group.group_name IS 'HCCL group name that communication.json uses after "@": msprof-analyze double_hash(group_id) (two 32-bit polynomial hashes, primes 29 and 131, high and low word), as decimal text.';
COMMENT ON COLUMN profiler_parallel_group.pg_name IS '"group_name" of the entry: the framework''s process-group name (dp, dp_cp, tp, pp, mp, embd, default_group ...).';
COMMENT ON COLUMN profiler_parallel_group.group_rank IS '"group_rank": this folder''s rank inside the group.';
COMMENT ON COLUMN profiler_parallel_group.global_rank IS 'One member of "global_ranks" (global rank ids of the group).';

CREATE TABLE IF NOT EXISTS profiler_distributed_args (
    run_id                        INTEGER NOT NULL,
    rank                          INTEGER NOT NULL,
    file_id                       INTEGER NOT NULL,
    world_size                    INTEGER,
    tensor_model_parallel_size    INTEGER,
    pipeline_model_parallel_size  INTEGER,
    data_parallel_size            INTEGER,
    context_parallel_size         INTEGER,
    expert_model_parallel_size    INTEGER,
    sequence_parallel             BOOLEAN,
    args_rank                     INTEGER
);
COMMENT ON TABLE profiler_distributed_args IS 'profiler_metadata.json "distributed_args" (Megatron parallel sizes), one row per rank folder that has them.';
COMMENT ON COLUMN profiler_distributed_args.run_id IS 'Run (run.run_id).';
COMMENT ON COLUMN profiler_distributed_args.rank IS 'Rank (rank.rank) of the folder the file came from.';
COMMENT ON COLUMN profiler_distributed_args.file_id IS 'Input file (source_file.file_id).';
COMMENT ON COLUMN profiler_distributed_args.world_size IS '"world_size"; NULL if absent or not an integer.';
COMMENT ON COLUMN profiler_distributed_args.tensor_model_parallel_size IS '"tensor_model_parallel_size" (TP); NULL if absent.';
COMMENT ON COLUMN profiler_distributed_args.pipeline_model_parallel_size IS '"pipeline_model_parallel_size" (PP); NULL if absent.';
COMMENT ON COLUMN profiler_distributed_args.data_parallel_size IS '"data_parallel_size" (DP); NULL if absent.';
COMMENT ON COLUMN profiler_distributed_args.context_parallel_size IS '"context_parallel_size" (CP); NULL if absent.';
COMMENT ON COLUMN profiler_distributed_args.expert_model_parallel_size IS '"expert_model_parallel_size" (EP); NULL if absent.';
COMMENT ON COLUMN profiler_distributed_args.sequence_parallel IS '"sequence_parallel"; NULL if absent.';
COMMENT ON COLUMN profiler_distributed_args.args_rank IS '"rank" as written in distributed_args.';
