-- capture_island — islands of the union of a rank's device events over the whole capture (all
-- steps and the kernels outside every step): of its computing kernels (kind computing), its
-- communication ops (communication), both (busy), both and copies (all; NPU copies clipped to the
-- extent of computing and communication, which they do not widen), and of computing
-- kernels with the ops of one communication group (group, group_name set) and of computing
-- kernels with the group's wait tasks (wait, group_name set) and of computing kernels with the
-- ops of two groups (pair, group_name < other_group_name).
-- Grain:     one row per maximal interval of a (run, rank, kind, group_name) covered by at least
--            one member.
-- Source:    tracedb_internal.capture_member (tracedb_internal.kernel_class; link: HCCL plane
--            tasks of trace_view.json, Notify_Wait, RDMASend).
-- Reference: msprof-analyze's overall numbers are whole-capture (analyses.md §2.1): Computing
--            = |U(compute)|, Uncovered Communication = |U(busy)| − |U(compute)|; per group,
--            |U(compute ∪ group)| − |U(compute)| = the group's ops inside the uncovered time.
--            Wait (msprof-analyze npu_profiling_parser __add_communication_wait_time): per group,
--            the Notify_Wait tasks of each plane, except one whose previous two tasks on the
--            plane are RDMASend, RDMASend or whose previous four are RDMASend, RDMASend,
--            Notify_Wait, RDMASend (RDMA transfer); the plane with the least such wait (a plane
--            without any: 0; ties: lowest plane_id); Wait = |those waits \ U(computing)| (the
--            waits lie inside the group's communication ops).
--            Pair: |(A ∩ B) \ U(computing)| = |A \ C| + |B \ C| − |(A ∪ B) \ C| is msprof-analyze's
--            Uncovered Communication Overlapped of groups A and B.
--            Touching intervals merge (next start <= running max end).
-- Units:     *_ns integer nanoseconds since the epoch.
CREATE OR REPLACE VIEW tracedb_internal.capture_island AS
WITH with_previous_end AS (
    SELECT
        *,
        max(end_ns) OVER (
            PARTITION BY kind, run_id, rank, group_name, other_group_name ORDER BY start_ns, end_ns, kernel_id
            ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING
        ) AS previous_max_end_ns
    FROM tracedb_internal.capture_member
),
numbered AS (
    SELECT
        *,
        sum(CASE WHEN previous_max_end_ns IS NULL OR start_ns > previous_max_end_ns THEN 1 ELSE 0 END)
            OVER (PARTITION BY kind, run_id, rank, group_name, other_group_name ORDER BY start_ns, end_ns, kernel_id
                  ROWS UNBOUNDED PRECEDING)
            AS island
    FROM with_previous_end
)
SELECT
    kind::VARCHAR          AS kind,        -- computing, communication, busy (both), all (and copies), group, wait or pair
    run_id::INTEGER        AS run_id,      -- run
    rank::INTEGER          AS rank,        -- rank
    group_name::VARCHAR        AS group_name,        -- kinds group, wait and pair: the communication group; NULL otherwise
    other_group_name::VARCHAR  AS other_group_name,  -- kind pair: the second group (group_name < other_group_name); NULL otherwise
    island::BIGINT         AS island,      -- island number within the (kind, group), from 1
    min(start_ns)::BIGINT  AS start_ns,    -- island start, ns
    max(end_ns)::BIGINT    AS end_ns       -- island end, ns
FROM numbered
GROUP BY kind, run_id, rank, group_name, other_group_name, island;
