-- comm_matrix_summary — per link, the fastest, median and slowest execution of each op type and
-- the total over all executions, as communication_matrix.json (torch_npu ≥ 6.0) lays them out.
-- Grain:     one row per (run, rank, step, comm_kind, group, matrix_op_type, variant, src_rank,
--            dst_rank); variant top1, middle, bottom1, bottom2, bottom3 (bottomK only when the
--            type has at least K executions on the link) and total.
-- Source:    comm_matrix (trace_view.json HCCL Plane tasks).
-- Reference: communication_matrix.json keys "<type>-top1|middle|bottom1|bottom2|bottom3|total@<group>"
--            (formats.md §6.2): <type> is the first of send|reduce|invalid|broadcast|allreduce|
--            receive|allgather|reducescatter|scatter|alltoall|alltoallv|alltoallvc|batchsendrecv
--            found in the lower-case op name (so reduceScatter counts as "reduce", as in the
--            file). Executions of a link ranked by bandwidth, highest first: top1 = first,
--            middle = position ⌊n/2⌋ (0-based), bottomK = K-th from the end; total sums size and
--            time and recomputes bandwidth. Sum only total rows.
-- Units:     *_bytes bytes; *_ns integer nanoseconds; bandwidth_gbps = bytes / ns (GB/s), 4
--            decimals; *_count executions.
CREATE OR REPLACE VIEW comm_matrix_summary AS
WITH typed AS (
    SELECT
        *,
        regexp_extract(
            lower(op_name),
            'send|reduce|invalid|broadcast|allreduce|receive|allgather|reducescatter|scatter|alltoall|alltoallv|alltoallvc|batchsendrecv'
        ) AS matrix_op_type
    FROM comm_matrix
),
ranked AS (
    SELECT
        *,
        row_number() OVER w - 1 AS pos,
        count(*) OVER (PARTITION BY run_name, rank, step, comm_kind, group_name, matrix_op_type, src_rank, dst_rank)
            AS n
    FROM typed
    WINDOW w AS (
        PARTITION BY run_name, rank, step, comm_kind, group_name, matrix_op_type, src_rank, dst_rank
        ORDER BY CASE WHEN transit_ns = 0 THEN 0 ELSE transit_size_bytes / transit_ns END DESC, op_start_ns
    )
),
single AS (
    SELECT r.*, v.variant, v.ord
    FROM ranked AS r
    JOIN (VALUES ('top1', 1), ('middle', 2), ('bottom1', 3), ('bottom2', 4), ('bottom3', 5)) AS v(variant, ord)
        ON (v.variant = 'top1' AND r.pos = 0)
        OR (v.variant = 'middle' AND r.pos = r.n // 2)
        OR (v.variant = 'bottom1' AND r.pos = r.n - 1)
        OR (v.variant = 'bottom2' AND r.pos = r.n - 2)
        OR (v.variant = 'bottom3' AND r.pos = r.n - 3)
),
total AS (
    SELECT
        run_name, rank, step, comm_kind, group_name, matrix_op_type, src_rank, dst_rank,
        arg_max(transport_type, op_start_ns) AS transport_type,
        sum(transit_size_bytes) AS transit_size_bytes,
        sum(transit_ns) AS transit_ns,
        count(*) AS n
    FROM typed
    GROUP BY run_name, rank, step, comm_kind, group_name, matrix_op_type, src_rank, dst_rank
),
unioned AS (
    SELECT run_name, rank, step, comm_kind, group_name, matrix_op_type, variant, ord, src_rank, dst_rank,
           transport_type, transit_size_bytes, transit_ns, n, op_name
    FROM single
    UNION ALL
    SELECT run_name, rank, step, comm_kind, group_name, matrix_op_type, 'total', 6, src_rank, dst_rank,
           transport_type, transit_size_bytes, transit_ns, n, NULL
    FROM total
)
SELECT
    run_name::VARCHAR                           AS run_name,            -- run name
    rank::INTEGER                               AS rank,                -- global rank that recorded the ops
    step::INTEGER                               AS step,                -- step of the ops
    matrix_op_type::VARCHAR                     AS matrix_op_type,      -- op type as communication_matrix.json keys it (allreduce, reduce, ...)
    variant::VARCHAR                            AS variant,             -- top1, middle, bottom1, bottom2, bottom3 or total
    src_rank::BIGINT                            AS src_rank,            -- group-local source rank
    dst_rank::BIGINT                            AS dst_rank,            -- group-local destination rank
    transport_type::VARCHAR                     AS transport_type,      -- LOCAL, HCCS, PCIE, SIO or RDMA
    (CASE WHEN transit_ns = 0 THEN 0 ELSE round(transit_size_bytes / transit_ns, 4) END)::DOUBLE
                                                AS bandwidth_gbps,      -- bytes / ns = GB/s
    transit_size_bytes::BIGINT                  AS transit_size_bytes,  -- bytes moved (total: Σ over executions)
    transit_ns::BIGINT                          AS transit_ns,          -- transfer time, ns (total: Σ over executions)
    n::BIGINT                                   AS execution_count,     -- executions of the type on the link
    op_name::VARCHAR                            AS op_name,             -- the execution shown ("Op Name"); NULL for total
    (matrix_op_type || '-' || variant)::VARCHAR AS op_key,              -- "<type>-<variant>" as in the file (without "@group")
    comm_kind::VARCHAR                          AS comm_kind,           -- collective or p2p
    group_name::VARCHAR                         AS group_name           -- HCCL group as the trace names it
FROM unioned
ORDER BY run_name, rank, step, comm_kind, group_name, matrix_op_type, src_rank, dst_rank, ord;
