-- Framework ops of (run, rank) from its trace events → op (rows of source trace_view / kineto;
-- rows another reader wrote, e.g. ascend_db, are left alone).
-- An op is an X event of category cpu_op, user_annotation (record_function ranges:
-- Optimizer.step#SGD.step, enumerate(DataLoader)#...) or Operator (Kineto of 2021), any case,
-- except the ProfilerStep#N slices (steps, not ops: depth 0 = the top-level ops of a step).
-- gpu_user_annotation and python_function events are not ops.
-- Nesting per thread (pid, tid of the file): a sweep over the op boundaries (+1 at a start,
-- -1 at an end; at equal time ends first, then starts longer first, a zero-length op's end
-- right after its start) gives the depth; the parent is the last op of the thread at depth - 1
-- to start before (op_id order). Slices that overlap without nesting get the depth the sweep
-- gives (check: a child ending after its parent).
-- Step: the ProfilerStep#N whose host window [host_start_ns, host_end_ns) holds the op start.
-- is_backward: per file, TRUE on the threads where fwdbwd flows end (ph f), FALSE on the other
-- threads, NULL when the file has no fwdbwd flow (msprof-analyze's rule: the flow end's tid is
-- the backward thread).
-- module_path is filled by derive/125 (the module tree), kernel_count and the device times by
-- derive/122.
-- when-format: trace_view kineto
DELETE FROM op
WHERE (run_id, rank) IN (FROM derive_rank()) AND source IN ('trace_view', 'kineto');

INSERT INTO op BY NAME
WITH files AS (
    SELECT file_id, format FROM source_file
    WHERE (run_id, rank) IN (FROM derive_rank()) AND format IN ('trace_view', 'kineto')
),
ev AS (
    SELECT e.run_id, e.rank, e.file_id, e.pid, e.tid, e.ts_ns, e.dur_ns, e.name, e.args, e.rowid AS erow,
           row_number() OVER (PARTITION BY e.run_id, e.rank ORDER BY e.ts_ns, e.dur_ns DESC, e.tid, e.name, e.rowid)
               AS op_id
    FROM event AS e
    WHERE (e.run_id, e.rank) IN (FROM derive_rank()) AND e.file_id IN (SELECT file_id FROM files)
      AND e.ph = 'X' AND lower(e.cat) IN ('cpu_op', 'user_annotation', 'operator')
      AND e.ts_ns IS NOT NULL AND e.dur_ns >= 0 AND NOT starts_with(e.name, 'ProfilerStep#')
),
sweep AS (
    -- per thread of a file (so per rank: op_id orders the ops of one rank)
    SELECT erow, delta, sum(delta) OVER (PARTITION BY file_id, pid, tid ORDER BY t, kind, ord
                                        ROWS UNBOUNDED PRECEDING) AS running
    FROM (SELECT file_id, pid, tid, erow, ts_ns AS t, 1 AS kind, 2 * op_id AS ord, 1 AS delta FROM ev
          UNION ALL
          SELECT file_id, pid, tid, erow, ts_ns + dur_ns,
                 CASE WHEN dur_ns > 0 THEN 0 ELSE 1 END, CASE WHEN dur_ns > 0 THEN 0 ELSE 2 * op_id + 1 END, -1
          FROM ev)
),
tree AS (
    SELECT ev.file_id, ev.pid, ev.tid, ev.erow, ev.op_id, ev.ts_ns, sw.running - 1 AS depth
    FROM ev JOIN sweep AS sw ON sw.erow = ev.erow AND sw.delta = 1
),
parent AS (
    SELECT c.erow, p.op_id AS parent_op_id
    FROM (FROM tree WHERE depth > 0) AS c
    ASOF JOIN tree AS p ON p.file_id = c.file_id AND p.pid = c.pid AND p.tid = c.tid AND p.depth = c.depth - 1
                       AND c.op_id > p.op_id
),
bwd AS (
    SELECT file_id, list(DISTINCT tid) AS tids
    FROM event
    WHERE (run_id, rank) IN (FROM derive_rank()) AND file_id IN (SELECT file_id FROM files)
      AND ph = 'f' AND cat = 'fwdbwd'
    GROUP BY file_id
),
step_start AS (
    SELECT run_id, rank, step, host_start_ns, host_end_ns FROM step
    WHERE (run_id, rank) IN (FROM derive_rank()) AND host_start_ns IS NOT NULL
),
op_step AS (
    SELECT ev.erow, w.step
    FROM (SELECT run_id, rank, erow, ts_ns FROM ev) AS ev
    ASOF JOIN step_start AS w ON w.run_id = ev.run_id AND w.rank = ev.rank AND ev.ts_ns >= w.host_start_ns
    WHERE ev.ts_ns < w.host_end_ns
)
SELECT ev.run_id, ev.rank, ev.file_id, ev.op_id, s.step, ev.tid,
       ev.ts_ns, ev.dur_ns, ev.name, p.parent_op_id, t.depth,
       coalesce(a[1], a[2]) AS input_dims, a[3] AS input_types, TRY_CAST(a[4] AS BIGINT) AS sequence_number,
       CASE WHEN b.tids IS NOT NULL THEN list_contains(b.tids, ev.tid) END AS is_backward,
       NULL::VARCHAR AS module_path, f.format AS source
FROM (SELECT *, json_extract_string(args, ['$."Input Dims"', '$."Input dims"', '$."Input type"', '$."Sequence number"']) AS a
      FROM ev) AS ev
JOIN files AS f ON f.file_id = ev.file_id
JOIN tree AS t ON t.erow = ev.erow
LEFT JOIN parent AS p ON p.erow = ev.erow
LEFT JOIN bwd AS b ON b.file_id = ev.file_id
LEFT JOIN op_step AS s ON s.erow = ev.erow
ORDER BY ev.run_id, ev.rank, ev.op_id;
