-- comm_wait_cross_rank — each collective aligned across the ranks that ran it: who waited for whom.
-- Grain:     one row per (run, collective instance, rank). An instance is one execution of a
--            communication op: NPU op names carry a per-execution counter (hcom_allReduce__586_0_1),
--            GPU NCCL kernels repeat their name, so the k-th execution of a name in a (rank,
--            group) lines up with the k-th on the other ranks.
-- Source:    kernel rows with is_communication (kernel_details.csv HCCL rows, trace_view.json HCCL
--            op slices, Kineto nccl* kernels).
-- Reference: msprof-analyze ClusterTimeSummary / recipe slow_rank (analyses.md §6): in a
--            collective the last rank to arrive has the shortest duration; transmit = the
--            fastest rank's duration, wait = own duration − transmit, late start = own start −
--            earliest start. complete = every rank of the group has this instance (the recipe
--            drops instances whose counts differ across ranks).
-- Units:     *_ns integer nanoseconds; *_count ranks.
CREATE OR REPLACE VIEW comm_wait_cross_rank AS
WITH ops AS (
    SELECT
        run_id, rank, step, name, coalesce(group_name, '') AS group_key, group_name,
        ts_ns AS start_ns, dur_ns,
        row_number() OVER (PARTITION BY run_id, rank, coalesce(group_name, ''), name
                           ORDER BY ts_ns, kernel_id) AS execution
    FROM kernel
    WHERE is_communication
),
group_ranks AS (
    SELECT run_id, group_key, count(DISTINCT rank) AS group_rank_count
    FROM ops
    GROUP BY run_id, group_key
),
aligned AS (
    SELECT
        o.*,
        count(*) OVER w        AS rank_count,
        min(o.dur_ns) OVER w   AS transmit_ns,
        min(o.start_ns) OVER w AS earliest_start_ns,
        min(o.step) OVER w     AS first_step
    FROM ops AS o
    WINDOW w AS (PARTITION BY o.run_id, o.group_key, o.name, o.execution)
)
SELECT
    r.run_name::VARCHAR                                AS run_name,            -- run name
    a.first_step::INTEGER                              AS step,                -- step of the instance (lowest over its ranks); NULL without steps
    a.name::VARCHAR                                    AS op_name,             -- communication op / NCCL kernel name
    a.execution::BIGINT                                AS execution,           -- k-th execution of this name in the rank and group, from 1
    a.rank::INTEGER                                    AS rank,                -- global rank
    a.dur_ns::BIGINT                                   AS dur_ns,              -- op duration on this rank, ns
    (a.dur_ns - a.transmit_ns)::BIGINT                 AS wait_ns,             -- own duration minus transmit: time this rank waited for the others, ns
    (a.start_ns - a.earliest_start_ns)::BIGINT         AS late_start_ns,       -- own start minus the earliest start over the ranks, ns
    a.transmit_ns::BIGINT                              AS transmit_ns,         -- shortest duration over the ranks (the last rank to arrive): the transfer itself, ns
    (a.dur_ns = a.transmit_ns)::BOOLEAN                AS is_last_to_arrive,   -- this rank has the shortest duration: the others waited for it
    a.rank_count::BIGINT                               AS rank_count,          -- ranks that ran this instance
    (a.rank_count = g.group_rank_count)::BOOLEAN       AS complete,            -- every rank seen in the group ran this instance
    a.group_name::VARCHAR                              AS group_name,          -- communication group (HCCL group id); NULL if unknown
    a.start_ns::BIGINT                                 AS start_ns             -- op start on this rank, ns since the epoch
FROM aligned AS a
JOIN group_ranks AS g
    ON g.run_id = a.run_id AND g.group_key = a.group_key
JOIN run AS r
    ON r.run_id = a.run_id
ORDER BY r.run_name, a.start_ns, a.name, a.rank;
