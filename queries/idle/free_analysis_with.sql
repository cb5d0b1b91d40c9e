-- free_analysis_with — msprof-analyze's free_analysis rules for a chosen dispatch-wait
-- threshold: every device-wide free interval of a rank with msprof's reason for it (a device
-- task ran in it, the framework layer dispatched nothing, or the CANN launch layer was slow).
-- Grain:     one row per free interval of a (run, rank): a gap between two busy islands of the
--            whole device (the union of its kernels and communication ops over every stream,
--            copies not counted), over the whole capture (not cut at step boundaries). step =
--            step of the task after the gap.
--            Scope: whole capture; step is the kernel.step of the task after the gap.
-- Source:    kernel (ts_ns, dur_ns, copy_kind, task_type, launch_ts_ns / launch_dur_ns: CANN
--            launch call, op_id) and op (ts_ns, dur_ns: the framework op that launched it).
-- Reference: msprof-analyze cluster -m free_analysis (cluster_analyse/recipes/free_analysis:
--            FreeAnalysis.analyze_free_reason, free_analysis_export), on exact ns:
--            * busy = COMPUTE_TASK_INFO tasks ∪ COMMUNICATION_OP, merged across streams; free =
--              start of an island − end of all earlier tasks (msprof's grouped_tasks);
--            * device_task: a stored task (copies, which are not busy) lies strictly inside the
--              interval → msprof "Device task running: N … tasks, max remaining free";
--            * else prev = the task ending at the interval start, next = the task starting at its
--              end; dispatch wait = launch call start − end of the framework op; when
--              next wait − prev wait < diff_wait_threshold_ns (msprof DIFF_WAIT_THRESHOLD_NS,
--              50 µs) → pytorch_idle (msprof "Idle Pytorch layer: no task dispatched");
--            * else cann_launch_gap when next launch start − prev launch end is the longest of
--              it and the two launch calls (msprof "Abnormal CANN layer: long time between two
--              node@launch"), else cann_long_launch ("long node@launch").
--            Differences from msprof-analyze: every interval is kept (msprof keeps its
--            --top_num = 10 longest: WHERE free_order <= 10); msprof's device-task rule sees
--            every TASK row (EVENT_RECORD, MEMCPY_ASYNC …) while tracedb stores only kernels,
--            communication ops and copies, so an interval holding only an event record is
--            classified by the launch rule here; a kernel without a known launch call gives
--            unknown_launch (msprof computes with NaN); times are not rounded to 0.001 µs.
--            Differences from HTA's idle_time (idle_interval): HTA looks at each stream alone
--            and calls a gap host_wait when the next launch call started after the stream went
--            idle; msprof looks at the whole device and compares how long the host took between
--            the framework op and its launch call for the tasks on both sides of the gap.
-- Units:     *_ns integer nanoseconds (start_ns, end_ns since the epoch); *_count tasks.
-- Parameters: diff_wait_threshold_ns — msprof DIFF_WAIT_THRESHOLD_NS; 50000 in free_analysis.
-- Browse:    free_analysis(50000) ORDER BY run_name, rank, free_order — at msprof-analyze's DIFF_WAIT_THRESHOLD_NS, 50 µs, the longest interval first (msprof-analyze prints the 10 longest)
CREATE OR REPLACE MACRO free_analysis_with(diff_wait_threshold_ns) AS TABLE
WITH task AS (
    SELECT
        k.run_id, k.rank, k.kernel_id, k.step, k.name, k.task_type, k.copy_kind,
        k.ts_ns, k.ts_ns + k.dur_ns AS end_ns,
        k.launch_ts_ns, k.launch_ts_ns + k.launch_dur_ns AS launch_end_ns,
        o.name AS op_name, o.ts_ns + o.dur_ns AS op_end_ns
    FROM kernel AS k
    LEFT JOIN op AS o
        ON o.run_id = k.run_id AND o.rank = k.rank AND o.op_id = k.op_id
),
busy AS (
    SELECT
        run_id, rank, ts_ns,
        max(end_ns) OVER (PARTITION BY run_id, rank ORDER BY ts_ns
                          ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING) AS prior_end_ns
    FROM task
    WHERE copy_kind IS NULL
),
free AS (
    SELECT DISTINCT run_id, rank, prior_end_ns AS start_ns, ts_ns AS end_ns
    FROM busy
    WHERE ts_ns > prior_end_ns
),
-- copies are the only stored tasks that can lie inside a free interval: the interval holding a
-- copy is the one with the latest start before it (a window, not a range join)
placed AS (
    SELECT
        run_id, rank, ts_ns, end_ns, is_free,
        max(CASE WHEN is_free THEN ts_ns END) OVER (PARTITION BY run_id, rank ORDER BY ts_ns, is_free DESC
                                                   ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) AS free_start_ns
    FROM (
        SELECT run_id, rank, start_ns AS ts_ns, end_ns, true AS is_free FROM free
        UNION ALL
        SELECT run_id, rank, ts_ns, end_ns, false AS is_free FROM task WHERE copy_kind IS NOT NULL
    ) AS u
),
inside AS (
    SELECT
        p.run_id, p.rank, f.start_ns, f.end_ns AS free_end_ns, p.ts_ns, p.end_ns,
        coalesce(max(p.end_ns) OVER (PARTITION BY p.run_id, p.rank, f.start_ns ORDER BY p.ts_ns, p.end_ns
                                     ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING), f.start_ns) AS covered_to_ns
    FROM placed AS p
    JOIN free AS f
        ON f.run_id = p.run_id AND f.rank = p.rank AND f.start_ns = p.free_start_ns
    WHERE NOT p.is_free AND p.ts_ns > f.start_ns AND p.end_ns < f.end_ns
),
inside_sum AS (
    SELECT
        run_id, rank, start_ns,
        count(*) AS task_count,
        greatest(max(greatest(ts_ns - covered_to_ns, 0)), max(free_end_ns) - max(end_ns)) AS remaining_ns
    FROM inside
    GROUP BY run_id, rank, start_ns
),
prev AS (
    SELECT f.run_id, f.rank, f.start_ns, t.name, t.op_name, t.op_end_ns, t.launch_ts_ns, t.launch_end_ns,
           row_number() OVER (PARTITION BY f.run_id, f.rank, f.start_ns ORDER BY t.ts_ns DESC, t.kernel_id DESC) AS pick
    FROM free AS f
    JOIN task AS t
        ON t.run_id = f.run_id AND t.rank = f.rank AND t.end_ns = f.start_ns
),
next AS (
    SELECT f.run_id, f.rank, f.start_ns, t.step, t.name, t.op_name, t.op_end_ns, t.launch_ts_ns, t.launch_end_ns,
           row_number() OVER (PARTITION BY f.run_id, f.rank, f.start_ns ORDER BY t.end_ns, t.kernel_id) AS pick
    FROM free AS f
    JOIN task AS t
        ON t.run_id = f.run_id AND t.rank = f.rank AND t.ts_ns = f.end_ns
),
joined AS (
    SELECT
        f.run_id, f.rank, n.step, f.start_ns, f.end_ns, f.end_ns - f.start_ns AS dur_ns,
        coalesce(i.task_count, 0) AS device_task_count, i.remaining_ns,
        p.name AS prev_kernel, n.name AS next_kernel, p.op_name AS prev_op, n.op_name AS next_op,
        n.op_end_ns - p.op_end_ns AS pytorch_idle_ns,
        n.launch_end_ns - p.launch_end_ns AS cann_idle_ns,
        p.launch_ts_ns - p.op_end_ns AS prev_dispatch_wait_ns,
        n.launch_ts_ns - n.op_end_ns AS next_dispatch_wait_ns,
        n.launch_ts_ns - p.launch_end_ns AS launch_gap_ns,
        p.launch_end_ns - p.launch_ts_ns AS prev_launch_dur_ns,
        n.launch_end_ns - n.launch_ts_ns AS next_launch_dur_ns
    FROM free AS f
    LEFT JOIN inside_sum AS i
        ON i.run_id = f.run_id AND i.rank = f.rank AND i.start_ns = f.start_ns
    LEFT JOIN prev AS p
        ON p.run_id = f.run_id AND p.rank = f.rank AND p.start_ns = f.start_ns AND p.pick = 1
    LEFT JOIN next AS n
        ON n.run_id = f.run_id AND n.rank = f.rank AND n.start_ns = f.start_ns AND n.pick = 1
)
SELECT
    r.run_name::VARCHAR                                            AS run_name,               -- run name
    j.rank::INTEGER                                                AS rank,                   -- global rank
    j.step::INTEGER                                                AS step,                   -- step of the task after the gap (kernel.step); NULL outside every step
    j.start_ns::BIGINT                                             AS start_ns,               -- free start: end of every earlier kernel / communication op, ns since the epoch (msprof Start Time)
    j.end_ns::BIGINT                                               AS end_ns,                 -- free end: start of the next one, ns since the epoch (msprof End Time)
    j.dur_ns::BIGINT                                               AS dur_ns,                 -- free time, ns (msprof Duration)
    row_number() OVER (PARTITION BY r.run_name, j.rank ORDER BY j.dur_ns DESC, j.start_ns)::BIGINT
                                                                   AS free_order,              -- 1 = longest free interval of the rank; msprof reports free_order <= top_num (10)
    (CASE WHEN j.device_task_count > 0 THEN 'device_task'
          WHEN j.prev_op IS NULL OR j.next_op IS NULL THEN 'no_op'
          WHEN j.prev_dispatch_wait_ns IS NULL OR j.next_dispatch_wait_ns IS NULL OR j.launch_gap_ns IS NULL
              THEN 'unknown_launch'
          WHEN j.next_dispatch_wait_ns - j.prev_dispatch_wait_ns < diff_wait_threshold_ns THEN 'pytorch_idle'
          WHEN j.launch_gap_ns >= greatest(j.prev_launch_dur_ns, j.next_launch_dur_ns) THEN 'cann_launch_gap'
          ELSE 'cann_long_launch' END)::VARCHAR                    AS reason,                 -- device_task, pytorch_idle, cann_launch_gap, cann_long_launch (msprof Reason); no_op: a side has no framework op (msprof skips it); unknown_launch: a side has no launch call
    j.device_task_count::BIGINT                                    AS device_task_count,      -- stored tasks (copies) strictly inside the interval (msprof "Device task running: N")
    j.remaining_ns::BIGINT                                         AS max_remaining_free_ns,  -- device_task: longest part of the interval those tasks leave free, ns (msprof "max remaining free")
    CASE WHEN j.device_task_count = 0 THEN j.pytorch_idle_ns END::BIGINT
                                                                   AS pytorch_idle_ns,        -- end of the next task's framework op − end of the previous one's, ns (msprof Pytorch Idle Time)
    CASE WHEN j.device_task_count = 0 THEN j.cann_idle_ns END::BIGINT
                                                                   AS cann_idle_ns,           -- end of the next task's launch call − end of the previous one's, ns (msprof Cann Idle Time)
    j.prev_dispatch_wait_ns::BIGINT                                AS prev_dispatch_wait_ns,  -- previous task: its launch call start − its framework op end, ns (msprof prev_wait)
    j.next_dispatch_wait_ns::BIGINT                                AS next_dispatch_wait_ns,  -- next task: the same, ns (msprof next_wait)
    j.launch_gap_ns::BIGINT                                        AS launch_gap_ns,          -- next launch call start − previous launch call end, ns (msprof idle_gap)
    j.prev_launch_dur_ns::BIGINT                                   AS prev_launch_dur_ns,     -- previous task's launch call duration, ns
    j.next_launch_dur_ns::BIGINT                                   AS next_launch_dur_ns,     -- next task's launch call duration, ns
    j.prev_kernel::VARCHAR                                         AS prev_kernel,            -- task ending at the free start
    j.next_kernel::VARCHAR                                         AS next_kernel,            -- task starting at the free end
    j.prev_op::VARCHAR                                             AS prev_op,                -- framework op that launched prev_kernel (kernel.op_id)
    j.next_op::VARCHAR                                             AS next_op                 -- framework op that launched next_kernel
FROM joined AS j
JOIN run AS r
    ON r.run_id = j.run_id
