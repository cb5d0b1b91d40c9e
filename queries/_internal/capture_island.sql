-- capture_island — islands of the union of a rank's device events over the whole capture (all
-- steps and the kernels outside every step): of its computing kernels (kind computing), its
-- communication ops (communication), both (busy), both and copies (all), and of computing
-- kernels with the ops of one communication group (group, group_name set).
-- Grain:     one row per maximal interval of a (run, rank, kind, group_name) covered by at least
--            one member.
-- Source:    tracedb_internal.kernel_class (is_communication, is_copy, group_name).
-- Reference: msprof-analyze's overall numbers are whole-capture (analyses.md §2.1): Computing
--            = |U(compute)|, Uncovered Communication = |U(busy)| − |U(compute)|; per group,
--            |U(compute ∪ group)| − |U(compute)| = the group's ops inside the uncovered time.
--            Touching intervals merge (next start <= running max end).
-- Units:     *_ns integer nanoseconds since the epoch.
CREATE OR REPLACE VIEW tracedb_internal.capture_island AS
WITH groups AS (
    SELECT DISTINCT run_id, rank, group_name
    FROM tracedb_internal.kernel_class
    WHERE is_communication AND group_name IS NOT NULL
),
member AS (
    SELECT 'computing' AS kind, run_id, rank, CAST(NULL AS VARCHAR) AS group_name, kernel_id, ts_ns AS start_ns,
           ts_ns + dur_ns AS end_ns
    FROM tracedb_internal.kernel_class
    WHERE NOT is_communication AND NOT is_copy
    UNION ALL
    SELECT 'communication', run_id, rank, NULL, kernel_id, ts_ns, ts_ns + dur_ns
    FROM tracedb_internal.kernel_class
    WHERE is_communication
    UNION ALL
    SELECT 'busy', run_id, rank, NULL, kernel_id, ts_ns, ts_ns + dur_ns
    FROM tracedb_internal.kernel_class
    WHERE NOT is_copy
    UNION ALL
    SELECT 'all', run_id, rank, NULL, kernel_id, ts_ns, ts_ns + dur_ns
    FROM tracedb_internal.kernel_class
    UNION ALL
    SELECT 'group', k.run_id, k.rank, g.group_name, k.kernel_id, k.ts_ns, k.ts_ns + k.dur_ns
    FROM tracedb_internal.kernel_class AS k
    JOIN groups AS g
        ON g.run_id = k.run_id AND g.rank = k.rank
    WHERE (NOT k.is_communication AND NOT k.is_copy) OR (k.is_communication AND k.group_name = g.group_name)
),
with_previous_end AS (
    SELECT
        *,
        max(end_ns) OVER (
            PARTITION BY kind, run_id, rank, group_name ORDER BY start_ns, end_ns, kernel_id
            ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING
        ) AS previous_max_end_ns
    FROM member
),
numbered AS (
    SELECT
        *,
        sum(CASE WHEN previous_max_end_ns IS NULL OR start_ns > previous_max_end_ns THEN 1 ELSE 0 END)
            OVER (PARTITION BY kind, run_id, rank, group_name ORDER BY start_ns, end_ns, kernel_id
                  ROWS UNBOUNDED PRECEDING)
            AS island
    FROM with_previous_end
)
SELECT
    kind::VARCHAR          AS kind,        -- computing, communication, busy (both), all (and copies) or group
    run_id::INTEGER        AS run_id,      -- run
    rank::INTEGER          AS rank,        -- rank
    group_name::VARCHAR    AS group_name,  -- kind group: the communication group; NULL otherwise
    island::BIGINT         AS island,      -- island number within the (kind, group), from 1
    min(start_ns)::BIGINT  AS start_ns,    -- island start, ns
    max(end_ns)::BIGINT    AS end_ns       -- island end, ns
FROM numbered
GROUP BY kind, run_id, rank, group_name, island;
