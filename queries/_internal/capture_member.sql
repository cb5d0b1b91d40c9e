-- capture_member — the members of capture_island's unions: a rank's device events over the
-- whole capture, once per union they belong to (kinds computing, communication, busy, all, group,
-- wait, msprof_wait and pair; see tracedb_internal.capture_island for the rules and the reference;
-- msprof_wait: msprof-analyze's Ascend DB choice of the wait plane where it differs).
-- Grain:     one row per (kind, run, rank, group_name, other_group_name, member): a kernel,
--            communication op or copy (kernel_id), or a Notify_Wait task (negative kernel_id).
-- Source:    tracedb_internal.capture_kernel (which kernels are in which union, NPU copies
--            clipped); link (Notify_Wait, RDMASend of trace_view.json).
-- Reference: msprof-analyze's whole-capture overall numbers (analyses.md §2.1), as listed in
--            tracedb_internal.capture_island.
-- Units:     *_ns integer nanoseconds since the epoch.
CREATE OR REPLACE VIEW tracedb_internal.capture_member AS
WITH kc AS (
    -- read once: every branch below uses it (a CTE used several times is computed once)
    SELECT run_id, rank, kernel_id, group_name, ts_ns, end_ns, is_communication,
           in_computing, in_communication, in_busy, in_all, all_start_ns, all_end_ns
    FROM tracedb_internal.capture_kernel
),
groups AS (
    SELECT DISTINCT run_id, rank, group_name
    FROM kc
    WHERE is_communication AND group_name IS NOT NULL
),
plane_task AS (
    -- the four tasks before each task on its plane, by one-step lag() layers (a lag() with an
    -- offset does not survive DuckDB 2.0's view text for the 1.5 shell)
    SELECT *, lag(t3) OVER (PARTITION BY run_id, rank, group_name, plane_id ORDER BY ts_ns, dur_ns, seq) AS t4
    FROM (SELECT *, lag(t2) OVER (PARTITION BY run_id, rank, group_name, plane_id ORDER BY ts_ns, dur_ns, seq) AS t3
          FROM (SELECT *, lag(t1) OVER (PARTITION BY run_id, rank, group_name, plane_id ORDER BY ts_ns, dur_ns, seq) AS t2
                FROM (SELECT *, lag(task_name) OVER (PARTITION BY run_id, rank, group_name, plane_id ORDER BY ts_ns, dur_ns, seq) AS t1
                      FROM (SELECT run_id, rank, group_name, plane_id, task_name, ts_ns, dur_ns,
                                   row_number() OVER (PARTITION BY run_id, rank, group_name, plane_id
                                                      ORDER BY ts_ns, dur_ns, task_name) AS seq
                            FROM link
                            WHERE group_name IS NOT NULL AND plane_id IS NOT NULL) AS l0) AS l1) AS l2) AS l3
),
notify_wait AS (
    SELECT run_id, rank, group_name, plane_id, ts_ns, dur_ns
    FROM plane_task
    WHERE task_name = 'Notify_Wait'
      AND NOT (coalesce(t1 = 'RDMASend', false) AND coalesce(t2 = 'RDMASend', false))
      AND NOT (coalesce(t1 = 'RDMASend', false) AND coalesce(t2 = 'Notify_Wait', false)
               AND coalesce(t3 = 'RDMASend', false) AND coalesce(t4 = 'RDMASend', false))
),
plane_wait AS (
    SELECT p.run_id, p.rank, p.group_name, p.plane_id, coalesce(sum(w.dur_ns), 0) AS wait_ns
    FROM (SELECT DISTINCT run_id, rank, group_name, plane_id FROM link
          WHERE group_name IS NOT NULL AND plane_id IS NOT NULL) AS p
    LEFT JOIN notify_wait AS w
        ON w.run_id = p.run_id AND w.rank = p.rank AND w.group_name = p.group_name AND w.plane_id = p.plane_id
    GROUP BY p.run_id, p.rank, p.group_name, p.plane_id
),
wait_plane AS (
    SELECT run_id, rank, group_name, plane_id
    FROM (SELECT *, row_number() OVER (PARTITION BY run_id, rank, group_name ORDER BY wait_ns, plane_id) AS n
          FROM plane_wait) AS x
    WHERE n = 1
),
msprof_wait_plane AS (
    -- msprof-analyze's Ascend DB path (overall_metrics_parser.calculate_communication_wait_time)
    -- chooses among the planes that have a Notify_Wait only (its text path, like wait_plane, among
    -- all the group's planes): for the DB ranks where that is another plane than wait_plane's
    SELECT p.run_id, p.rank, p.group_name, p.plane_id
    FROM (SELECT w.run_id, w.rank, w.group_name, w.plane_id,
                 row_number() OVER (PARTITION BY w.run_id, w.rank, w.group_name
                                    ORDER BY sum(w.dur_ns), w.plane_id) AS n
          FROM notify_wait AS w
          GROUP BY w.run_id, w.rank, w.group_name, w.plane_id) AS p
    JOIN wait_plane AS t
        ON t.run_id = p.run_id AND t.rank = p.rank AND t.group_name = p.group_name
    WHERE p.n = 1 AND p.plane_id <> t.plane_id
      AND EXISTS (SELECT 1 FROM source_file AS f
                  WHERE f.run_id = p.run_id AND f.rank = p.rank AND f.format = 'ascend_db')
),
group_pair AS (
    SELECT a.run_id, a.rank, a.group_name, b.group_name AS other_group_name
    FROM groups AS a
    JOIN groups AS b
        ON b.run_id = a.run_id AND b.rank = a.rank AND a.group_name < b.group_name
),
member AS (
    SELECT 'computing' AS kind, run_id, rank, CAST(NULL AS VARCHAR) AS group_name,
           CAST(NULL AS VARCHAR) AS other_group_name, kernel_id, ts_ns AS start_ns, end_ns
    FROM kc
    WHERE in_computing
    UNION ALL
    SELECT 'communication', run_id, rank, NULL, NULL, kernel_id, ts_ns, end_ns
    FROM kc
    WHERE in_communication
    UNION ALL
    SELECT 'busy', run_id, rank, NULL, NULL, kernel_id, ts_ns, end_ns
    FROM kc
    WHERE in_busy
    UNION ALL
    SELECT 'all', run_id, rank, NULL, NULL, kernel_id, all_start_ns, all_end_ns
    FROM kc
    WHERE in_all
    UNION ALL
    SELECT 'group', k.run_id, k.rank, g.group_name, NULL, k.kernel_id, k.ts_ns, k.end_ns
    FROM kc AS k
    JOIN groups AS g
        ON g.run_id = k.run_id AND g.rank = k.rank
    WHERE k.in_computing OR (k.is_communication AND k.group_name = g.group_name)
    UNION ALL
    SELECT 'wait', k.run_id, k.rank, g.group_name, NULL, k.kernel_id, k.ts_ns, k.end_ns
    FROM kc AS k
    JOIN wait_plane AS g
        ON g.run_id = k.run_id AND g.rank = k.rank
    WHERE k.in_computing
    UNION ALL
    SELECT 'wait', w.run_id, w.rank, w.group_name, NULL, -row_number() OVER (ORDER BY w.ts_ns), w.ts_ns, w.ts_ns + w.dur_ns
    FROM notify_wait AS w
    JOIN wait_plane AS p
        ON p.run_id = w.run_id AND p.rank = w.rank AND p.group_name = w.group_name AND p.plane_id = w.plane_id
    UNION ALL
    SELECT 'msprof_wait', k.run_id, k.rank, g.group_name, NULL, k.kernel_id, k.ts_ns, k.end_ns
    FROM kc AS k
    JOIN msprof_wait_plane AS g
        ON g.run_id = k.run_id AND g.rank = k.rank
    WHERE k.in_computing
    UNION ALL
    SELECT 'msprof_wait', w.run_id, w.rank, w.group_name, NULL, -row_number() OVER (ORDER BY w.ts_ns), w.ts_ns,
           w.ts_ns + w.dur_ns
    FROM notify_wait AS w
    JOIN msprof_wait_plane AS p
        ON p.run_id = w.run_id AND p.rank = w.rank AND p.group_name = w.group_name AND p.plane_id = w.plane_id
    UNION ALL
    SELECT 'pair', k.run_id, k.rank, g.group_name, g.other_group_name, k.kernel_id, k.ts_ns, k.end_ns
    FROM kc AS k
    JOIN group_pair AS g
        ON g.run_id = k.run_id AND g.rank = k.rank
    WHERE k.in_computing
       OR (k.is_communication AND k.group_name IN (g.group_name, g.other_group_name))
)
SELECT
    kind::VARCHAR              AS kind,              -- computing, communication, busy, all, group, wait, msprof_wait or pair
    run_id::INTEGER            AS run_id,            -- run
    rank::INTEGER              AS rank,              -- rank
    group_name::VARCHAR        AS group_name,        -- kinds group, wait and pair: the communication group
    other_group_name::VARCHAR  AS other_group_name,  -- kind pair: the second group
    kernel_id::BIGINT          AS kernel_id,         -- the kernel (negative: a Notify_Wait task)
    start_ns::BIGINT           AS start_ns,          -- member start, ns (copies clipped on NPU, see capture_island)
    end_ns::BIGINT             AS end_ns             -- member end, ns
FROM member;
