-- uncovered_communication — how much of each communication op computing does not hide.

-- title: one op partly covered by computing
--   time:      0    10   20   30   40   50   60
--   compute B:           [=========)              20-40
--   comm    C:                [==============)    30-60
.read _setup.sql
INSERT INTO kernel BY NAME
SELECT * FROM (VALUES ('B', 1, 20, 20, false, NULL), ('hcom_allReduce__1_0_1', 1, 30, 30, true, '7'))
    AS t(name, step, ts_ns, dur_ns, is_communication, group_name);
-- expect: C ∩ B = 30..40 = 10; uncovered = 30 − 10 (booked and self alike: C is alone);
--         ratio = 20 / 30
SELECT run_name, rank, step, op_name, group_name, start_ns, dur_ns, uncovered_ns, uncovered_self_ns,
       overlapped_ns, uncovered_ratio
FROM uncovered_communication;
-- > 'r', 0, 1, 'hcom_allReduce__1_0_1', '7', 30, 30, 30 - 10, 30 - 10, 40 - 30, 20 / 30

-- title: concurrent ops: the later one is booked only where the earlier one has ended
--   time:     0    10   20   30   40   50
--   comm X:   [===================)              0-40
--   comm Y:             [===================)    20-50
--   compute K:     [====)                        10-20
.read _setup.sql
INSERT INTO kernel BY NAME
SELECT * FROM (VALUES ('hcom_x__1_0_1', 1, 0, 40, true), ('hcom_y__1_0_1', 1, 20, 30, true),
                      ('K', 1, 10, 10, false))
    AS t(name, step, ts_ns, dur_ns, is_communication);
-- expect: X: 40 long, K covers 10 → uncovered 30 (self and booked);
--         Y: 30 long, no computing → self 30; 20..40 already booked to X → booked 40..50 = 10;
--         Σ uncovered = 30 + 10 = 40 = step_breakdown's not overlapped (50 − 10)
SELECT op_name, uncovered_ns, uncovered_self_ns, overlapped_ns, uncovered_ratio
FROM uncovered_communication;
-- > 'hcom_x__1_0_1', 40 - 10, 40 - 10, 20 - 10, 30 / 40
-- > 'hcom_y__1_0_1', 50 - 40, 30 - 0, 0, 30 / 30
SELECT communication_not_overlapped_ns FROM step_breakdown;
-- > 50 - 10

-- title: an op nested in an earlier one gets nothing booked; a zero-length op has no ratio
--   time:     0    10   15   20   30        50   60
--   comm X:   [====================================)    0-50
--   comm Y:        [=========)                          10-20 (inside X)
--   compute K:          [==============)                15-30
--   comm Z:                                      |      60-60 (zero length)
.read _setup.sql
INSERT INTO kernel BY NAME
SELECT * FROM (VALUES ('hcom_x__1_0_1', 1, 0, 50, true), ('hcom_y__1_0_1', 1, 10, 10, true),
                      ('K', 1, 15, 15, false), ('hcom_z__1_0_1', 1, 60, 0, true))
    AS t(name, step, ts_ns, dur_ns, is_communication);
-- expect: X: K covers 15..30 = 15 → uncovered 50 − 15 = 35 (self and booked);
--         Y: booked part starts at X's end clamped to Y's end = 20 → booked 0, uncovered 0;
--            self: Y ∩ K = 15..20 = 5 → uncovered_self 10 − 5, ratio 5 / 10;
--         Z: zero length → 0, 0, 0, ratio NULL
SELECT op_name, start_ns, dur_ns, uncovered_ns, uncovered_self_ns, overlapped_ns, uncovered_ratio
FROM uncovered_communication;
-- > 'hcom_x__1_0_1', 0, 50, 50 - 15, 50 - 15, 30 - 15, 35 / 50
-- > 'hcom_y__1_0_1', 10, 10, 0, 10 - 5, 20 - 15, 5 / 10
-- > 'hcom_z__1_0_1', 60, 0, 0, 0, 0, NULL
-- pin: tracedb_internal.comm_booked — booked parts tile U(comm) = 0..50 plus 60..60
SELECT name, booked_ns, self_overlapped_ns, booked_overlapped_ns
FROM tracedb_internal.comm_booked ORDER BY start_ns;
-- > 'hcom_x__1_0_1', 50 - 0, 30 - 15, 30 - 15
-- > 'hcom_y__1_0_1', 20 - 20, 20 - 15, 0
-- > 'hcom_z__1_0_1', 0, 0, 0
SELECT communication_ns, overlapped_ns, communication_not_overlapped_ns FROM step_breakdown;
-- > 50 + 0, 15, 50 - 15

-- title: uncovered is NULL where computing is unknown (MindSpore step_trace_raw)
.read _setup.sql
INSERT INTO step (step, device_start_ns, device_end_ns, fp_ns, bp_ns) VALUES (1, 0, 100, 10, 80);
INSERT INTO kernel BY NAME
SELECT * FROM (VALUES ('allReduce_1_1', 1, 40, 20, true)) AS t(name, step, ts_ns, dur_ns, is_communication);
SELECT op_name, dur_ns, uncovered_ns, uncovered_self_ns, overlapped_ns, uncovered_ratio
FROM uncovered_communication;
-- > 'allReduce_1_1', 20, NULL, NULL, NULL, NULL
-- pin: tracedb_internal.comm_booked still books the op (step_breakdown.communication_ns uses it)
SELECT name, booked_ns, self_overlapped_ns FROM tracedb_internal.comm_booked;
-- > 'allReduce_1_1', 20, 0
