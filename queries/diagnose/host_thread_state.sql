-- host_thread_state — what each host thread did during each step: scheduler states (running,
-- sleeping, blocked on a mutex ...), OS runtime calls (locks, sleeps, file I/O) and CUDA / CANN
-- runtime calls (launches, synchronisations, copies), with their time.
-- Grain:     one row per (run, rank, step, thread, source, state, detail); the intervals of a
--            step are clipped to its host window; a rank without steps has step NULL and whole
--            intervals; an interval overlapping no step of a rank with steps has step NULL.
-- Source:    thread_state (Nsight Systems SCHED_EVENTS: source sched, state running / preempted /
--            the thread state a schedule-out recorded, detail = its block reason); event cat osrt
--            (Nsight OSRT_API: source osrt), runtime calls (cat cuda_runtime / hip_runtime /
--            runtime / cuda_driver / privateuse1_runtime, NPU process CANN: source runtime), whose
--            state is the category host_call_rule gives the call name (lock, sleep, io, poll,
--            driver, memory, sync, launch, copy, other) and detail the call name; step (host
--            windows).
-- Reference: Nsight Systems' OS runtime summary (osrt_sum: time per OS runtime call) and thread
--            state rows of its timeline, split per step and thread; MindInsight had no per-thread
--            view (see cpu_utilization for its CPU page). state_ns sums the intervals' clipped
--            durations: scheduler intervals of a thread never overlap; nested OS runtime calls
--            (osrt nestingLevel > 0) count again.
-- Units:     *_ns integer nanoseconds; *_count intervals; *_ratio state_ns / step_ns.
CREATE OR REPLACE VIEW host_thread_state AS
WITH host_step AS (
    SELECT run_id, rank, step, host_start_ns AS start_ns, host_end_ns AS end_ns
    FROM step
    WHERE host_start_ns IS NOT NULL AND host_end_ns > host_start_ns
),
host_call AS (
    SELECT run_id, rank, tid, thread_name, ts_ns, dur_ns, name,
           CASE WHEN lower(cat) = 'osrt' THEN 'osrt' ELSE 'runtime' END AS source
    FROM event
    WHERE ph = 'X' AND ts_ns IS NOT NULL AND dur_ns >= 0 AND tid IS NOT NULL
      AND (lower(cat) IN ('osrt', 'cuda_runtime', 'hip_runtime', 'runtime', 'cuda_driver', 'privateuse1_runtime',
                          'privateuse1_driver')
           OR process_name = 'CANN')
),
call_category AS (
    -- each call name's category: the matching rule with the lowest (priority, rule_id)
    SELECT name, category
    FROM (
        SELECT n.name, u.category,
               row_number() OVER (PARTITION BY n.name ORDER BY u.priority, u.rule_id) AS pick
        FROM (SELECT DISTINCT name FROM host_call WHERE name IS NOT NULL) AS n
        JOIN host_call_rule AS u
            ON u.enabled AND lower(n.name) LIKE lower(u.pattern) ESCAPE '\'
    ) AS ranked
    WHERE pick = 1
),
host_interval AS (
    SELECT c.run_id, c.rank, c.tid, c.thread_name, c.ts_ns, c.ts_ns + c.dur_ns AS end_ns, c.source,
           coalesce(cc.category, 'other') AS state, c.name AS detail
    FROM host_call AS c
    LEFT JOIN call_category AS cc
        ON cc.name = c.name
    UNION ALL
    SELECT run_id, rank, tid, thread_name, ts_ns, ts_ns + dur_ns, 'sched', state, block_reason
    FROM thread_state
),
clipped AS (
    SELECT i.run_id, i.rank, h.step, i.tid, i.thread_name, i.source, i.state, i.detail,
           CASE WHEN h.step IS NULL THEN i.ts_ns ELSE greatest(i.ts_ns, h.start_ns) END AS ts_ns,
           CASE WHEN h.step IS NULL THEN i.end_ns ELSE least(i.end_ns, h.end_ns) END AS end_ns,
           h.end_ns - h.start_ns AS step_ns
    FROM host_interval AS i
    LEFT JOIN host_step AS h
        ON h.run_id = i.run_id AND h.rank = i.rank AND i.ts_ns < h.end_ns AND i.end_ns > h.start_ns
)
SELECT
    r.run_name::VARCHAR                                   AS run_name,         -- run name
    c.rank::INTEGER                                       AS rank,             -- global rank
    c.step::INTEGER                                       AS step,             -- step whose host window the intervals are clipped to; NULL: none
    c.tid::VARCHAR                                        AS tid,              -- host thread id, as text
    max(c.thread_name)::VARCHAR                           AS thread_name,      -- thread name (Nsight ThreadNames, trace thread_name); NULL if unknown
    c.source::VARCHAR                                     AS source,           -- sched (scheduler states), osrt (OS runtime calls) or runtime (CUDA / HIP / CANN calls)
    c.state::VARCHAR                                      AS state,            -- sched: running, preempted or the off-CPU state (Interruptible, Uninterruptible ...); calls: host_call_rule category (lock, sleep, io, poll, driver, memory, sync, launch, copy, other)
    c.detail::VARCHAR                                     AS detail,           -- sched: block reason (Mutex, CondVar, Nanosleep ...); calls: the call name (pthread_mutex_lock, cudaStreamSynchronize ...)
    count(*)::BIGINT                                      AS interval_count,   -- intervals (calls, scheduler intervals)
    sum(c.end_ns - c.ts_ns)::BIGINT                       AS state_ns,         -- their time within the step, ns
    any_value(c.step_ns)::BIGINT                          AS step_ns,          -- the step's host window, ns; NULL without a step
    (sum(c.end_ns - c.ts_ns) / any_value(c.step_ns))::DOUBLE
                                                          AS state_ratio       -- state_ns / step_ns
FROM clipped AS c
JOIN run AS r
    ON r.run_id = c.run_id
GROUP BY r.run_name, c.rank, c.step, c.tid, c.source, c.state, c.detail
ORDER BY r.run_name, c.rank, c.step, c.tid, state_ns DESC, c.source, c.state, c.detail;
