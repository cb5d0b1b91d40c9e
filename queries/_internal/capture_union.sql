-- capture_union — the length and extent of each union of tracedb_internal.capture_island,
-- without its islands: what overall_summary and capture_breakdown need.
-- Grain:     one row per (run, rank, kind, group_name, other_group_name) with at least one member.
-- Source:    tracedb_internal.capture_member.
-- Reference: |U| = Σ over the members in start order of max(0, end − max(start, the largest end
--            before it)); equal to Σ (end − start) over capture_island's islands, from one
--            window instead of two.
-- Units:     *_ns integer nanoseconds (start_ns, end_ns since the epoch).
CREATE OR REPLACE VIEW tracedb_internal.capture_union AS
WITH with_previous_end AS (
    SELECT
        kind, run_id, rank, group_name, other_group_name, start_ns, end_ns,
        max(end_ns) OVER (
            PARTITION BY kind, run_id, rank, group_name, other_group_name ORDER BY start_ns, end_ns, kernel_id
            ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING
        ) AS previous_max_end_ns
    FROM tracedb_internal.capture_member
)
SELECT
    kind::VARCHAR              AS kind,              -- computing, communication, busy, all, group, wait or pair
    run_id::INTEGER            AS run_id,            -- run
    rank::INTEGER              AS rank,              -- rank
    group_name::VARCHAR        AS group_name,        -- kinds group, wait and pair: the communication group; NULL otherwise
    other_group_name::VARCHAR  AS other_group_name,  -- kind pair: the second group; NULL otherwise
    sum(greatest(0, end_ns - greatest(start_ns, coalesce(previous_max_end_ns, start_ns))))::BIGINT
                               AS union_ns,          -- length of the union, ns
    min(start_ns)::BIGINT      AS start_ns,          -- first member start, ns
    max(end_ns)::BIGINT        AS end_ns             -- last member end, ns
FROM with_previous_end
GROUP BY kind, run_id, rank, group_name, other_group_name;
