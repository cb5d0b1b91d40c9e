-- parallel_layout — where each rank sits in the parallel layout of the job: its data-, pipeline-
-- and tensor-parallel index and the pipeline stage it belongs to.
-- Grain:     one row per (run, rank) of the rank table.
-- Source:    profiler_distributed_args and profiler_parallel_group (profiler_metadata.json
--            "distributed_args", "parallel_group_info"); the communication groups of
--            tracedb_internal.comm_group (communication.json / communication_matrix.json / trace
--            HCCL ops, members replaced by the metadata's global_ranks).
-- Reference: msprof-analyze cluster (cluster_step_trace_time.csv "DP Index", "PP Index", "TP
--            Index" and its stage rows). Indices: ParallelStrategyCalculator / MegatronAlgorithm
--            over the distributed_args of the lowest rank that has them (absent sizes = 1, 0 = 1):
--            n = world_size / PP; PP index = rank div n; DP index = (rank mod n) div TP; TP index
--            = rank mod n mod TP. NULL when world_size ≠ TP·PP·DP, DP is not a multiple of EP,
--            CP > 1 (msprof-analyze's partition fails there and prints NA) or rank ≥ world_size.
--            Stages: StageInfoAnalysis — p2p groups whose pg_name starts with "pp" are joined
--            into pipelines (groups sharing a rank); a collective group holding at most one rank
--            of every pipeline lies inside one stage; a stage = the ranks joined by such groups
--            (groups sharing a rank). Components are found by 4 rounds of smallest-rank
--            propagation: ranks more than 4 shared groups apart would stay apart (a Megatron
--            stage is at most 3 apart: TP, CP, DP groups). No stages
--            without a pp-named p2p group (msprof-analyze writes no stage rows then).
-- Units:     *_index 0-based positions; *_count ranks; *_ranks text.
CREATE OR REPLACE VIEW parallel_layout AS
WITH first_args AS (
    SELECT
        run_id,
        coalesce(world_size, 1) AS ws,
        CASE WHEN coalesce(tensor_model_parallel_size, 1) = 0 THEN 1 ELSE coalesce(tensor_model_parallel_size, 1) END AS tp,
        CASE WHEN coalesce(pipeline_model_parallel_size, 1) = 0 THEN 1 ELSE coalesce(pipeline_model_parallel_size, 1) END AS pp,
        CASE WHEN coalesce(data_parallel_size, 1) = 0 THEN 1 ELSE coalesce(data_parallel_size, 1) END AS dp,
        coalesce(context_parallel_size, 1) AS cp,
        CASE WHEN coalesce(expert_model_parallel_size, 1) = 0 THEN 1 ELSE coalesce(expert_model_parallel_size, 1) END AS ep
    FROM (
        SELECT *, row_number() OVER (PARTITION BY run_id ORDER BY rank, file_id) AS rn
        FROM profiler_distributed_args
    ) AS a
    WHERE rn = 1
),
args AS (
    SELECT *, ws // pp AS n
    FROM first_args
    WHERE ws = tp * pp * dp AND dp % ep = 0 AND cp = 1 AND ws > 0 AND tp > 0 AND pp > 0 AND dp > 0
),
grp AS (
    SELECT DISTINCT run_id, group_name, comm_kind, pg_name, rank FROM tracedb_internal.comm_group
),
p2p AS (
    SELECT DISTINCT run_id, group_name, rank FROM grp WHERE comm_kind = 'p2p' AND lower(pg_name) LIKE 'pp%'
),
-- pipelines: components of the pp p2p groups; one round = each rank takes the smallest label of
-- its groups, each group the smallest label of its members (one scan per round, no self-join)
pg0 AS (SELECT run_id, group_name, rank, rank AS lab FROM p2p),
pg1 AS (SELECT run_id, group_name, rank, min(t) OVER (PARTITION BY run_id, group_name) AS lab FROM (SELECT run_id, group_name, rank, min(lab) OVER (PARTITION BY run_id, rank) AS t FROM pg0) AS x),
pg2 AS (SELECT run_id, group_name, rank, min(t) OVER (PARTITION BY run_id, group_name) AS lab FROM (SELECT run_id, group_name, rank, min(lab) OVER (PARTITION BY run_id, rank) AS t FROM pg1) AS x),
pg3 AS (SELECT run_id, group_name, rank, min(t) OVER (PARTITION BY run_id, group_name) AS lab FROM (SELECT run_id, group_name, rank, min(lab) OVER (PARTITION BY run_id, rank) AS t FROM pg2) AS x),
pg4 AS (SELECT run_id, group_name, rank, min(t) OVER (PARTITION BY run_id, group_name) AS lab FROM (SELECT run_id, group_name, rank, min(lab) OVER (PARTITION BY run_id, rank) AS t FROM pg3) AS x),
p4 AS (SELECT run_id, rank, min(lab) AS lab FROM pg4 GROUP BY run_id, rank),
coll AS (
    SELECT DISTINCT g.run_id, g.group_name, g.rank
    FROM grp AS g
    JOIN (SELECT DISTINCT run_id FROM p2p) AS has_pp
        ON has_pp.run_id = g.run_id
    WHERE g.comm_kind = 'collective'
),
invalid AS (
    -- a collective group with two ranks of one pipeline spans stages
    SELECT DISTINCT c.run_id, c.group_name
    FROM coll AS c
    JOIN p4 AS p
        ON p.run_id = c.run_id AND p.rank = c.rank
    GROUP BY c.run_id, c.group_name, p.lab
    HAVING count(DISTINCT c.rank) > 1
),
valid AS (
    SELECT c.run_id, c.group_name, c.rank
    FROM coll AS c
    LEFT JOIN invalid AS i
        ON i.run_id = c.run_id AND i.group_name = c.group_name
    WHERE i.run_id IS NULL
),
sg0 AS (SELECT run_id, group_name, rank, rank AS lab FROM valid),
sg1 AS (SELECT run_id, group_name, rank, min(t) OVER (PARTITION BY run_id, group_name) AS lab FROM (SELECT run_id, group_name, rank, min(lab) OVER (PARTITION BY run_id, rank) AS t FROM sg0) AS x),
sg2 AS (SELECT run_id, group_name, rank, min(t) OVER (PARTITION BY run_id, group_name) AS lab FROM (SELECT run_id, group_name, rank, min(lab) OVER (PARTITION BY run_id, rank) AS t FROM sg1) AS x),
sg3 AS (SELECT run_id, group_name, rank, min(t) OVER (PARTITION BY run_id, group_name) AS lab FROM (SELECT run_id, group_name, rank, min(lab) OVER (PARTITION BY run_id, rank) AS t FROM sg2) AS x),
sg4 AS (SELECT run_id, group_name, rank, min(t) OVER (PARTITION BY run_id, group_name) AS lab FROM (SELECT run_id, group_name, rank, min(lab) OVER (PARTITION BY run_id, rank) AS t FROM sg3) AS x),
s4 AS (SELECT run_id, rank, min(lab) AS lab FROM sg4 GROUP BY run_id, rank),
stage AS (
    SELECT
        run_id, lab,
        (dense_rank() OVER (PARTITION BY run_id ORDER BY lab) - 1) AS stage_index,
        '(' || string_agg(CAST(rank AS VARCHAR), ', ' ORDER BY rank)
            || CASE WHEN count(*) = 1 THEN ',' ELSE '' END || ')' AS stage_ranks,
        count(*) AS stage_rank_count
    FROM s4
    GROUP BY run_id, lab
),
pipeline AS (
    SELECT run_id, lab, '(' || string_agg(CAST(rank AS VARCHAR), ', ' ORDER BY rank) || ')' AS pipeline_ranks
    FROM p4
    GROUP BY run_id, lab
)
SELECT
    r.run_name::VARCHAR                                                   AS run_name,          -- run name
    k.rank::INTEGER                                                       AS rank,              -- global rank
    CASE WHEN k.rank < a.ws THEN (k.rank % a.n) // a.tp END::INTEGER      AS dp_index,          -- DP Index (msprof-analyze MegatronAlgorithm); NULL without usable distributed_args
    CASE WHEN k.rank < a.ws THEN k.rank // a.n END::INTEGER               AS pp_index,          -- PP Index: pipeline stage by the distributed_args
    CASE WHEN k.rank < a.ws THEN k.rank % a.n % a.tp END::INTEGER         AS tp_index,          -- TP Index
    st.stage_index::INTEGER                                               AS stage_index,       -- stage by the communication groups, 0-based in order of the stages' first ranks; NULL when the rank is in no stage
    st.stage_ranks::VARCHAR                                               AS stage_ranks,       -- ranks of that stage as msprof-analyze prints its stage Index, e.g. "(0, 1)"
    st.stage_rank_count::BIGINT                                           AS stage_rank_count,  -- ranks in the stage
    pl.pipeline_ranks::VARCHAR                                            AS pipeline_ranks     -- ranks joined by pp p2p groups with this one, e.g. "(0, 2)"; NULL without them
FROM rank AS k
JOIN run AS r
    ON r.run_id = k.run_id
LEFT JOIN args AS a
    ON a.run_id = k.run_id
LEFT JOIN s4 AS sr
    ON sr.run_id = k.run_id AND sr.rank = k.rank
LEFT JOIN stage AS st
    ON st.run_id = sr.run_id AND st.lab = sr.lab
LEFT JOIN p4 AS pr
    ON pr.run_id = k.run_id AND pr.rank = k.rank
LEFT JOIN pipeline AS pl
    ON pl.run_id = pr.run_id AND pl.lab = pr.lab
ORDER BY run_name, rank;
