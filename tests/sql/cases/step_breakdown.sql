-- step_breakdown — how each step splits into computing, communication and free time.
-- Cases ported from tests/sql/test_step_breakdown.py, with pins on the internal views they rest
-- on (tracedb_internal.step_kernel, compute_island, busy_island, comm_booked, comm_only_step).

-- title: computing, communication overlap and free
--   time:      0    10   20   30   40   50   60   70   80   90
--   compute A: [====)                                             0-10
--   compute B:           [=========)                              20-40
--   comm    C:                [==============)                    30-60
--   compute D:                                       [====)       80-90
--   host ProfilerStep#1: -5 .. 95
.read _setup.sql
INSERT INTO step (step, host_start_ns, host_end_ns) VALUES (1, -5, 95);
INSERT INTO kernel BY NAME
SELECT * FROM (VALUES ('A', 1, 0, 10, false), ('B', 1, 20, 20, false),
                      ('hcom_allReduce__1_0_1', 1, 30, 30, true), ('D', 1, 80, 10, false))
    AS t(name, step, ts_ns, dur_ns, is_communication);
-- expect: computing = A + B + D; communication = C; overlapped = C ∩ B = 30..40;
--         span = 90 − 0; free = span − (computing + not overlapped) = 10..20 and 60..80;
--         preparing = first kernel start − host start = 0 − (−5)
SELECT step_start_ns, step_end_ns, computing_ns, communication_ns, overlapped_ns,
       communication_not_overlapped_ns, free_ns, bubble_ns,
       communication_not_overlapped_exclude_receive_ns, stage_ns, preparing_ns, e2e_ns,
       kernel_count, communication_op_count
FROM step_breakdown;
-- > 0, 90, 10 + 20 + 10, 30, 40 - 30, 30 - 10, 90 - (40 + 20), 0, 30 - 10 - 0, 90 - 0, 0 - (-5), 90 - 0, 4, 1
-- pin: tracedb_internal.compute_island — A, B and D are apart: three islands
SELECT island, start_ns, end_ns FROM tracedb_internal.compute_island ORDER BY island;
-- > 1, 0, 10
-- > 2, 20, 40
-- > 3, 80, 90
-- pin: tracedb_internal.busy_island — B and C overlap: one island 20..60
SELECT island, start_ns, end_ns, first_kernel, last_kernel FROM tracedb_internal.busy_island ORDER BY island;
-- > 1, 0, 10, 'A', 'A'
-- > 2, 20, 60, 'B', 'hcom_allReduce__1_0_1'
-- > 3, 80, 90, 'D', 'D'
-- pin: tracedb_internal.comm_booked — C alone: all of it is booked to it; C ∩ B = 30..40
SELECT name, start_ns, end_ns, dur_ns, booked_ns, self_overlapped_ns, booked_overlapped_ns
FROM tracedb_internal.comm_booked;
-- > 'hcom_allReduce__1_0_1', 30, 60, 30, 60 - 30, 40 - 30, 40 - 30

-- title: concurrent communication ops are booked once, to the one that started first
--   time:     0    10   20   30   40   50
--   comm X:   [===================)              0-40  (group a)
--   comm Y:             [===================)    20-50 (group b, starts later)
--   compute K:     [====)                        10-20
.read _setup.sql
INSERT INTO kernel BY NAME
SELECT * FROM (VALUES ('hcom_x__1_0_1', 'a', 0, 40, true), ('hcom_y__1_0_1', 'b', 20, 30, true),
                      ('K', NULL, 10, 10, false))
    AS t(name, group_name, ts_ns, dur_ns, is_communication);
-- expect (no steps: one row, step NULL): U(comm) = 0..50 = 50; computing = 10; overlapped =
--         K = 10; not overlapped = 50 − 10; span 50; free = 50 − (10 + 40) = 0
SELECT step, computing_ns, communication_ns, overlapped_ns, communication_not_overlapped_ns, free_ns
FROM step_breakdown;
-- > NULL, 10, 50 - 0, 20 - 10, 50 - 10, 50 - (10 + 40)
-- pin: tracedb_internal.comm_booked — X: 0..40 booked, K inside it (10..20);
--      Y: 20..40 is X's already, booked 40..50, no computing there
SELECT name, group_name, booked_ns, self_overlapped_ns, booked_overlapped_ns
FROM tracedb_internal.comm_booked ORDER BY start_ns;
-- > 'hcom_x__1_0_1', 'a', 40 - 0, 20 - 10, 20 - 10
-- > 'hcom_y__1_0_1', 'b', 50 - 40, 0, 0

-- title: a receive op is bubble, not stage
--   time:      0    10   20   30   40   50   60   70
--   compute K: [====)                                   0-10
--   receive R:      [==============)                    10-40
--   comm    C:                          [====)          50-60
--   compute L:                            [=======)     55-70
.read _setup.sql
INSERT INTO kernel BY NAME
SELECT * FROM (VALUES ('K', 1, 0, 10, false), ('hcom_receive__1_0_1', 1, 10, 30, true),
                      ('hcom_allReduce__2_0_1', 1, 50, 10, true), ('L', 1, 55, 15, false))
    AS t(name, step, ts_ns, dur_ns, is_communication);
-- expect: communication = R + C = 30 + 10; overlapped = C ∩ L = 55..60 = 5; not overlapped =
--         40 − 5; bubble = R = 30; exclude receive = 35 − 30; span 70; stage = 70 − 30;
--         computing = K + L = 10 + 15; free = 70 − (25 + 35) = 40..50;
--         tiling: 25 + 35 + 10 = 40 + 30
SELECT computing_ns, communication_ns, overlapped_ns, communication_not_overlapped_ns, bubble_ns,
       communication_not_overlapped_exclude_receive_ns, stage_ns, free_ns
FROM step_breakdown;
-- > 10 + 15, 30 + 10, 60 - 55, 40 - 5, 30, 35 - 30, 70 - 30, 70 - (25 + 35)

-- title: kernels of two steps; a kernel outside every step is dropped
--   time:    0    10   20   30 ... 60 ....... 90 .. 95  100 ......... 150
--   step 1 host: [0 ............ 50)          step 2 host: [95 ............ 200)
--   a:       [====)                                     step 1
--   b:                 [====)                           step 1
--   x:                         [=========)              no step (kernel.step NULL)
--   c:                                                  [==========)    step 2
.read _setup.sql
INSERT INTO step (step, host_start_ns, host_end_ns) VALUES (1, 0, 50), (2, 95, 200);
INSERT INTO kernel BY NAME
SELECT * FROM (VALUES ('a', 1, 0, 10), ('b', 1, 20, 10), ('x', NULL, 60, 30), ('c', 2, 100, 50))
    AS t(name, step, ts_ns, dur_ns);
-- expect: step 1 computing a + b, free 10..20, preparing 0 − 0; step 2 computing c = 50,
--         free 0, preparing 100 − 95
SELECT step, step_start_ns, step_end_ns, computing_ns, free_ns, preparing_ns
FROM step_breakdown ORDER BY step;
-- > 1, 0, 30, 10 + 10, 20 - 10, 0 - 0
-- > 2, 100, 150, 150 - 100, 0, 100 - 95
-- pin: tracedb_internal.step_kernel — the rank has steps, so x (step NULL) is not in any step
SELECT name, step, start_ns, end_ns FROM tracedb_internal.step_kernel ORDER BY start_ns;
-- > 'a', 1, 0, 10
-- > 'b', 1, 20, 30
-- > 'c', 2, 100, 150

-- title: a rank without steps is one row with step NULL
--   time:     100  105  110       130
--   compute a: [=========)                 100-110
--   comm    b:      [=================)    105-130
.read _setup.sql
INSERT INTO kernel BY NAME
SELECT * FROM (VALUES ('a', 100, 10, false), ('hcom_b__1_0_1', 105, 25, true))
    AS t(name, ts_ns, dur_ns, is_communication);
-- expect: computing 10; communication 25; overlapped 105..110 = 5; not overlapped 25 − 5;
--         span 130 − 100 = 30 = 10 + 20 → free 0; no host step and no host op: preparing NULL
SELECT step, computing_ns, communication_ns, communication_not_overlapped_ns, free_ns, stage_ns,
       preparing_ns
FROM step_breakdown;
-- > NULL, 10, 25, 25 - 5, 30 - (10 + 20), 130 - 100, NULL
-- pin: tracedb_internal.step_kernel — without steps every kernel stays, step NULL
SELECT name, step FROM tracedb_internal.step_kernel ORDER BY start_ns;
-- > 'a', NULL
-- > 'hcom_b__1_0_1', NULL

-- title: MindSpore step_trace_raw step with communication intervals only
--   device counter: start 0, fp 10, bp 80, end 100 (× 10 ns already applied)
--   comm C:                      [====)      40-60  (step_trace_raw comm-op column)
.read _setup.sql
INSERT INTO step (step, device_start_ns, device_end_ns, fp_ns, bp_ns) VALUES (1, 0, 100, 10, 80);
INSERT INTO kernel BY NAME
SELECT * FROM (VALUES ('allReduce_1_1', 1, 40, 20, true, 'step_trace_raw'))
    AS t(name, step, ts_ns, dur_ns, is_communication, source);
-- expect: the window is the step_trace_raw window 0..100, not the kernel's 40..60; computing
--         is unknown, so computing / not overlapped / overlapped / free are NULL; stage = 100 − 0;
--         iteration_interval = fp − start = 10; fp_and_bp = bp − fp = 70; tail = end − bp = 20
SELECT step, step_start_ns, step_end_ns, computing_ns, communication_ns,
       communication_not_overlapped_ns, overlapped_ns, free_ns, stage_ns, e2e_ns,
       iteration_interval_ns, fp_and_bp_ns, tail_ns
FROM step_breakdown;
-- > 1, 0, 100, NULL, 60 - 40, NULL, NULL, NULL, 100 - 0, 100 - 0, 10 - 0, 80 - 10, 100 - 80
-- pin: tracedb_internal.comm_only_step — the step has fp/bp and no computing kernel
SELECT run_id, rank, step FROM tracedb_internal.comm_only_step;
-- > 1, 0, 1

-- title: ranks and runs are kept apart
--   run r,  rank 0: a [0, 10)          run r,  rank 1: a [5, 25)
--   run r2, rank 0: a [0, 40)
.read _setup.sql
INSERT INTO run (run_id, run_name, platform) VALUES (2, 'r2', 'npu');
INSERT INTO kernel BY NAME
SELECT * FROM (VALUES (1, 0, 'a', 1, 0, 10), (1, 1, 'a', 1, 5, 20), (2, 0, 'a', 1, 0, 40))
    AS t(run_id, rank, name, step, ts_ns, dur_ns);
SELECT run_name, rank, computing_ns, step_start_ns, e2e_ns FROM step_breakdown ORDER BY run_name, rank;
-- > 'r', 0, 10, 0, 10
-- > 'r', 1, 25 - 5, 5, 20
-- > 'r2', 0, 40, 0, 40

-- title: without steps, preparing runs from the first framework op on the host
--   host op (event ph X, cat cpu_op) at 70; device kernels 100-110 and 120-130
.read _setup.sql
INSERT INTO event (run_id, rank, file_id, ph, name, cat, ts_ns, dur_ns) VALUES
    (1, 0, 1, 'X', 'aten::mm', 'cpu_op', 70, 5),
    (1, 0, 1, 'X', 'aten::add', 'cpu_op', 90, 5),
    (1, 0, 1, 'i', 'marker', 'cpu_op', 10, 0);
INSERT INTO kernel BY NAME
SELECT * FROM (VALUES ('k1', 100, 10), ('k2', 120, 10)) AS t(name, ts_ns, dur_ns);
-- expect: preparing = first kernel start − first complete (ph X) host op = 100 − 70 (the
--         instant event at 10 does not count); free = 110..120
SELECT step, preparing_ns, computing_ns, free_ns FROM step_breakdown;
-- > NULL, 100 - 70, 10 + 10, 120 - 110
