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
-- when: SELECT EXISTS (FROM module WHERE run_id = getvariable('run_id') AND rank = getvariable('rank')) OR EXISTS (FROM event WHERE run_id = getvariable('run_id') AND rank = getvariable('rank') AND cat = 'python_function' AND ph = 'X' AND starts_with(name, 'nn.Module: '))
DELETE FROM module
WHERE run_id = getvariable('run_id') AND rank = getvariable('rank') AND source IN ('trace_view', 'kineto');

INSERT INTO module BY NAME
WITH files AS (
    SELECT file_id, format FROM source_file
    WHERE run_id = getvariable('run_id') AND rank = getvariable('rank') AND format IN ('trace_view', 'kineto')
),
fwd AS (
    SELECT file_id, tid, ts_ns, dur_ns, substr(name, length('nn.Module: ') + 1) AS name, 'forward' AS kind,
           NULL::BIGINT AS called_at_ns
    FROM event
    WHERE run_id = getvariable('run_id') AND rank = getvariable('rank') AND file_id IN (SELECT file_id FROM files)
      AND ph = 'X' AND cat = 'python_function' AND starts_with(name, 'nn.Module: ')
      AND ts_ns IS NOT NULL AND dur_ns >= 0
    UNION ALL
    SELECT file_id, tid, ts_ns, dur_ns, name, 'optimizer', NULL
    FROM op
    WHERE run_id = getvariable('run_id') AND rank = getvariable('rank') AND source IN ('trace_view', 'kineto')
      AND starts_with(lower(name), 'optimizer')
),
flow AS (
    SELECT s.file_id, s.ts_ns AS start_ns, f.tid AS end_tid, f.ts_ns AS end_ns
    FROM event AS s
    JOIN event AS f ON f.run_id = s.run_id AND f.rank = s.rank AND f.file_id = s.file_id AND f.flow_id = s.flow_id
                   AND f.ph = 'f' AND f.cat = 'fwdbwd'
    WHERE s.run_id = getvariable('run_id') AND s.rank = getvariable('rank') AND s.file_id IN (SELECT file_id FROM files)
      AND s.ph = 's' AND s.cat = 'fwdbwd'
),
bwd AS (
    -- named once the forward tree is known (below); the outermost op starting at the flow end
    SELECT fl.file_id, o.tid, o.ts_ns, arg_min(o.dur_ns, o.op_id) AS dur_ns, '[ BACKWARD ]' AS name,
           'backward' AS kind, fl.start_ns AS called_at_ns
    FROM flow AS fl
    JOIN op AS o ON o.run_id = getvariable('run_id') AND o.rank = getvariable('rank') AND o.file_id = fl.file_id
                AND o.tid = fl.end_tid AND o.ts_ns = fl.end_ns
    GROUP BY fl.file_id, o.tid, o.ts_ns, fl.start_ns
),
rows AS (
    SELECT * FROM fwd UNION ALL SELECT * FROM bwd
)
SELECT getvariable('run_id') AS run_id, getvariable('rank') AS rank, r.file_id,
       row_number() OVER (ORDER BY kind = 'backward', ts_ns, dur_ns DESC, name, tid, called_at_ns)
           + coalesce((SELECT max(module_id) FROM module
                       WHERE run_id = getvariable('run_id') AND rank = getvariable('rank')), 0) AS module_id,
       kind, name, tid, ts_ns, dur_ns, called_at_ns, f.format AS source
FROM rows AS r JOIN files AS f USING (file_id)
WHERE EXISTS (FROM fwd WHERE kind = 'forward');

-- the forward tree, materialised for the backward names and module_span (DuckDB plans an
-- UPDATE joined to the recursive macro two orders of magnitude slower than the macro alone);
-- the module rows get their parents and paths from both trees at once, in the last UPDATE
CREATE OR REPLACE TEMP TABLE module_fwd_tree AS
FROM module_tree(getvariable('run_id'), getvariable('rank'), false);

-- backward names: the innermost forward module running at the flow start, strictly (a sweep
-- with +1 one ns after each start and -1 at each end), then the last forward module of that
-- depth to start before it
UPDATE module SET name = '[ BACKWARD ]/' || a.module_path
FROM (
    WITH fwd AS (
        SELECT m.module_id, m.ts_ns, m.ts_ns + m.dur_ns AS end_ns, t.depth, t.module_path
        FROM module AS m JOIN module_fwd_tree AS t USING (module_id)
        WHERE m.run_id = getvariable('run_id') AND m.rank = getvariable('rank')
    ),
    running AS (
        SELECT t, sum(delta) OVER (ORDER BY t ROWS UNBOUNDED PRECEDING) AS n
        FROM (SELECT t, sum(delta) AS delta
              FROM (SELECT ts_ns + 1 AS t, 1 AS delta FROM fwd UNION ALL SELECT end_ns, -1 FROM fwd)
              GROUP BY t)
    ),
    bwd AS (
        SELECT module_id, called_at_ns FROM module
        WHERE run_id = getvariable('run_id') AND rank = getvariable('rank') AND kind = 'backward'
    )
    SELECT b.module_id, m.module_path
    FROM (SELECT b.*, r.n FROM bwd AS b ASOF JOIN running AS r ON b.called_at_ns >= r.t WHERE r.n > 0) AS b
    ASOF JOIN fwd AS m ON m.depth = b.n - 1 AND b.called_at_ns > m.ts_ns
) AS a
WHERE module.run_id = getvariable('run_id') AND module.rank = getvariable('rank') AND module.module_id = a.module_id;

-- a flow starting outside every forward module names no module
DELETE FROM module
WHERE run_id = getvariable('run_id') AND rank = getvariable('rank') AND kind = 'backward' AND name = '[ BACKWARD ]';

-- the backward tree; both trees with the depth of each module
CREATE OR REPLACE TEMP TABLE module_bwd_tree AS
FROM module_tree(getvariable('run_id'), getvariable('rank'), true);

CREATE OR REPLACE TEMP TABLE module_span AS
SELECT m.module_id, m.kind, t.bwd, m.ts_ns, m.ts_ns + m.dur_ns AS end_ns, t.parent_module_id, t.module_path, t.depth
FROM module AS m
JOIN (SELECT *, false AS bwd FROM module_fwd_tree UNION ALL SELECT *, true FROM module_bwd_tree) AS t
    USING (module_id)
WHERE m.run_id = getvariable('run_id') AND m.rank = getvariable('rank');

-- in each tree, the module of every op: the innermost running at the op start (the last to
-- start at or before it among the modules as deep as the number running then; an end counts
-- one ns later: it is inside)
CREATE OR REPLACE TEMP TABLE module_op AS
WITH running AS (
    SELECT bwd, t, sum(delta) OVER (PARTITION BY bwd ORDER BY t ROWS UNBOUNDED PRECEDING) AS n
    FROM (SELECT bwd, t, sum(delta) AS delta
          FROM (SELECT bwd, ts_ns AS t, 1 AS delta FROM module_span
                UNION ALL SELECT bwd, end_ns + 1, -1 FROM module_span)
          GROUP BY bwd, t)
),
ops AS (
    SELECT o.op_id, o.ts_ns, t.bwd
    FROM op AS o CROSS JOIN (VALUES (false), (true)) AS t(bwd)
    WHERE o.run_id = getvariable('run_id') AND o.rank = getvariable('rank')
)
SELECT o.op_id, o.bwd, m.module_id, m.kind, m.module_path
FROM (SELECT o.*, r.n
      FROM ops AS o ASOF JOIN running AS r ON r.bwd = o.bwd AND o.ts_ns >= r.t
      WHERE r.n > 0) AS o
ASOF JOIN module_span AS m ON m.bwd = o.bwd AND m.depth = o.n - 1 AND o.ts_ns >= m.ts_ns;

-- op.module_path: the nn.Module path of the innermost forward module running at the op start
UPDATE op SET module_path = a.module_path
FROM (SELECT op_id, CASE WHEN kind = 'forward' THEN module_path END AS module_path
      FROM module_op WHERE NOT bwd) AS a
WHERE op.run_id = getvariable('run_id') AND op.rank = getvariable('rank') AND op.op_id = a.op_id;

-- per module: path, level, step, ops, kernels, device time
UPDATE module SET parent_module_id = a.parent_module_id, module_path = a.module_path,
                  module_level = length(a.module_path) - length(replace(a.module_path, '/', '')) + 1,
                  step = a.step, op_count = a.op_count, kernel_count = a.kernel_count,
                  device_self_ns = a.device_self_ns, device_total_ns = a.device_total_ns
FROM (
    WITH kernels AS (
        SELECT op_id, count(*) AS kernels, sum(dur_ns) AS dur_ns FROM kernel
        WHERE run_id = getvariable('run_id') AND rank = getvariable('rank') AND op_id IS NOT NULL
          AND copy_kind IS NULL
        GROUP BY op_id
    ),
    op_module AS (
        SELECT mo.module_id, count(*) AS ops, sum(coalesce(k.kernels, 0)) AS kernels,
               sum(coalesce(k.dur_ns, 0)) AS dur_ns
        FROM module_op AS mo LEFT JOIN kernels AS k USING (op_id)
        GROUP BY mo.module_id
    ),
    self AS (
        SELECT m.module_id, m.bwd, m.ts_ns, m.end_ns, coalesce(om.ops, 0) AS ops,
               coalesce(om.kernels, 0) AS kernels, coalesce(om.dur_ns, 0) AS dur_ns,
               sum(coalesce(om.dur_ns, 0)) OVER (PARTITION BY m.bwd ORDER BY m.ts_ns, m.module_id
                                                ROWS UNBOUNDED PRECEDING) AS cum_ns
        FROM module_span AS m LEFT JOIN op_module AS om USING (module_id)
    ),
    -- a module's subtree: the modules of its tree from itself (in start, module_id order) to the
    -- last one starting at or before its end
    cum_at AS (
        SELECT bwd, ts_ns, max(cum_ns) AS cum_ns FROM self GROUP BY bwd, ts_ns
    ),
    total AS (
        SELECT s.module_id, c.cum_ns - (s.cum_ns - s.dur_ns) AS dur_ns
        FROM self AS s ASOF JOIN cum_at AS c ON c.bwd = s.bwd AND s.end_ns >= c.ts_ns
    ),
    step_window AS (
        SELECT step, host_start_ns, host_end_ns FROM step
        WHERE run_id = getvariable('run_id') AND rank = getvariable('rank') AND host_start_ns IS NOT NULL
    ),
    module_step AS (
        SELECT m.module_id, w.step
        FROM module_span AS m ASOF JOIN step_window AS w ON m.ts_ns >= w.host_start_ns
        WHERE m.ts_ns < w.host_end_ns
    )
    SELECT m.module_id, m.parent_module_id, m.module_path, ms.step, s.ops::INTEGER AS op_count,
           s.kernels::INTEGER AS kernel_count, s.dur_ns::BIGINT AS device_self_ns, t.dur_ns::BIGINT AS device_total_ns
    FROM module_span AS m
    JOIN self AS s USING (module_id)
    JOIN total AS t USING (module_id)
    LEFT JOIN module_step AS ms USING (module_id)
) AS a
WHERE module.run_id = getvariable('run_id') AND module.rank = getvariable('rank') AND module.module_id = a.module_id;

DROP TABLE module_fwd_tree;

DROP TABLE module_bwd_tree;

DROP TABLE module_span;

DROP TABLE module_op;
