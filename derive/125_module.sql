-- nn.Module instances of (run, rank) → module (rows of source trace_view / kineto; the
-- ascend_db reader writes the rows of its file, named, nested and timed here as well), the tree
-- msprof-analyze's module comparison builds (compare_backend/data_prepare/module_data_prepare.py),
-- and the device time of the kernels launched inside each module.
-- Forward: every X event of category python_function named "nn.Module: X_n" (with_stack), plus
-- every op named Optimizer.* (msprof-analyze adds optimizer ops to the module list), nested by
-- time in one tree across threads (module_tree, _session.sql).
-- Backward: for each fwdbwd flow, the op starting at the flow end on the flow end's thread (the
-- outermost when several do) becomes a module named "[ BACKWARD ]/" + the path of the innermost
-- forward module running at the flow start (start < flow start < end); flows starting outside
-- every module give none. Backward modules nest by time in a tree of their own.
-- Attribution: an op belongs, in each tree, to the innermost module running at its start
-- (start <= op start <= end; msprof-analyze builds both trees from every kernel, so an op inside
-- a backward module and a forward one counts in both); a kernel to the module of the op that
-- launched it (kernel.op_id). Copies (kernel.copy_kind) are not device time, as in
-- op.device_self_ns (msprof-analyze's trace_view path counts the MEMCPY_ASYNC tasks of a flow
-- too: tests/compare). Kernels without a launching op belong to no module.
-- when: SELECT EXISTS (FROM module WHERE (run_id, rank) IN (FROM derive_rank())) OR EXISTS (FROM event WHERE (run_id, rank) IN (FROM derive_rank()) AND cat = 'python_function' AND ph = 'X' AND starts_with(name, 'nn.Module: '))
DELETE FROM module
WHERE (run_id, rank) IN (FROM derive_rank()) AND source IN ('trace_view', 'kineto');

INSERT INTO module BY NAME
WITH files AS (
    SELECT file_id, format FROM source_file
    WHERE (run_id, rank) IN (FROM derive_rank()) AND format IN ('trace_view', 'kineto')
),
fwd AS (
    SELECT run_id, rank, file_id, tid, ts_ns, dur_ns, substr(name, length('nn.Module: ') + 1) AS name,
           'forward' AS kind, NULL::BIGINT AS called_at_ns
    FROM event
    WHERE (run_id, rank) IN (FROM derive_rank()) AND file_id IN (SELECT file_id FROM files)
      AND ph = 'X' AND cat = 'python_function' AND starts_with(name, 'nn.Module: ')
      AND ts_ns IS NOT NULL AND dur_ns >= 0
    UNION ALL
    SELECT run_id, rank, file_id, tid, ts_ns, dur_ns, name, 'optimizer', NULL
    FROM op
    WHERE (run_id, rank) IN (FROM derive_rank()) AND source IN ('trace_view', 'kineto')
      AND starts_with(lower(name), 'optimizer')
),
flow AS (
    SELECT s.run_id, s.rank, s.file_id, s.ts_ns AS start_ns, f.tid AS end_tid, f.ts_ns AS end_ns
    FROM event AS s
    JOIN event AS f ON f.run_id = s.run_id AND f.rank = s.rank AND f.file_id = s.file_id AND f.flow_id = s.flow_id
                   AND f.ph = 'f' AND f.cat = 'fwdbwd'
    WHERE (s.run_id, s.rank) IN (FROM derive_rank()) AND s.file_id IN (SELECT file_id FROM files)
      AND s.ph = 's' AND s.cat = 'fwdbwd'
),
bwd AS (
    -- named once the forward tree is known (below); the outermost op starting at the flow end
    SELECT fl.run_id, fl.rank, fl.file_id, o.tid, o.ts_ns, arg_min(o.dur_ns, o.op_id) AS dur_ns,
           '[ BACKWARD ]' AS name, 'backward' AS kind, fl.start_ns AS called_at_ns
    FROM flow AS fl
    JOIN op AS o ON o.run_id = fl.run_id AND o.rank = fl.rank AND o.file_id = fl.file_id
                AND o.tid = fl.end_tid AND o.ts_ns = fl.end_ns
    GROUP BY fl.run_id, fl.rank, fl.file_id, o.tid, o.ts_ns, fl.start_ns
),
rows AS (
    SELECT * FROM fwd UNION ALL SELECT * FROM bwd
),
last_module AS (
    SELECT run_id, rank, max(module_id) AS module_id FROM module
    WHERE (run_id, rank) IN (FROM derive_rank())
    GROUP BY run_id, rank
)
SELECT r.run_id, r.rank, r.file_id,
       row_number() OVER (PARTITION BY r.run_id, r.rank
                          ORDER BY r.kind = 'backward', r.ts_ns, r.dur_ns DESC, r.name, r.tid, r.called_at_ns)
           + coalesce(l.module_id, 0) AS module_id,
       r.kind, r.name, r.tid, r.ts_ns, r.dur_ns, r.called_at_ns, f.format AS source
FROM rows AS r JOIN files AS f USING (file_id)
LEFT JOIN last_module AS l ON l.run_id = r.run_id AND l.rank = r.rank
WHERE (r.run_id, r.rank) IN (SELECT run_id, rank FROM fwd WHERE kind = 'forward');

-- the forward tree, materialised for the backward names and module_span (DuckDB plans an
-- UPDATE joined to the recursive macro two orders of magnitude slower than the macro alone);
-- the module rows get their parents and paths from both trees at once, in the last UPDATE
CREATE OR REPLACE TEMP TABLE module_fwd_tree AS
FROM module_tree(false);

-- backward names: the innermost forward module running at the flow start, strictly (a sweep
-- with +1 one ns after each start and -1 at each end), then the last forward module of that
-- depth to start before it
UPDATE module SET name = '[ BACKWARD ]/' || a.module_path
FROM (
    WITH fwd AS (
        SELECT m.run_id, m.rank, m.module_id, m.ts_ns, m.ts_ns + m.dur_ns AS end_ns, t.depth, t.module_path
        FROM module AS m JOIN module_fwd_tree AS t USING (run_id, rank, module_id)
        WHERE (m.run_id, m.rank) IN (FROM derive_rank())
    ),
    running AS (
        SELECT run_id, rank, t, sum(delta) OVER (PARTITION BY run_id, rank ORDER BY t ROWS UNBOUNDED PRECEDING) AS n
        FROM (SELECT run_id, rank, t, sum(delta) AS delta
              FROM (SELECT run_id, rank, ts_ns + 1 AS t, 1 AS delta FROM fwd
                    UNION ALL SELECT run_id, rank, end_ns, -1 FROM fwd)
              GROUP BY run_id, rank, t)
    ),
    bwd AS (
        SELECT run_id, rank, module_id, called_at_ns FROM module
        WHERE (run_id, rank) IN (FROM derive_rank()) AND kind = 'backward'
    )
    SELECT b.run_id, b.rank, b.module_id, m.module_path
    FROM (SELECT b.*, r.n FROM bwd AS b
          ASOF JOIN running AS r ON r.run_id = b.run_id AND r.rank = b.rank AND b.called_at_ns >= r.t
          WHERE r.n > 0) AS b
    ASOF JOIN fwd AS m ON m.run_id = b.run_id AND m.rank = b.rank AND m.depth = b.n - 1 AND b.called_at_ns > m.ts_ns
) AS a
WHERE module.run_id = a.run_id AND module.rank = a.rank AND module.module_id = a.module_id;

-- a flow starting outside every forward module names no module
DELETE FROM module
WHERE (run_id, rank) IN (FROM derive_rank()) AND kind = 'backward' AND name = '[ BACKWARD ]';

-- the backward tree; both trees with the depth of each module
CREATE OR REPLACE TEMP TABLE module_bwd_tree AS
FROM module_tree(true);

CREATE OR REPLACE TEMP TABLE module_span AS
SELECT m.run_id, m.rank, m.module_id, m.kind, t.bwd, m.ts_ns, m.ts_ns + m.dur_ns AS end_ns, t.parent_module_id,
       t.module_path, t.depth
FROM module AS m
JOIN (SELECT *, false AS bwd FROM module_fwd_tree UNION ALL SELECT *, true FROM module_bwd_tree) AS t
    USING (run_id, rank, module_id)
WHERE (m.run_id, m.rank) IN (FROM derive_rank());

-- in each tree, the module of every op: the innermost running at the op start (the last to
-- start at or before it among the modules as deep as the number running then; an end counts
-- one ns later: it is inside)
CREATE OR REPLACE TEMP TABLE module_op AS
WITH running AS (
    SELECT run_id, rank, bwd, t,
           sum(delta) OVER (PARTITION BY run_id, rank, bwd ORDER BY t ROWS UNBOUNDED PRECEDING) AS n
    FROM (SELECT run_id, rank, bwd, t, sum(delta) AS delta
          FROM (SELECT run_id, rank, bwd, ts_ns AS t, 1 AS delta FROM module_span
                UNION ALL SELECT run_id, rank, bwd, end_ns + 1, -1 FROM module_span)
          GROUP BY run_id, rank, bwd, t)
),
ops AS (
    SELECT o.run_id, o.rank, o.op_id, o.ts_ns, t.bwd
    FROM op AS o CROSS JOIN (VALUES (false), (true)) AS t(bwd)
    WHERE (o.run_id, o.rank) IN (FROM derive_rank())
)
SELECT o.run_id, o.rank, o.op_id, o.bwd, m.module_id, m.kind, m.module_path
FROM (SELECT o.*, r.n
      FROM ops AS o ASOF JOIN running AS r ON r.run_id = o.run_id AND r.rank = o.rank AND r.bwd = o.bwd
                                          AND o.ts_ns >= r.t
      WHERE r.n > 0) AS o
ASOF JOIN module_span AS m ON m.run_id = o.run_id AND m.rank = o.rank AND m.bwd = o.bwd AND m.depth = o.n - 1
                          AND o.ts_ns >= m.ts_ns;

-- op.module_path: the nn.Module path of the innermost forward module running at the op start
UPDATE op SET module_path = a.module_path
FROM (SELECT run_id, rank, op_id, CASE WHEN kind = 'forward' THEN module_path END AS module_path
      FROM module_op WHERE NOT bwd) AS a
WHERE op.run_id = a.run_id AND op.rank = a.rank AND op.op_id = a.op_id;

-- per module: path, level, step, ops, kernels, device time
UPDATE module SET parent_module_id = a.parent_module_id, module_path = a.module_path,
                  module_level = length(a.module_path) - length(replace(a.module_path, '/', '')) + 1,
                  step = a.step, op_count = a.op_count, kernel_count = a.kernel_count,
                  device_self_ns = a.device_self_ns, device_total_ns = a.device_total_ns
FROM (
    WITH kernels AS (
        SELECT run_id, rank, op_id, count(*) AS kernels, sum(dur_ns) AS dur_ns FROM kernel
        WHERE (run_id, rank) IN (FROM derive_rank()) AND op_id IS NOT NULL
          AND copy_kind IS NULL
        GROUP BY run_id, rank, op_id
    ),
    op_module AS (
        SELECT mo.run_id, mo.rank, mo.module_id, count(*) AS ops, sum(coalesce(k.kernels, 0)) AS kernels,
               sum(coalesce(k.dur_ns, 0)) AS dur_ns
        FROM module_op AS mo LEFT JOIN kernels AS k USING (run_id, rank, op_id)
        GROUP BY mo.run_id, mo.rank, mo.module_id
    ),
    self AS (
        SELECT m.run_id, m.rank, m.module_id, m.bwd, m.ts_ns, m.end_ns, coalesce(om.ops, 0) AS ops,
               coalesce(om.kernels, 0) AS kernels, coalesce(om.dur_ns, 0) AS dur_ns,
               sum(coalesce(om.dur_ns, 0)) OVER (PARTITION BY m.run_id, m.rank, m.bwd ORDER BY m.ts_ns, m.module_id
                                                ROWS UNBOUNDED PRECEDING) AS cum_ns
        FROM module_span AS m LEFT JOIN op_module AS om USING (run_id, rank, module_id)
    ),
    -- a module's subtree: the modules of its tree from itself (in start, module_id order) to the
    -- last one starting at or before its end
    cum_at AS (
        SELECT run_id, rank, bwd, ts_ns, max(cum_ns) AS cum_ns FROM self GROUP BY run_id, rank, bwd, ts_ns
    ),
    total AS (
        SELECT s.run_id, s.rank, s.module_id, c.cum_ns - (s.cum_ns - s.dur_ns) AS dur_ns
        FROM self AS s
        ASOF JOIN cum_at AS c ON c.run_id = s.run_id AND c.rank = s.rank AND c.bwd = s.bwd AND s.end_ns >= c.ts_ns
    ),
    step_window AS (
        SELECT run_id, rank, step, host_start_ns, host_end_ns FROM step
        WHERE (run_id, rank) IN (FROM derive_rank()) AND host_start_ns IS NOT NULL
    ),
    module_step AS (
        SELECT m.run_id, m.rank, m.module_id, w.step
        FROM module_span AS m
        ASOF JOIN step_window AS w ON w.run_id = m.run_id AND w.rank = m.rank AND m.ts_ns >= w.host_start_ns
        WHERE m.ts_ns < w.host_end_ns
    )
    SELECT m.run_id, m.rank, m.module_id, m.parent_module_id, m.module_path, ms.step, s.ops::INTEGER AS op_count,
           s.kernels::INTEGER AS kernel_count, s.dur_ns::BIGINT AS device_self_ns, t.dur_ns::BIGINT AS device_total_ns
    FROM module_span AS m
    JOIN self AS s USING (run_id, rank, module_id)
    JOIN total AS t USING (run_id, rank, module_id)
    LEFT JOIN module_step AS ms USING (run_id, rank, module_id)
) AS a
WHERE module.run_id = a.run_id AND module.rank = a.rank AND module.module_id = a.module_id;

DROP TABLE module_fwd_tree;

DROP TABLE module_bwd_tree;

DROP TABLE module_span;

DROP TABLE module_op;
