-- overall_summary — msprof-analyze compare's OverallMetrics rows for each rank: Computing Time split
-- into kernel categories, Uncovered Communication per group with Wait / Transmit, Free Time with
-- its copy (SDMA) part, E2E Time and Mem Usage.
-- Grain:     one row per (run, rank, metric, parent_metric) that is non-zero (as msprof-analyze drops
--            rows whose durations are ~0); Computing Time, Uncovered Communication Time, Free Time
--            and E2E Time always.
-- Source:    tracedb_internal.capture_island (whole-capture unions, Notify_Wait of link) and
--            tracedb_internal.kernel_class (kernel categories from kernel_class_rule); memory
--            (memory_record.csv Total Reserved, Kineto [memory] events).
-- Reference: msprof-analyze compare OverallMetrics sheet (analyses.md §2.4; overall_metrics_bean,
--            base_profiling_parser): category rows are sums of kernel durations with kernel counts
--            (Flash Attention / Conv split by direction, FA / Conv / Matmul into (Cube) and (Vector)
--            by sub_category, Vector into (Trans) and (No Trans)); Other = max(0, Computing − every
--            category) without a count; Computing Time's count = kernels in a named category. Per
--            group: Uncovered = |group ops \ U(computing)|, Wait = chosen plane's Notify_Waits
--            outside computing (capture_island), Transmit = Uncovered − Wait; Uncovered Communication
--            Overlapped (per pair of groups, and their sum) = time two groups are exposed at once.
--            Free Time = E2E −
--            Computing − Uncovered; its SDMA row = copies outside computing and communication, Free
--            = the rest. Mem Usage: max Total Reserved (size_bytes). The group label is
--            "Group <g> Communication" (trace thread name), "{pg_name}: Group <g> Communication"
--            where profiler_metadata.json names the group (tracedb_internal.comm_group_label).
-- Units:     *_ns integer nanoseconds; *_count kernels; size_bytes bytes; ratio_of_e2e = dur_ns /
--            E2E of the rank (0–1).
CREATE OR REPLACE VIEW overall_summary AS
WITH island AS (
    -- read once: cap, grp and pair use it
    SELECT kind, run_id, rank, group_name, other_group_name, start_ns, end_ns
    FROM tracedb_internal.capture_island
),
cap AS (
    SELECT
        run_id, rank,
        sum(CASE WHEN kind = 'computing' THEN end_ns - start_ns ELSE 0 END) AS computing_ns,
        sum(CASE WHEN kind = 'busy' THEN end_ns - start_ns ELSE 0 END) AS busy_ns,
        sum(CASE WHEN kind = 'all' THEN end_ns - start_ns ELSE 0 END) AS all_ns,
        max(CASE WHEN kind = 'all' THEN end_ns END) - min(CASE WHEN kind = 'all' THEN start_ns END) AS e2e_ns
    FROM island
    WHERE kind IN ('computing', 'busy', 'all')
    GROUP BY run_id, rank
),
grp AS (
    SELECT
        i.run_id, i.rank, i.group_name,
        sum(CASE WHEN i.kind = 'group' THEN i.end_ns - i.start_ns ELSE 0 END) - max(c.computing_ns) AS uncovered_ns,
        CASE WHEN sum(CASE WHEN i.kind = 'wait' THEN 1 ELSE 0 END) > 0
             THEN sum(CASE WHEN i.kind = 'wait' THEN i.end_ns - i.start_ns ELSE 0 END) - max(c.computing_ns)
             ELSE 0 END AS wait_ns
    FROM island AS i
    JOIN cap AS c
        ON c.run_id = i.run_id AND c.rank = i.rank
    WHERE i.kind IN ('group', 'wait')
    GROUP BY i.run_id, i.rank, i.group_name
),
grp_label AS (
    -- "{pg_name}: Group <g> Communication" where profiler_metadata.json names the group
    SELECT g.*, coalesce(l.label, 'Group ' || g.group_name || ' Communication') AS label
    FROM grp AS g
    LEFT JOIN tracedb_internal.comm_group_label AS l
        ON l.run_id = g.run_id AND l.rank = g.rank AND l.group_name = g.group_name
),
pair AS (
    -- Uncovered Communication Overlapped of two groups: |A \ C| + |B \ C| − |(A ∪ B) \ C|
    SELECT
        p.run_id, p.rank, p.group_name, p.other_group_name,
        a.uncovered_ns + b.uncovered_ns - (p.pair_ns - c.computing_ns) AS overlapped_ns
    FROM (SELECT run_id, rank, group_name, other_group_name, sum(end_ns - start_ns) AS pair_ns
          FROM island
          WHERE kind = 'pair'
          GROUP BY run_id, rank, group_name, other_group_name) AS p
    JOIN cap AS c
        ON c.run_id = p.run_id AND c.rank = p.rank
    JOIN grp AS a
        ON a.run_id = p.run_id AND a.rank = p.rank AND a.group_name = p.group_name
    JOIN grp AS b
        ON b.run_id = p.run_id AND b.rank = p.rank AND b.group_name = p.other_group_name
),
compute AS (
    -- compute kernels with the row they go to (msprof-analyze's labels)
    SELECT
        run_id, rank, name, dur_ns, sub_category,
        CASE category
            WHEN 'Flash Attention' THEN CASE WHEN direction = 'bwd' THEN 'Flash Attention (Backward)'
                                             ELSE 'Flash Attention (Forward)' END
            WHEN 'Conv' THEN CASE WHEN direction = 'bwd' THEN 'Conv (Backward)' ELSE 'Conv (Forward)' END
            WHEN 'Paged Attention' THEN 'Page Attention'
            WHEN 'MC2' THEN name
            ELSE category
        END AS metric,
        category
    FROM tracedb_internal.kernel_class
    WHERE NOT is_communication AND NOT is_copy AND category NOT IN ('Other', 'Lccl')
),
category_row AS (
    SELECT run_id, rank, metric, 'Computing Time' AS parent_metric, sum(dur_ns) AS dur_ns, count(*) AS kernel_count,
           CASE WHEN any_value(category) = 'MC2' THEN '1' ELSE
           CASE metric WHEN 'Flash Attention (Forward)' THEN '2' WHEN 'Flash Attention (Backward)' THEN '3'
                       WHEN 'Conv (Forward)' THEN '4' WHEN 'Conv (Backward)' THEN '5' WHEN 'Matmul' THEN '6'
                       WHEN 'Page Attention' THEN '7' WHEN 'Vector' THEN '8' WHEN 'Cube' THEN '9'
                       WHEN 'SDMA (Tensor Move)' THEN 'A' ELSE 'B' END END AS position
    FROM compute
    GROUP BY run_id, rank, metric
),
sub_row AS (
    SELECT run_id, rank, metric, parent_metric, sum(dur_ns) AS dur_ns, count(*) AS kernel_count, position
    FROM (
        SELECT
            run_id, rank, dur_ns, metric AS parent_metric,
            CASE WHEN metric = 'Vector'
                 THEN CASE WHEN sub_category = 'trans' THEN 'Vector (Trans)' ELSE 'Vector (No Trans)' END
                 ELSE metric || CASE WHEN sub_category = 'cube' THEN ' (Cube)' ELSE ' (Vector)' END END AS metric,
            CASE WHEN metric = 'Vector' THEN CASE WHEN sub_category = 'trans' THEN '1' ELSE '2' END
                 ELSE CASE WHEN sub_category = 'cube' THEN '1' ELSE '2' END END AS position
        FROM compute
        WHERE metric IN ('Flash Attention (Forward)', 'Flash Attention (Backward)', 'Conv (Forward)',
                         'Conv (Backward)', 'Matmul', 'Vector')
    ) AS x
    GROUP BY run_id, rank, metric, parent_metric, position
),
mem AS (
    SELECT run_id, rank, max(reserved_bytes) AS size_bytes
    FROM memory
    WHERE kind IN ('record', 'event')
    GROUP BY run_id, rank
),
metric_row AS (
    SELECT c.run_id, c.rank, 'Computing Time' AS metric, CAST(NULL AS VARCHAR) AS parent_metric, c.computing_ns AS dur_ns,
           coalesce((SELECT sum(x.kernel_count) FROM category_row AS x WHERE x.run_id = c.run_id AND x.rank = c.rank), 0)
               AS kernel_count,
           CAST(NULL AS BIGINT) AS size_bytes, '1' AS sort_key
    FROM cap AS c
    UNION ALL
    SELECT run_id, rank, metric, parent_metric, dur_ns, kernel_count, NULL, '1.' || position || '.' || metric
    FROM category_row
    UNION ALL
    SELECT s.run_id, s.rank, s.metric, s.parent_metric, s.dur_ns, s.kernel_count, NULL,
           '1.' || c.position || '.' || s.parent_metric || '.' || s.position
    FROM sub_row AS s
    JOIN category_row AS c
        ON c.run_id = s.run_id AND c.rank = s.rank AND c.metric = s.parent_metric
    UNION ALL
    SELECT c.run_id, c.rank, 'Other', 'Computing Time',
           greatest(0, c.computing_ns - coalesce((SELECT sum(x.dur_ns) FROM category_row AS x
                                                   WHERE x.run_id = c.run_id AND x.rank = c.rank), 0)),
           NULL, NULL, '1.C'
    FROM cap AS c
    UNION ALL
    SELECT run_id, rank, 'Uncovered Communication Time', NULL, busy_ns - computing_ns, NULL, NULL, '2'
    FROM cap
    UNION ALL
    SELECT run_id, rank, label, 'Uncovered Communication Time', uncovered_ns,
           NULL, NULL, '2.' || group_name
    FROM grp_label
    UNION ALL
    SELECT run_id, rank, 'Wait', label, wait_ns, NULL, NULL, '2.' || group_name || '.1'
    FROM grp_label
    UNION ALL
    SELECT run_id, rank, 'Transmit', label, uncovered_ns - wait_ns, NULL, NULL,
           '2.' || group_name || '.2'
    FROM grp_label
    UNION ALL
    SELECT run_id, rank, 'Uncovered Communication Overlapped', 'Uncovered Communication Time', sum(overlapped_ns),
           NULL, NULL, '2.~'
    FROM pair
    GROUP BY run_id, rank
    UNION ALL
    SELECT run_id, rank, 'Group ' || group_name || ' Communication & Group ' || other_group_name || ' Communication',
           'Uncovered Communication Overlapped', overlapped_ns, NULL, NULL, '2.~.' || group_name || '.' || other_group_name
    FROM pair
    UNION ALL
    SELECT run_id, rank, 'Free Time', NULL, e2e_ns - busy_ns, NULL, NULL, '3'
    FROM cap
    UNION ALL
    SELECT run_id, rank, 'SDMA', 'Free Time', all_ns - busy_ns, NULL, NULL, '3.1'
    FROM cap
    UNION ALL
    SELECT run_id, rank, 'Free', 'Free Time', e2e_ns - all_ns, NULL, NULL, '3.2'
    FROM cap
    UNION ALL
    SELECT run_id, rank, 'E2E Time', NULL, e2e_ns, NULL, NULL, '4'
    FROM cap
    UNION ALL
    SELECT run_id, rank, 'Mem Usage', NULL, NULL, NULL, size_bytes, '5'
    FROM mem
)
SELECT
    r.run_name::VARCHAR                              AS run_name,       -- run name
    m.rank::INTEGER                                  AS rank,           -- global rank
    m.metric::VARCHAR                                AS metric,         -- OverallMetrics row name (msprof-analyze's labels; MC2 rows: the kernel name)
    m.parent_metric::VARCHAR                         AS parent_metric,  -- the row it is indented under; NULL for a top row
    m.dur_ns::BIGINT                                 AS dur_ns,         -- duration, ns (NULL for Mem Usage)
    m.kernel_count::BIGINT                           AS kernel_count,   -- kernels counted (msprof-analyze "Number"); NULL where it prints "/"
    CASE WHEN c.e2e_ns > 0 THEN m.dur_ns::DOUBLE / c.e2e_ns END::DOUBLE
                                                     AS ratio_of_e2e,   -- dur_ns / E2E Time of the rank (msprof-analyze "Duration Ratio")
    m.size_bytes::BIGINT                             AS size_bytes,     -- Mem Usage: max Total Reserved, bytes; NULL for other rows
    m.sort_key::VARCHAR                              AS sort_key        -- sorts the rows in msprof-analyze's order (hierarchy)
FROM metric_row AS m
JOIN cap AS c
    ON c.run_id = m.run_id AND c.rank = m.rank
JOIN run AS r
    ON r.run_id = m.run_id
WHERE m.parent_metric IS NULL OR m.dur_ns <> 0
ORDER BY r.run_name, m.rank, m.sort_key;
