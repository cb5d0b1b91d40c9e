-- Annotated host ranges of (run, rank) → host_range, and for each kernel the ranges that enclose
-- its launch → kernel_range (read by range_time).
-- Ranges: X events of category nvtx (Nsight Systems NVTX_EVENTS, step ranges included), mstx
-- (Ascend profiler DB MSTX_EVENTS) or user_annotation (Kineto record_function ranges), any case,
-- with a start and a length (an NVTX range never closed has no length and is left out).
-- Nesting per (file, kind, thread) by the sweep derive/110_op.sql uses for ops: +1 at a start, -1
-- at an end (ends first at equal times, then longer starts first); the parent is the last range
-- of the thread at depth - 1 to start before (Nsight's ParentId for nested push/pop ranges).
-- Containment (Nsight Systems nvtx_gpu_proj_trace): a kernel belongs to a range when the call
-- that launched it lies within it on the range's thread: range start <= call start and call end
-- <= range end. The call is the launch call (kernel.launch_tid / launch_ts_ns / launch_dur_ns;
-- a launch known only by its flow is a point), or the framework op that launched the kernel
-- (kernel.op_id), so that a range on the Python thread holds the kernels torch_npu launched
-- from its task-queue thread. Ranges and calls are cut into 2^20 ns buckets and joined on
-- (thread, bucket) (as host_wait does), every pair kept once, in the call's first bucket.
-- when: SELECT EXISTS (FROM event WHERE (run_id, rank) IN (FROM derive_rank()) AND ph = 'X' AND lower(cat) IN ('nvtx', 'mstx', 'user_annotation'))
DELETE FROM kernel_range WHERE (run_id, rank) IN (FROM derive_rank());

DELETE FROM host_range WHERE (run_id, rank) IN (FROM derive_rank());

INSERT INTO host_range (run_id, rank, file_id, range_id, kind, name, pid, tid, ts_ns, dur_ns, depth,
                        parent_range_id, step)
WITH ev AS (
    SELECT e.run_id, e.rank, e.file_id, lower(e.cat) AS kind, e.name, e.pid, e.tid, e.ts_ns, e.dur_ns,
           e.rowid AS erow,
           row_number() OVER (PARTITION BY e.run_id, e.rank
                              ORDER BY e.ts_ns, e.dur_ns DESC, lower(e.cat), e.tid, e.name, e.rowid) AS range_id
    FROM event AS e
    WHERE (e.run_id, e.rank) IN (FROM derive_rank()) AND e.ph = 'X'
      AND lower(e.cat) IN ('nvtx', 'mstx', 'user_annotation') AND e.ts_ns IS NOT NULL AND e.dur_ns >= 0
),
sweep AS (
    SELECT erow, delta,
           sum(delta) OVER (PARTITION BY file_id, kind, tid ORDER BY t, ord_kind, ord ROWS UNBOUNDED PRECEDING) AS running
    FROM (SELECT file_id, kind, tid, erow, ts_ns AS t, 1 AS ord_kind, 2 * range_id AS ord, 1 AS delta FROM ev
          UNION ALL
          SELECT file_id, kind, tid, erow, ts_ns + dur_ns, CASE WHEN dur_ns > 0 THEN 0 ELSE 1 END,
                 CASE WHEN dur_ns > 0 THEN 0 ELSE 2 * range_id + 1 END, -1
          FROM ev)
),
tree AS (
    SELECT ev.file_id, ev.kind, coalesce(ev.tid, '') AS tid, ev.erow, ev.range_id, sw.running - 1 AS depth
    FROM ev JOIN sweep AS sw ON sw.erow = ev.erow AND sw.delta = 1
),
parent AS (
    SELECT c.erow, p.range_id AS parent_range_id
    FROM (FROM tree WHERE depth > 0) AS c
    ASOF JOIN tree AS p ON p.file_id = c.file_id AND p.kind = c.kind AND p.tid = c.tid AND p.depth = c.depth - 1
                       AND c.range_id > p.range_id
),
steps AS (
    SELECT run_id, rank, step, host_start_ns, host_end_ns FROM step
    WHERE (run_id, rank) IN (FROM derive_rank()) AND host_start_ns IS NOT NULL
)
SELECT ev.run_id, ev.rank, ev.file_id, ev.range_id, ev.kind, ev.name, ev.pid, ev.tid,
       ev.ts_ns, ev.dur_ns, t.depth, p.parent_range_id,
       CASE WHEN ev.ts_ns < s.host_end_ns THEN s.step END
FROM ev
JOIN tree AS t ON t.erow = ev.erow
LEFT JOIN parent AS p ON p.erow = ev.erow
ASOF LEFT JOIN steps AS s ON s.run_id = ev.run_id AND s.rank = ev.rank AND ev.ts_ns >= s.host_start_ns
ORDER BY ev.run_id, ev.rank, ev.range_id;

INSERT INTO kernel_range (run_id, rank, kernel_id, range_id, is_innermost)
WITH calls AS (
    -- the launch call of each kernel (a point when only the flow start is known) ...
    SELECT run_id, rank, kernel_id, launch_tid AS tid, launch_ts_ns AS ts_ns,
           launch_ts_ns + coalesce(launch_dur_ns, 0) AS end_ns
    FROM kernel
    WHERE (run_id, rank) IN (FROM derive_rank()) AND launch_tid IS NOT NULL
      AND launch_ts_ns IS NOT NULL
    UNION ALL
    -- ... and the framework op that launched it
    SELECT k.run_id, k.rank, k.kernel_id, o.tid, o.ts_ns, o.ts_ns + o.dur_ns
    FROM kernel AS k
    JOIN op AS o ON o.run_id = k.run_id AND o.rank = k.rank AND o.op_id = k.op_id
    WHERE (k.run_id, k.rank) IN (FROM derive_rank()) AND k.op_id IS NOT NULL
      AND o.tid IS NOT NULL
),
ranges AS (
    SELECT run_id, rank, range_id, kind, tid, ts_ns, ts_ns + dur_ns AS end_ns, depth
    FROM host_range
    WHERE (run_id, rank) IN (FROM derive_rank()) AND tid IS NOT NULL
),
range_bucket AS (
    SELECT r.*, unnest(generate_series(r.ts_ns // 1048576, r.end_ns // 1048576)) AS bucket
    FROM ranges AS r
    WHERE (r.run_id, r.rank, r.tid) IN (SELECT DISTINCT run_id, rank, tid FROM calls)
),
inside AS (
    SELECT DISTINCT c.run_id, c.rank, c.kernel_id, r.range_id, r.kind, r.depth
    FROM calls AS c
    JOIN range_bucket AS r ON r.run_id = c.run_id AND r.rank = c.rank AND r.tid = c.tid
                          AND r.bucket = c.ts_ns // 1048576
    WHERE r.ts_ns <= c.ts_ns AND c.end_ns <= r.end_ns
)
SELECT run_id, rank, kernel_id, range_id,
       row_number() OVER (PARTITION BY run_id, rank, kernel_id, kind ORDER BY depth DESC, range_id DESC) = 1
FROM inside
ORDER BY run_id, rank, kernel_id, range_id;
