-- capture_union — the length and extent of each union of tracedb_internal.capture_island,
-- without its islands: what overall_summary and capture_breakdown need.
-- Grain:     one row per (run, rank, kind, group_name, other_group_name) with at least one member.
-- Source:    tracedb_internal.capture_kernel (kinds computing, communication, busy, all: the
--            same members as tracedb_internal.capture_member's, NPU copies clipped);
--            tracedb_internal.capture_member (kinds group, wait, msprof_wait, pair).
-- Reference: |U| = Σ over the members in start order of max(0, end − max(start, the largest end
--            before it)); equal to Σ (end − start) over capture_island's islands. Any order of
--            equal starts gives the same sum.
-- Method:    the four kinds that are subsets of a rank's kernels share one window over the
--            rank's kernels in start order, a running maximum per kind (a kernel outside the
--            kind does not raise it); the group kinds, whose members depend on the group, have
--            one window per (kind, group) over capture_member.
-- Units:     *_ns integer nanoseconds (start_ns, end_ns since the epoch).
CREATE OR REPLACE VIEW tracedb_internal.capture_union AS
WITH member AS (
    SELECT run_id, rank, kernel_id, ts_ns, end_ns, in_computing, in_communication, in_busy, in_all,
           all_start_ns, all_end_ns
    FROM tracedb_internal.capture_kernel
),
with_previous_end AS (
    SELECT
        *,
        max(CASE WHEN in_computing THEN end_ns END) OVER (
            PARTITION BY run_id, rank ORDER BY ts_ns, kernel_id ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING
        ) AS computing_previous_ns,
        max(CASE WHEN in_communication THEN end_ns END) OVER (
            PARTITION BY run_id, rank ORDER BY ts_ns, kernel_id ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING
        ) AS communication_previous_ns,
        max(CASE WHEN in_busy THEN end_ns END) OVER (
            PARTITION BY run_id, rank ORDER BY ts_ns, kernel_id ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING
        ) AS busy_previous_ns,
        max(CASE WHEN in_all THEN all_end_ns END) OVER (
            PARTITION BY run_id, rank ORDER BY ts_ns, kernel_id ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING
        ) AS all_previous_ns
    FROM member
),
base AS (
    SELECT
        run_id, rank,
        sum(CASE WHEN in_computing THEN 1 ELSE 0 END) AS computing_members,
        sum(CASE WHEN in_computing THEN greatest(0, end_ns - greatest(ts_ns, coalesce(computing_previous_ns, ts_ns))) END)
            AS computing_ns,
        min(CASE WHEN in_computing THEN ts_ns END) AS computing_start_ns,
        max(CASE WHEN in_computing THEN end_ns END) AS computing_end_ns,
        sum(CASE WHEN in_communication THEN 1 ELSE 0 END) AS communication_members,
        sum(CASE WHEN in_communication
                 THEN greatest(0, end_ns - greatest(ts_ns, coalesce(communication_previous_ns, ts_ns))) END)
            AS communication_ns,
        min(CASE WHEN in_communication THEN ts_ns END) AS communication_start_ns,
        max(CASE WHEN in_communication THEN end_ns END) AS communication_end_ns,
        sum(CASE WHEN in_busy THEN 1 ELSE 0 END) AS busy_members,
        sum(CASE WHEN in_busy THEN greatest(0, end_ns - greatest(ts_ns, coalesce(busy_previous_ns, ts_ns))) END)
            AS busy_ns,
        min(CASE WHEN in_busy THEN ts_ns END) AS busy_start_ns,
        max(CASE WHEN in_busy THEN end_ns END) AS busy_end_ns,
        sum(CASE WHEN in_all THEN 1 ELSE 0 END) AS all_members,
        sum(CASE WHEN in_all
                 THEN greatest(0, all_end_ns - greatest(all_start_ns, coalesce(all_previous_ns, all_start_ns))) END)
            AS all_ns,
        min(CASE WHEN in_all THEN all_start_ns END) AS all_start_ns,
        max(CASE WHEN in_all THEN all_end_ns END) AS all_end_ns
    FROM with_previous_end
    GROUP BY run_id, rank
),
group_previous_end AS (
    SELECT
        kind, run_id, rank, group_name, other_group_name, start_ns, end_ns,
        max(end_ns) OVER (
            PARTITION BY kind, run_id, rank, group_name, other_group_name ORDER BY start_ns, end_ns, kernel_id
            ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING
        ) AS previous_max_end_ns
    FROM tracedb_internal.capture_member
    WHERE kind IN ('group', 'wait', 'msprof_wait', 'pair')
),
unions AS (
    SELECT 'computing' AS kind, run_id, rank, CAST(NULL AS VARCHAR) AS group_name,
           CAST(NULL AS VARCHAR) AS other_group_name, computing_ns AS union_ns,
           computing_start_ns AS start_ns, computing_end_ns AS end_ns
    FROM base
    WHERE computing_members > 0
    UNION ALL
    SELECT 'communication', run_id, rank, NULL, NULL, communication_ns, communication_start_ns, communication_end_ns
    FROM base
    WHERE communication_members > 0
    UNION ALL
    SELECT 'busy', run_id, rank, NULL, NULL, busy_ns, busy_start_ns, busy_end_ns
    FROM base
    WHERE busy_members > 0
    UNION ALL
    SELECT 'all', run_id, rank, NULL, NULL, all_ns, all_start_ns, all_end_ns
    FROM base
    WHERE all_members > 0
    UNION ALL
    SELECT kind, run_id, rank, group_name, other_group_name,
           sum(greatest(0, end_ns - greatest(start_ns, coalesce(previous_max_end_ns, start_ns)))),
           min(start_ns), max(end_ns)
    FROM group_previous_end
    GROUP BY kind, run_id, rank, group_name, other_group_name
)
SELECT
    kind::VARCHAR              AS kind,              -- computing, communication, busy, all, group, wait, msprof_wait or pair
    run_id::INTEGER            AS run_id,            -- run
    rank::INTEGER              AS rank,              -- rank
    group_name::VARCHAR        AS group_name,        -- kinds group, wait and pair: the communication group; NULL otherwise
    other_group_name::VARCHAR  AS other_group_name,  -- kind pair: the second group; NULL otherwise
    union_ns::BIGINT           AS union_ns,          -- length of the union, ns
    start_ns::BIGINT           AS start_ns,          -- first member start, ns
    end_ns::BIGINT             AS end_ns             -- last member end, ns
FROM unions;
