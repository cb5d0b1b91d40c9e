-- comm_group — the communication groups of a run, with their members and, where
-- profiler_metadata.json names them, their process-group name (dp, tp, pp ...).
-- Grain:     one row per (run, group_name, comm_kind, member rank) for every group some rank
--            recorded an op of.
-- Source:    profiler_comm_op, profiler_comm_matrix (the "@<group>" of communication.json /
--            communication_matrix.json keys, per collective / p2p block), link (HCCL ops of
--            trace_view.json: group of the "Group <g> Communication" thread, p2p when the op is a
--            send / receive / batchSendRecv), profiler_parallel_group (profiler_metadata.json).
-- Reference: msprof-analyze BaseCommunicationGroup (communication_group.json
--            "comm_group_parallel_info"): a group's ranks are the ranks whose files hold its ops,
--            replaced by the metadata's global_ranks when the group's hash (double_hash of the
--            group id) or id matches a metadata group; pg_name from that metadata group.
-- Units:     none.
CREATE OR REPLACE VIEW tracedb_internal.comm_group AS
WITH seen AS (
    SELECT DISTINCT run_id, rank, group_name, comm_kind
    FROM (
        SELECT run_id, rank, group_name,
               coalesce(comm_kind,
                        CASE WHEN lower(op_name) LIKE 'hcom_send%' OR lower(op_name) LIKE 'hcom_receive%'
                                  OR lower(op_name) LIKE 'hcom_batchsendrecv%' THEN 'p2p'
                             ELSE 'collective' END) AS comm_kind
        FROM profiler_comm_op
        WHERE NOT is_total AND group_name IS NOT NULL
        UNION ALL
        SELECT run_id, rank, group_name,
               coalesce(comm_kind,
                        CASE WHEN lower(op_name) LIKE 'hcom_send%' OR lower(op_name) LIKE 'hcom_receive%'
                                  OR lower(op_name) LIKE 'hcom_batchsendrecv%' THEN 'p2p'
                             ELSE 'collective' END)
        FROM profiler_comm_matrix
        WHERE group_name IS NOT NULL AND op_key NOT LIKE 'Total%'
        UNION ALL
        SELECT run_id, rank, group_name,
               CASE WHEN lower(op_name) LIKE 'hcom_send%' OR lower(op_name) LIKE 'hcom_receive%'
                         OR lower(op_name) LIKE 'hcom_batchsendrecv%' THEN 'p2p'
                    ELSE 'collective' END
        FROM link
        WHERE op_name IS NOT NULL AND op_ts_ns IS NOT NULL AND group_name IS NOT NULL
    ) AS s
),
meta_key AS (
    -- a metadata group is found by its hash (communication.json) or by its id (trace thread names)
    SELECT DISTINCT run_id, group_name AS group_key, group_id, pg_name FROM profiler_parallel_group
    UNION
    SELECT DISTINCT run_id, group_id, group_id, pg_name FROM profiler_parallel_group
),
meta_member AS (
    SELECT DISTINCT run_id, group_id, global_rank
    FROM profiler_parallel_group
    WHERE global_rank IS NOT NULL
),
grp AS (
    SELECT s.run_id, s.group_name, s.comm_kind,
           min(m.group_id) AS group_id, min(m.pg_name) AS pg_name
    FROM seen AS s
    LEFT JOIN meta_key AS m
        ON m.run_id = s.run_id AND m.group_key = s.group_name
    GROUP BY s.run_id, s.group_name, s.comm_kind
),
member AS (
    SELECT g.run_id, g.group_name, g.comm_kind, g.group_id, g.pg_name, mm.global_rank AS rank, TRUE AS from_metadata
    FROM grp AS g
    JOIN meta_member AS mm
        ON mm.run_id = g.run_id AND mm.group_id = g.group_id
    UNION ALL
    SELECT g.run_id, g.group_name, g.comm_kind, g.group_id, g.pg_name, s.rank, FALSE
    FROM grp AS g
    JOIN seen AS s
        ON s.run_id = g.run_id AND s.group_name = g.group_name AND s.comm_kind = g.comm_kind
    LEFT JOIN (SELECT DISTINCT run_id, group_id FROM meta_member) AS k
        ON k.run_id = g.run_id AND k.group_id = g.group_id
    WHERE k.run_id IS NULL
)
SELECT
    run_id::INTEGER         AS run_id,         -- run
    group_name::VARCHAR     AS group_name,     -- group as the files name it (communication.json hash, or the trace's group)
    comm_kind::VARCHAR      AS comm_kind,      -- collective or p2p (block of communication.json; send / receive ops in a trace)
    group_id::VARCHAR       AS group_id,       -- profiler_metadata.json group id (group_name_5); NULL when no metadata names the group
    pg_name::VARCHAR        AS pg_name,        -- process-group name from profiler_metadata.json (dp, tp, pp ...); NULL when unknown
    rank::INTEGER           AS rank,           -- member global rank
    from_metadata::BOOLEAN  AS from_metadata   -- TRUE: members are the metadata's global_ranks; FALSE: the ranks whose files hold the group's ops
FROM member;
