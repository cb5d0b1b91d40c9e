-- comm_op — an HCCL op's elapse split into transit, wait (of which synchronization) and idle,
-- from its link tasks. Cases ported from tests/comm/test_comm_micro.py (there they go through
-- trace_view.json ingest; here the link rows are given directly). Times in ns.

-- title: SDMA op on two planes: ON_CHIP copies are not transit, plane 1 is the master
--   op hcom_allReduce__1_0_1, group 7, step 4       [0 .................................. 100000)
--   P0  Memcpy ON_CHIP → local [0, 2500)                          Notify_Record [95000, 100000)
--   P1  Notify_Wait [3000, 13000)  Reduce_Inline HCCS [20000, 28000)  Notify_Wait [30000, 34000)
--       Memcpy HCCS_SW [40000, 56000)  Memcpy ON_CHIP → local [60000, 61000)
.read _setup.sql
INSERT INTO link BY NAME
SELECT *, 'hcom_allReduce__1_0_1' AS op_name, 0 AS op_ts_ns, '7' AS group_name, 4 AS step,
       0 AS src_rank, 'SDMA' AS transport_type
FROM (VALUES (0, 'Memcpy', 4294967295, 'ON_CHIP', 0, 2500, 2097152),
             (0, 'Notify_Record', 1, 'INVALID_TYPE', 95000, 5000, 0),
             (1, 'Notify_Wait', 1, 'INVALID_TYPE', 3000, 10000, 0),
             (1, 'Reduce_Inline', 1, 'HCCS', 20000, 8000, 4000000),
             (1, 'Notify_Wait', 1, 'INVALID_TYPE', 30000, 4000, 0),
             (1, 'Memcpy', 1, 'HCCS_SW', 40000, 16000, 2000000),
             (1, 'Memcpy', 4294967295, 'ON_CHIP', 60000, 1000, 1000))
    AS t(plane_id, task_name, dst_rank, link_type, ts_ns, dur_ns, size_bytes);
.read ../../../derive/075_comm_task.sql
-- expect: elapse = last end − first start over all planes = 100000 − 0;
--         transit = master-plane SDMA copies off chip = Reduce_Inline + Memcpy HCCS_SW = 8000 + 16000;
--         wait = both Notify_Wait of plane 1 = 10000 + 4000;
--         synchronization = the Notify_Wait before the first transfer (Reduce_Inline) = 10000;
--         idle = 100000 − 24000 − 14000
SELECT run_name, rank, step, group_name, op_name, op_type, comm_kind, start_ns, elapse_ns, transit_ns,
       wait_ns, synchronization_ns, idle_ns, wait_ratio, synchronization_ratio
FROM comm_op;
-- > 'r', 0, 4, '7', 'hcom_allReduce__1_0_1', 'allreduce', 'collective', 0, 100000 - 0, 8000 + 16000, 10000 + 4000, 10000, 100000 - 24000 - 14000, round(14000 / (14000 + 24000), 4), round(10000 / (10000 + 24000), 4)
-- pin: tracedb_internal.comm_task — seq per plane by start; two planes, none with RDMA → master
--      plane 1; SDMA copies (ON_CHIP included) are is_sdma_copy, those off chip is_sdma_transit;
--      no RDMA window
SELECT plane_id, seq, task_name, is_master_plane, is_sdma_copy, is_sdma_transit, in_rdma_window,
       starts_rdma_window
FROM tracedb_internal.comm_task ORDER BY plane_id, seq;
-- > 0, 1, 'Memcpy', false, true, false, false, false
-- > 0, 2, 'Notify_Record', false, false, false, false, false
-- > 1, 1, 'Notify_Wait', true, false, false, false, false
-- > 1, 2, 'Reduce_Inline', true, true, true, false, false
-- > 1, 3, 'Notify_Wait', true, false, false, false, false
-- > 1, 4, 'Memcpy', true, true, true, false, false
-- > 1, 5, 'Memcpy', true, true, false, false, false

-- title: an RDMA window consumes its Notify tasks
--   one plane (master), op hcom_allGather__2_0_1 (not send/receive: k = 5), transport RDMA
--   seq 1 Notify_Wait [0, 1000)      seq 2 RDMASend 1 MB [10000, 12000)  seq 3 RDMASend 1 MB [13000, 15000)
--   seq 4 RDMASend 0 B [16000, 17000) seq 5 Notify_Wait [18000, 21000)  seq 6 Notify_Wait [22000, 24000)
--   seq 7 Notify_Record [25000, 26000)                                  seq 8 Notify_Wait [30000, 35000)
.read _setup.sql
INSERT INTO link BY NAME
SELECT *, 'hcom_allGather__2_0_1' AS op_name, 0 AS op_ts_ns, '9' AS group_name, 0 AS plane_id,
       0 AS src_rank, 1 AS dst_rank, 'RDMA' AS transport_type, 'ROCE' AS link_type
FROM (VALUES ('Notify_Wait', 0, 1000, 0), ('RDMASend', 10000, 2000, 1000000),
             ('RDMASend', 13000, 2000, 1000000), ('RDMASend', 16000, 1000, 0),
             ('Notify_Wait', 18000, 3000, 0), ('Notify_Wait', 22000, 2000, 0),
             ('Notify_Record', 25000, 1000, 0), ('Notify_Wait', 30000, 5000, 0))
    AS t(task_name, ts_ns, dur_ns, size_bytes);
.read ../../../derive/075_comm_task.sql
-- expect: payloads (RDMASend, size > 0) = seq 2, 3: a run of 2 starting at seq 2; it closes at
--         seq 2 + 2 + 5 − 2 = 7 (Notify_Record, ends 26000); window = 26000 − 10000, bytes 2 MB;
--         seq 2..7 are inside it, so wait = seq 1 + seq 8 = 1000 + 5000; synchronization = the
--         wait before the first transfer (seq 2) = seq 1; elapse = 35000 − 0
SELECT op_type, comm_kind, step, elapse_ns, transit_ns, wait_ns, synchronization_ns, idle_ns
FROM comm_op;
-- > 'allgather', 'collective', NULL, 35000, 26000 - 10000, 1000 + 5000, 1000, 35000 - 16000 - 6000
-- pin: tracedb_internal.comm_task — the window sits on its first payload row
SELECT seq, in_rdma_window, starts_rdma_window, rdma_window_ns, rdma_window_bytes, rdma_payload_count,
       is_master_plane
FROM tracedb_internal.comm_task ORDER BY seq;
-- > 1, false, false, NULL, NULL, NULL, true
-- > 2, true, true, 26000 - 10000, 1000000 + 1000000, 2, true
-- > 3, true, false, NULL, NULL, NULL, true
-- > 4, true, false, NULL, NULL, NULL, true
-- > 5, true, false, NULL, NULL, NULL, true
-- > 6, true, false, NULL, NULL, NULL, true
-- > 7, true, false, NULL, NULL, NULL, true
-- > 8, false, false, NULL, NULL, NULL, true

-- title: a payload run without its closing task transfers nothing
--   one plane, hcom_send__3_0_1 (send: k = 3), transport RDMA
--   seq 1 RDMASend 500 B [0, 1000)   seq 2 Notify_Wait [2000, 3000)
.read _setup.sql
INSERT INTO link BY NAME
SELECT *, 'hcom_send__3_0_1' AS op_name, 0 AS op_ts_ns, 0 AS plane_id, 'RDMA' AS transport_type
FROM (VALUES ('RDMASend', 0, 1000, 500), ('Notify_Wait', 2000, 1000, 0))
    AS t(task_name, ts_ns, dur_ns, size_bytes);
.read ../../../derive/075_comm_task.sql
-- expect: the run (seq 1) would close at seq 1 + 1 + 3 − 2 = 3, which does not exist: no window,
--         no transit; wait = seq 2 = 1000, all of it synchronization (no transfer at all);
--         ratios 1000 / (1000 + 0)
SELECT op_type, comm_kind, elapse_ns, transit_ns, wait_ns, synchronization_ns, idle_ns, wait_ratio,
       synchronization_ratio
FROM comm_op;
-- > 'send', 'p2p', 3000 - 0, 0, 1000, 1000, 3000 - 0 - 1000, 1000 / (1000 + 0), 1000 / (1000 + 0)
-- pin: tracedb_internal.comm_task — nothing in a window
SELECT seq, task_name, in_rdma_window, starts_rdma_window FROM tracedb_internal.comm_task ORDER BY seq;
-- > 1, 'RDMASend', false, false
-- > 2, 'Notify_Wait', false, false
