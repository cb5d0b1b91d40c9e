-- comm_group_label — a readable label for a communication group where profiler_metadata.json
-- names its process group: "{pg_name}: Group {group} Communication".
-- Grain:     one row per (run, rank, group_name) for every member rank of every group of
--            profiler_metadata.json "parallel_group_info"; each group appears under two names:
--            its hash (as communication.json and newer traces name it) and its id (group_name_5).
-- Source:    profiler_parallel_group (profiler_metadata.json of every rank folder of the run).
-- Reference: msprof-analyze compare (base_profiling_parser._update_pg_name_map,
--            OverallMetricsBean): the per-group rows of the overall table are described as
--            "{pg_name}: Group {g} Communication" when the metadata knows the group. Ranks and
--            groups the metadata does not name have no row (join with LEFT JOIN and keep
--            "Group {g} Communication").
-- Units:     none.
CREATE OR REPLACE VIEW tracedb_internal.comm_group_label AS
WITH named AS (
    SELECT DISTINCT run_id, global_rank AS rank, group_name AS group_key, group_id, pg_name
    FROM profiler_parallel_group
    WHERE global_rank IS NOT NULL AND pg_name IS NOT NULL AND pg_name <> ''
    UNION
    SELECT DISTINCT run_id, global_rank, group_id, group_id, pg_name
    FROM profiler_parallel_group
    WHERE global_rank IS NOT NULL AND pg_name IS NOT NULL AND pg_name <> ''
)
SELECT
    run_id::INTEGER                                                    AS run_id,      -- run
    rank::INTEGER                                                      AS rank,        -- member global rank
    group_key::VARCHAR                                                 AS group_name,  -- group as a file names it: hash (communication.json) or id (group_name_5)
    min(group_id)::VARCHAR                                             AS group_id,    -- profiler_metadata.json group id
    min(pg_name)::VARCHAR                                              AS pg_name,     -- process-group name (dp, tp, pp ...)
    (min(pg_name) || ': Group ' || group_key || ' Communication')::VARCHAR AS label    -- "{pg_name}: Group {group_name} Communication"
FROM named
GROUP BY run_id, rank, group_key;
