-- The op rows' kernel counts and device times of (run, rank), from kernel.op_id (120, 121, or
-- the reader that wrote both).
-- Per op: kernels (copies aside) launched directly (kernel_count, device_self_ns) and by its subtree
-- (kernel_total_count, device_total_ns). The subtree of an op is the ops of its thread that
-- follow it in op_id order and start before it ends; with per-thread running sums in op_id
-- order, its total is the running sum at the last op of the thread starting before its end
-- minus the running sum just before it.
-- when: SELECT count(*) > 0 FROM op WHERE (run_id, rank) IN (FROM derive_rank())
UPDATE op SET kernel_count = t.kernel_count, kernel_total_count = t.kernel_total_count,
              device_self_ns = t.device_self_ns, device_total_ns = t.device_total_ns
FROM (
    WITH direct AS (
        SELECT run_id, rank, op_id, count(*) AS n, sum(dur_ns) AS ns
        FROM kernel
        WHERE (run_id, rank) IN (FROM derive_rank()) AND op_id IS NOT NULL
          AND copy_kind IS NULL   -- kernels, not copies (msprof-analyze's GPU op time: kernel events only)
        GROUP BY run_id, rank, op_id
    ),
    nested AS (
        -- the ranks whose op tree is not flat (some op has a parent)
        SELECT DISTINCT run_id, rank FROM op
        WHERE (run_id, rank) IN (FROM derive_rank()) AND parent_op_id IS NOT NULL
    ),
    cum AS (
        SELECT o.run_id, o.rank, o.file_id, coalesce(o.tid, '') AS tid, o.op_id, o.ts_ns, o.ts_ns + o.dur_ns AS end_ns,
               coalesce(d.n, 0) AS n, coalesce(d.ns, 0) AS ns,
               sum(coalesce(d.n, 0)) OVER w AS cum_n, sum(coalesce(d.ns, 0)) OVER w AS cum_ns
        FROM op AS o
        LEFT JOIN direct AS d ON d.run_id = o.run_id AND d.rank = o.rank AND d.op_id = o.op_id
        WHERE (o.run_id, o.rank) IN (FROM nested)
        WINDOW w AS (PARTITION BY o.file_id, coalesce(o.tid, '') ORDER BY o.op_id ROWS UNBOUNDED PRECEDING)
    ),
    by_start AS (
        -- running sums after the last op of each start instant of a thread
        SELECT file_id, tid, ts_ns, arg_max(cum_n, op_id) AS cum_n, arg_max(cum_ns, op_id) AS cum_ns
        FROM cum GROUP BY file_id, tid, ts_ns
    )
    SELECT c.run_id, c.rank, c.op_id, c.n AS kernel_count, c.ns AS device_self_ns,
           CASE WHEN c.end_ns > c.ts_ns THEN b.cum_n - c.cum_n + c.n ELSE c.n END AS kernel_total_count,
           CASE WHEN c.end_ns > c.ts_ns THEN b.cum_ns - c.cum_ns + c.ns ELSE c.ns END AS device_total_ns
    FROM cum AS c
    ASOF LEFT JOIN by_start AS b ON b.file_id = c.file_id AND b.tid = c.tid AND c.end_ns > b.ts_ns
    UNION ALL
    -- a flat tree (no op of the rank has a parent): every total is the op's own
    SELECT o.run_id, o.rank, o.op_id, coalesce(d.n, 0), coalesce(d.ns, 0), coalesce(d.n, 0), coalesce(d.ns, 0)
    FROM op AS o
    LEFT JOIN direct AS d ON d.run_id = o.run_id AND d.rank = o.rank AND d.op_id = o.op_id
    WHERE (o.run_id, o.rank) IN (FROM derive_rank()) AND (o.run_id, o.rank) NOT IN (FROM nested)
) AS t
WHERE op.run_id = t.run_id AND op.rank = t.rank AND op.op_id = t.op_id;
