-- Nsight Systems exports: NVTX ranges are the framework ops (torch.autograd.profiler.emit_nvtx
-- and torch.cuda.nvtx.range_push write one per op or region) → op rows of source nsys, and each
-- kernel, copy and memset of the export is linked to the innermost one holding its launch call
-- → kernel.op_id; then the ops' kernel counts and device times (derive/122's rule, run again
-- here because this step follows it).
-- An op is an NVTX range (event cat nvtx, ph X, with a length) of the rank's nsys file except the
-- step ranges (ProfilerStep#N: steps, not ops). Nesting per (pid, tid) by derive/110_op.sql's
-- sweep. op_id continues after the ops other sources wrote for the rank (none, for an nsys rank).
-- A kernel belongs to the innermost range holding its launch call on the call's thread (Nsight
-- nvtx_gpu_proj_trace's containment: range start <= call start and call end <= range end);
-- calls and ranges meet in 2^20 ns buckets as in derive/124.
-- when-format: nsys
DELETE FROM op WHERE (run_id, rank) IN (FROM derive_rank()) AND source = 'nsys';

UPDATE kernel SET op_id = NULL
WHERE (run_id, rank) IN (FROM derive_rank()) AND source = 'nsys' AND op_id IS NOT NULL;

INSERT INTO op BY NAME
WITH last_op AS (
    SELECT run_id, rank, max(op_id) AS op_id FROM op
    WHERE (run_id, rank) IN (FROM derive_rank()) AND source <> 'nsys'
    GROUP BY run_id, rank
),
ev AS (
    SELECT e.run_id, e.rank, e.file_id, e.pid, coalesce(e.tid, '') AS tid, e.ts_ns, e.dur_ns,
           coalesce(e.name, '') AS name, e.rowid AS erow,
           coalesce(l.op_id, 0)
           + row_number() OVER (PARTITION BY e.run_id, e.rank ORDER BY e.ts_ns, e.dur_ns DESC, e.tid, e.name, e.rowid)
               AS op_id
    FROM event AS e
    LEFT JOIN last_op AS l ON l.run_id = e.run_id AND l.rank = e.rank
    WHERE (e.run_id, e.rank) IN (FROM derive_rank()) AND e.ph = 'X' AND e.cat = 'nvtx'
      AND e.ts_ns IS NOT NULL AND e.dur_ns >= 0 AND NOT starts_with(coalesce(e.name, ''), 'ProfilerStep#')
      AND e.file_id IN (SELECT file_id FROM derive_files(['nsys']))
),
sweep AS (
    SELECT erow, delta, sum(delta) OVER (PARTITION BY file_id, pid, tid ORDER BY t, kind, ord
                                        ROWS UNBOUNDED PRECEDING) AS running
    FROM (SELECT file_id, pid, tid, erow, ts_ns AS t, 1 AS kind, 2 * op_id AS ord, 1 AS delta FROM ev
          UNION ALL
          SELECT file_id, pid, tid, erow, ts_ns + dur_ns,
                 CASE WHEN dur_ns > 0 THEN 0 ELSE 1 END, CASE WHEN dur_ns > 0 THEN 0 ELSE 2 * op_id + 1 END, -1
          FROM ev)
),
tree AS (
    SELECT ev.file_id, ev.pid, ev.tid, ev.erow, ev.op_id, sw.running - 1 AS depth
    FROM ev JOIN sweep AS sw ON sw.erow = ev.erow AND sw.delta = 1
),
parent AS (
    SELECT c.erow, p.op_id AS parent_op_id
    FROM (FROM tree WHERE depth > 0) AS c
    ASOF JOIN tree AS p ON p.file_id = c.file_id AND p.pid IS NOT DISTINCT FROM c.pid AND p.tid = c.tid
                       AND p.depth = c.depth - 1 AND c.op_id > p.op_id
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
SELECT ev.run_id, ev.rank, ev.file_id, ev.op_id, s.step,
       nullif(ev.tid, '') AS tid, ev.ts_ns, ev.dur_ns, ev.name, p.parent_op_id, t.depth, 'nsys' AS source
FROM ev
JOIN tree AS t ON t.erow = ev.erow
LEFT JOIN parent AS p ON p.erow = ev.erow
LEFT JOIN op_step AS s ON s.erow = ev.erow
ORDER BY ev.run_id, ev.rank, ev.op_id;

UPDATE kernel SET op_id = a.op_id
FROM (
    WITH calls AS (
        SELECT run_id, rank, kernel_id, launch_tid AS tid, launch_ts_ns AS ts_ns,
               launch_ts_ns + coalesce(launch_dur_ns, 0) AS end_ns
        FROM kernel
        WHERE (run_id, rank) IN (FROM derive_rank()) AND source = 'nsys'
          AND launch_tid IS NOT NULL AND launch_ts_ns IS NOT NULL
    ),
    ranges AS (
        SELECT run_id, rank, op_id, tid, ts_ns, ts_ns + dur_ns AS end_ns, depth,
               unnest(generate_series(ts_ns // 1048576, (ts_ns + dur_ns) // 1048576)) AS bucket
        FROM op
        WHERE (run_id, rank) IN (FROM derive_rank()) AND source = 'nsys' AND tid IS NOT NULL
    )
    SELECT c.run_id, c.rank, c.kernel_id, arg_max(r.op_id, r.depth * 4294967296 + r.op_id) AS op_id
    FROM calls AS c
    JOIN ranges AS r ON r.run_id = c.run_id AND r.rank = c.rank AND r.tid = c.tid AND r.bucket = c.ts_ns // 1048576
    WHERE r.ts_ns <= c.ts_ns AND c.end_ns <= r.end_ns
    GROUP BY c.run_id, c.rank, c.kernel_id
) AS a
WHERE kernel.run_id = a.run_id AND kernel.rank = a.rank AND kernel.kernel_id = a.kernel_id;

UPDATE op SET kernel_count = t.kernel_count, kernel_total_count = t.kernel_total_count,
              device_self_ns = t.device_self_ns, device_total_ns = t.device_total_ns
FROM (
    -- derive/122_op_kernel_count.sql's rule: direct kernels per op, and the running sums per
    -- thread in op_id order for the subtree totals
    WITH direct AS (
        SELECT run_id, rank, op_id, count(*) AS n, sum(dur_ns) AS ns
        FROM kernel
        WHERE (run_id, rank) IN (FROM derive_rank()) AND op_id IS NOT NULL
          AND copy_kind IS NULL
        GROUP BY run_id, rank, op_id
    ),
    cum AS (
        SELECT o.run_id, o.rank, o.file_id, coalesce(o.tid, '') AS tid, o.op_id, o.ts_ns, o.ts_ns + o.dur_ns AS end_ns,
               coalesce(d.n, 0) AS n, coalesce(d.ns, 0) AS ns,
               sum(coalesce(d.n, 0)) OVER w AS cum_n, sum(coalesce(d.ns, 0)) OVER w AS cum_ns
        FROM op AS o
        LEFT JOIN direct AS d ON d.run_id = o.run_id AND d.rank = o.rank AND d.op_id = o.op_id
        WHERE (o.run_id, o.rank) IN (FROM derive_rank()) AND o.source = 'nsys'
        WINDOW w AS (PARTITION BY o.file_id, coalesce(o.tid, '') ORDER BY o.op_id ROWS UNBOUNDED PRECEDING)
    ),
    by_start AS (
        SELECT file_id, tid, ts_ns, arg_max(cum_n, op_id) AS cum_n, arg_max(cum_ns, op_id) AS cum_ns
        FROM cum GROUP BY file_id, tid, ts_ns
    )
    SELECT c.run_id, c.rank, c.op_id, c.n AS kernel_count, c.ns AS device_self_ns,
           CASE WHEN c.end_ns > c.ts_ns THEN b.cum_n - c.cum_n + c.n ELSE c.n END AS kernel_total_count,
           CASE WHEN c.end_ns > c.ts_ns THEN b.cum_ns - c.cum_ns + c.ns ELSE c.ns END AS device_total_ns
    FROM cum AS c
    ASOF LEFT JOIN by_start AS b ON b.file_id = c.file_id AND b.tid = c.tid AND c.end_ns > b.ts_ns
) AS t
WHERE op.run_id = t.run_id AND op.rank = t.rank AND op.op_id = t.op_id;
