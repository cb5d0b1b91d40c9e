-- comm_matrix — bytes, time and bandwidth per link (src rank → dst rank) of each communication op.
-- Grain:     one row per (run, step, op, src rank, dst rank, transport); the tasks of every rank
--            of the run are summed per link, as msprof-analyze's cluster matrix does.
-- Source:    link (Memcpy / Reduce_Inline / RDMA payload tasks of all planes: args "src rank",
--            "dst rank", "size(Byte)", "link type").
-- Reference: communication_matrix.json (CANN msprof, analyses.md §5.1): link "src-dst" with
--            group-local ranks, 4294967295 = the task's own rank (self link), on-chip copies as
--            transport LOCAL, HCCS_SW folded into HCCS; bandwidth = size / time.
--            comm_matrix_summary gives the file's <type>-top1/-middle/-bottomK/-total entries.
-- Units:     transit_size_bytes bytes; transit_ns integer ns; bandwidth_gbps GB/s (10^9 B/s).
CREATE OR REPLACE VIEW comm_matrix AS
SELECT
    r.run_name::VARCHAR                                           AS run_name,            -- run name
    min(t.step)::INTEGER                                          AS step,                -- step number; NULL without steps
    t.group_name::VARCHAR                                         AS group_name,          -- communication group
    t.op_name::VARCHAR                                            AS op_name,             -- HCCL op
    t.src_rank::BIGINT                                            AS src_rank,            -- source rank (group-local)
    t.dst_rank::BIGINT                                            AS dst_rank,            -- destination rank (group-local; the source itself for on-chip and 4294967295)
    t.transport_type::VARCHAR                                     AS transport_type,      -- LOCAL, HCCS, PCIE, SIO, RDMA
    sum(coalesce(t.size_bytes, 0))::BIGINT                        AS transit_size_bytes,  -- bytes moved on the link
    sum(t.dur_ns)::BIGINT                                         AS transit_ns,          -- Σ transfer durations on the link, ns
    CASE WHEN sum(t.dur_ns) > 0 THEN sum(coalesce(t.size_bytes, 0)) / sum(t.dur_ns) END::DOUBLE
                                                                  AS bandwidth_gbps,      -- bytes / ns = GB/s
    count(*)::BIGINT                                              AS transfer_count,      -- transfer tasks
    count(DISTINCT t.rank)::BIGINT                                AS reported_by_ranks    -- ranks whose traces hold tasks of this link
FROM tracedb_internal.comm_task AS t
JOIN run AS r ON r.run_id = t.run_id
WHERE t.is_transfer
GROUP BY r.run_name, t.group_name, t.op_name, t.src_rank, t.dst_rank, t.transport_type
ORDER BY run_name, op_name, src_rank, dst_rank;
