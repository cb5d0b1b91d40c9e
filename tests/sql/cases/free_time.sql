-- free_time — the intervals of a step in which the device runs nothing.

-- title: touching kernels merge, a nested one adds nothing, a zero-length one splits a gap
--   time:      0    10   20   30   40   50
--   compute A: [====)                          0-10
--   compute B:      [====)                     10-20 (touches A)
--   compute C:  [=)                            2-5   (inside A)
--   compute Z:                |                30-30 (zero length)
--   compute E:                     [====)      40-50
.read _setup.sql
INSERT INTO kernel BY NAME
SELECT * FROM (VALUES ('A', 1, 0, 10), ('B', 1, 10, 10), ('C', 1, 2, 3), ('Z', 1, 30, 0), ('E', 1, 40, 10))
    AS t(name, step, ts_ns, dur_ns);
-- expect: busy = 0..20, 30..30, 40..50 → gaps 20..30 (after B, the island's latest end, before
--         Z) and 30..40 (after Z, before E); Σ = 20 = step_breakdown.free_ns
SELECT run_name, rank, step, start_ns, end_ns, dur_ns, kernel_before, kernel_after
FROM free_time;
-- > 'r', 0, 1, 20, 30, 30 - 20, 'B', 'Z'
-- > 'r', 0, 1, 30, 40, 40 - 30, 'Z', 'E'
SELECT computing_ns, free_ns FROM step_breakdown;
-- > 20 + 0 + 10, 50 - 30
-- pin: tracedb_internal.compute_island — next start <= running max end merges (touching too)
SELECT island, start_ns, end_ns FROM tracedb_internal.compute_island ORDER BY island;
-- > 1, 0, 20
-- > 2, 30, 30
-- > 3, 40, 50
-- pin: tracedb_internal.busy_island — the island of A, C, B opens with A and closes with B
SELECT island, first_kernel, last_kernel FROM tracedb_internal.busy_island ORDER BY island;
-- > 1, 'A', 'B'
-- > 2, 'Z', 'Z'
-- > 3, 'E', 'E'

-- title: a gap between a communication op and a kernel; steps do not share gaps
--   time:      0    10   20   30   40 | 100  110  120  130
--   comm    C: [=========)            |                        0-20   step 1
--   compute K:                [====)  |                        30-40  step 1
--   compute M:                        | [====)                 100-110 step 2
--   compute N:                        |           [====)       120-130 step 2
.read _setup.sql
INSERT INTO kernel BY NAME
SELECT * FROM (VALUES ('hcom_allReduce__1_0_1', 1, 0, 20, true), ('K', 1, 30, 10, false),
                      ('M', 2, 100, 10, false), ('N', 2, 120, 10, false))
    AS t(name, step, ts_ns, dur_ns, is_communication);
-- expect: step 1: 20..30 between C and K; step 2: 110..120 between M and N; nothing from 40 to
--         100 (that is between steps)
SELECT step, start_ns, end_ns, dur_ns, kernel_before, kernel_after FROM free_time;
-- > 1, 20, 30, 10, 'hcom_allReduce__1_0_1', 'K'
-- > 2, 110, 120, 10, 'M', 'N'
-- pin: tracedb_internal.busy_island — computing and communication together, numbered per step
SELECT step, island, start_ns, end_ns FROM tracedb_internal.busy_island ORDER BY step, island;
-- > 1, 1, 0, 20
-- > 1, 2, 30, 40
-- > 2, 1, 100, 110
-- > 2, 2, 120, 130
-- pin: tracedb_internal.compute_island — only K, M, N: C is communication
SELECT step, island, start_ns, end_ns FROM tracedb_internal.compute_island ORDER BY step, island;
-- > 1, 1, 30, 40
-- > 2, 1, 100, 110
-- > 2, 2, 120, 130

-- title: no free time where computing is unknown (MindSpore step_trace_raw, comm ops only)
--   comm C1: [====)           0-10   step 1
--   comm C2:          [====)  20-30  step 1
.read _setup.sql
INSERT INTO step (step, device_start_ns, device_end_ns, fp_ns, bp_ns) VALUES (1, 0, 40, 5, 35);
INSERT INTO kernel BY NAME
SELECT * FROM (VALUES ('allReduce_1_1', 1, 0, 10, true), ('allReduce_2_1', 1, 20, 10, true))
    AS t(name, step, ts_ns, dur_ns, is_communication);
-- expect: no rows, although the busy islands leave 10..20 open
SELECT * FROM free_time;
-- pin: tracedb_internal.busy_island — the gap exists below the view
SELECT island, start_ns, end_ns FROM tracedb_internal.busy_island ORDER BY island;
-- > 1, 0, 10
-- > 2, 20, 30

-- title: no kernels, no free time
.read _setup.sql
SELECT * FROM free_time;
SELECT * FROM step_breakdown;
