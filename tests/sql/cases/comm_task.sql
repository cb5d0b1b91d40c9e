-- comm_task — HCCL link tasks of an op execution: position on the plane, master plane, transfers.

-- title: master plane: plane 0 if it has RDMA, else plane 1, else the lowest plane
--   op A (ts 0):    planes 0 (RDMA), 1 → master 0
--   op B (ts 100):  planes 0 (SDMA), 1 → master 1
--   op C (ts 200):  planes 2, 3        → master 2 (no plane 1)
--   op D (ts 300):  plane 5 only       → master 5
.read _setup.sql
INSERT INTO link BY NAME
SELECT *, 0 AS dur_ns, 'Notify_Wait' AS task_name
FROM (VALUES ('hcom_allReduce__1_0_1', 0, 0, 'RDMA', 0), ('hcom_allReduce__1_0_1', 0, 1, 'SDMA', 1),
             ('hcom_allReduce__2_0_1', 100, 0, 'SDMA', 100), ('hcom_allReduce__2_0_1', 100, 1, 'SDMA', 101),
             ('hcom_broadcast__3_0_1', 200, 2, 'SDMA', 200), ('hcom_broadcast__3_0_1', 200, 3, 'SDMA', 201),
             ('Default/AllReduce-op534_0', 300, 5, 'SDMA', 300))
    AS t(op_name, op_ts_ns, plane_id, transport_type, ts_ns);
.read ../../../derive/075_comm_task.sql
SELECT op_name, op_type, comm_kind, plane_id, is_master_plane FROM tracedb_internal.comm_task
ORDER BY op_ts_ns, plane_id;
-- > 'hcom_allReduce__1_0_1', 'allreduce', 'collective', 0, true
-- > 'hcom_allReduce__1_0_1', 'allreduce', 'collective', 1, false
-- > 'hcom_allReduce__2_0_1', 'allreduce', 'collective', 0, false
-- > 'hcom_allReduce__2_0_1', 'allreduce', 'collective', 1, true
-- > 'hcom_broadcast__3_0_1', 'broadcast', 'collective', 2, true
-- > 'hcom_broadcast__3_0_1', 'broadcast', 'collective', 3, false
-- > 'Default/AllReduce-op534_0', 'allreduce', 'collective', 5, true

-- title: link rows without an op are not tasks; two executions of one op name stay apart
--   hcom_allReduce__1_0_1 at op_ts 0 (2 tasks) and at op_ts 1000 (1 task); a row with no op
.read _setup.sql
INSERT INTO link BY NAME
SELECT * FROM (VALUES ('hcom_allReduce__1_0_1', 0, 'Memcpy', 10), ('hcom_allReduce__1_0_1', 0, 'Notify_Wait', 5),
                      ('hcom_allReduce__1_0_1', 1000, 'Notify_Wait', 1005), (NULL, NULL, 'Memcpy', 2000))
    AS t(op_name, op_ts_ns, task_name, ts_ns);
.read ../../../derive/075_comm_task.sql
-- expect: seq restarts per execution and follows ts (the Notify_Wait at 5 before the Memcpy at 10)
SELECT op_ts_ns, seq, task_name FROM tracedb_internal.comm_task ORDER BY op_ts_ns, seq;
-- > 0, 1, 'Notify_Wait'
-- > 0, 2, 'Memcpy'
-- > 1000, 1, 'Notify_Wait'
