-- comm_matrix_summary — per op type and link: the total and the best, middle and worst executions.
-- Grain:     one row per (run, step, group, op type, src rank, dst rank, summary) with summary in
--            top1, middle, bottom1, bottom2, bottom3, total.
-- Source:    comm_matrix.
-- Reference: communication_matrix.json ≥ torch_npu 6.0 keys <type>-top1/-middle/-bottom1..3/-total@group
--            (formats.md §6.2): executions of one op type on one link ranked by bandwidth; top1 =
--            highest, middle = the (n/2 + 1)-th highest, bottomK = K-th lowest, total = sums of size
--            and time with the bandwidth recomputed. op_type_key is the lower-cased op type
--            (allreduce, broadcast …).
-- Units:     transit_size_bytes bytes; transit_ns integer ns; bandwidth_gbps GB/s.
CREATE OR REPLACE VIEW comm_matrix_summary AS
WITH ranked AS (
    SELECT
        *,
        lower(split_part(op_name, '_', 2)) AS op_type_key,
        row_number() OVER (PARTITION BY run_name, step, group_name, lower(split_part(op_name, '_', 2)), src_rank, dst_rank
                           ORDER BY bandwidth_gbps DESC NULLS LAST, op_name) AS from_top,
        row_number() OVER (PARTITION BY run_name, step, group_name, lower(split_part(op_name, '_', 2)), src_rank, dst_rank
                           ORDER BY bandwidth_gbps ASC NULLS LAST, op_name) AS from_bottom,
        count(*) OVER (PARTITION BY run_name, step, group_name, lower(split_part(op_name, '_', 2)), src_rank, dst_rank)
            AS executions
    FROM comm_matrix
),
picked AS (
    SELECT run_name, step, group_name, op_type_key, src_rank, dst_rank, 'top1' AS summary, op_name,
           transport_type, transit_size_bytes, transit_ns, executions
    FROM ranked WHERE from_top = 1
    UNION ALL
    SELECT run_name, step, group_name, op_type_key, src_rank, dst_rank, 'middle', op_name,
           transport_type, transit_size_bytes, transit_ns, executions
    FROM ranked WHERE from_top = executions // 2 + 1
    UNION ALL
    SELECT run_name, step, group_name, op_type_key, src_rank, dst_rank, 'bottom' || CAST(from_bottom AS VARCHAR), op_name,
           transport_type, transit_size_bytes, transit_ns, executions
    FROM ranked WHERE from_bottom <= 3
    UNION ALL
    SELECT run_name, step, group_name, op_type_key, src_rank, dst_rank, 'total', NULL,
           max(transport_type), sum(transit_size_bytes), sum(transit_ns), count(*)
    FROM ranked
    GROUP BY run_name, step, group_name, op_type_key, src_rank, dst_rank
)
SELECT
    run_name::VARCHAR              AS run_name,            -- run name
    step::INTEGER                  AS step,                -- step number; NULL without steps
    group_name::VARCHAR            AS group_name,          -- communication group
    op_type_key::VARCHAR           AS op_type_key,         -- lower-case op type (allreduce, broadcast, send ...)
    src_rank::BIGINT               AS src_rank,            -- source rank (group-local)
    dst_rank::BIGINT               AS dst_rank,            -- destination rank (group-local)
    summary::VARCHAR               AS summary,             -- top1, middle, bottom1, bottom2, bottom3 or total
    op_name::VARCHAR               AS op_name,             -- the execution shown (NULL for total)
    transport_type::VARCHAR        AS transport_type,      -- LOCAL, HCCS, PCIE, SIO, RDMA
    transit_size_bytes::BIGINT     AS transit_size_bytes,  -- bytes
    transit_ns::BIGINT             AS transit_ns,          -- ns
    CASE WHEN transit_ns > 0 THEN transit_size_bytes / transit_ns END::DOUBLE
                                   AS bandwidth_gbps,      -- bytes / ns = GB/s
    executions::BIGINT             AS executions           -- executions of the op type on this link
FROM picked
ORDER BY run_name, step, group_name, op_type_key, src_rank, dst_rank, summary;
