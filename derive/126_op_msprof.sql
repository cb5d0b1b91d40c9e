-- msprof-analyze compare's op tree and op device time for the ops of (run, rank), beside
-- tracedb's own (op.parent_op_id per thread, op.device_*_ns kernels only):
-- Tree (compare_backend/utils/tree_builder.py): every op of the rank, any host thread, sorted by
-- start (then op_id: longer first); each op becomes the child of the last earlier op whose end
-- is at or after its start, as the builder's stack walk (pop while start > end) leaves it — so
-- an op of the autograd thread that starts inside a main-thread "## backward ##" annotation is
-- a child of the annotation, and an op starting where another ends is its child.
-- is_top_level_msprof: no earlier op still running at the start (ProfilerStep#N is not an op
-- here, so its children and the roots outside steps are the top level, as msprof-analyze's
-- get_top_layer_ops returns them).
-- Device time (msprof_device_self_ns / _total_ns): the device tasks msprof-analyze attaches to an
-- op through its flows: torch_npu text export (trace_view.json async_npu flows) every task at a
-- flow end, the MEMCPY_ASYNC / SDMA / PCIE DMA copies included (kernel.op_id of the copy rows,
-- derive/031); Ascend DB: COMPUTE_TASK_INFO rows only (no copies, no communication ops);
-- Kineto: kernel and gpu_memcpy events (not gpu_memset, not the 2021 Memcpy category), and only
-- in a trace that has ac2g / async_gpu / async_cpu_to_gpu / async flows (without them it links
-- nothing). Totals over the op's subtree in the tree above.
-- The ranks of a batch share the range join below: each rank's ops sit on a band of their own of
-- one number line (band x 2^64 + ns, HUGEINT; |ns| < 2^63), so no pair crosses ranks.
-- when: SELECT count(*) > 0 FROM op WHERE (run_id, rank) IN (FROM derive_rank())
CREATE OR REPLACE TEMP TABLE _op_seq AS
WITH o AS (
    SELECT run_id, rank, op_id, ts_ns, ts_ns + dur_ns AS end_ns,
           row_number() OVER (PARTITION BY run_id, rank ORDER BY ts_ns, dur_ns DESC, op_id) AS seq,
           dense_rank() OVER (ORDER BY run_id, rank)::HUGEINT * 18446744073709551616 AS band
    FROM op
    WHERE (run_id, rank) IN (FROM derive_rank())
)
SELECT run_id, rank, op_id, band + ts_ns AS k_ts, band + end_ns AS k_end, band + seq AS k_seq
FROM o;

-- (a table, not a CTE: both sides of the range join below are plain scans, which DuckDB
-- plans as one IE join; over a filtered CTE it chose a merge join on one bound, ~10^8 rows)
CREATE OR REPLACE TEMP TABLE _op_msprof AS
WITH parent AS (
    -- the last earlier op still running at the start (earlier ops start no later, so they hold it)
    SELECT c.run_id, c.rank, c.op_id, arg_max(p.op_id, p.k_seq) AS parent_op_id
    FROM _op_seq AS c
    JOIN _op_seq AS p
        ON p.k_ts <= c.k_ts AND p.k_end >= c.k_ts AND p.k_seq < c.k_seq
    GROUP BY c.run_id, c.rank, c.op_id
)
-- an op without one is top level: every earlier op ended before its start
SELECT o.run_id, o.rank, o.op_id, p.parent_op_id IS NULL AS is_top, p.parent_op_id
FROM _op_seq AS o
LEFT JOIN parent AS p
    ON p.run_id = o.run_id AND p.rank = o.rank AND p.op_id = o.op_id;

UPDATE op SET msprof_parent_op_id = t.parent_op_id, is_top_level_msprof = t.is_top,
              msprof_kernel_count = t.n, msprof_kernel_total_count = t.total_n,
              msprof_device_self_ns = t.ns, msprof_device_total_ns = t.total_ns
FROM (
    WITH RECURSIVE kineto_flow AS (
        -- the ranks whose Kineto traces have ac2g / async_gpu / async_cpu_to_gpu / async flows
        SELECT DISTINCT run_id, rank
        FROM event
        WHERE (run_id, rank) IN (FROM derive_rank())
          AND file_id IN (SELECT file_id FROM derive_files(['kineto']))
          AND ph = 'f' AND lower(cat) IN ('ac2g', 'async_gpu', 'async_cpu_to_gpu', 'async')
    ),
    linked AS (
        -- does msprof-analyze link the rank's kernels to ops at all (Kineto: only through flows)
        SELECT d.run_id, d.rank, r.platform <> 'gpu' OR (d.run_id, d.rank) IN (FROM kineto_flow) AS yes
        FROM derive_rank() AS d
        JOIN run AS r ON r.run_id = d.run_id
    ),
    gpu_memcpy AS (
        SELECT DISTINCT file_id, name, ts_ns
        FROM event
        WHERE (run_id, rank) IN (FROM derive_rank())
          AND file_id IN (SELECT file_id FROM derive_files(['kineto']))
          AND ph = 'X' AND cat = 'gpu_memcpy'
    ),
    task AS (
        SELECT k.run_id, k.rank, k.op_id, k.dur_ns
        FROM kernel AS k
        JOIN linked AS l ON l.run_id = k.run_id AND l.rank = k.rank
        LEFT JOIN gpu_memcpy AS g
            ON k.source = 'kineto' AND k.copy_kind IS NOT NULL
            AND g.file_id = k.file_id AND g.name = k.name AND g.ts_ns = k.ts_ns
        WHERE (k.run_id, k.rank) IN (FROM derive_rank()) AND k.op_id IS NOT NULL
          AND l.yes
          AND CASE k.source
                  WHEN 'ascend_db' THEN k.copy_kind IS NULL AND NOT k.is_communication
                  WHEN 'kineto' THEN k.copy_kind IS NULL OR g.name IS NOT NULL
                  ELSE true
              END
    ),
    own AS (
        SELECT run_id, rank, op_id, count(*) AS n, sum(dur_ns) AS ns FROM task GROUP BY run_id, rank, op_id
    ),
    up(run_id, rank, op_id, anc, n, ns) AS (
        -- each op's own tasks, carried up to every ancestor of msprof-analyze's tree
        SELECT run_id, rank, op_id, op_id, n, ns FROM own
        UNION ALL
        SELECT u.run_id, u.rank, u.op_id, m.parent_op_id, u.n, u.ns
        FROM up AS u
        JOIN _op_msprof AS m
            ON m.run_id = u.run_id AND m.rank = u.rank AND m.op_id = u.anc
        WHERE m.parent_op_id IS NOT NULL
    ),
    total AS (
        SELECT run_id, rank, anc AS op_id, sum(n) AS n, sum(ns) AS ns FROM up GROUP BY run_id, rank, anc
    )
    SELECT m.run_id, m.rank, m.op_id, m.parent_op_id, m.is_top,
           coalesce(w.n, 0) AS n, coalesce(w.ns, 0) AS ns, coalesce(t.n, 0) AS total_n, coalesce(t.ns, 0) AS total_ns
    FROM _op_msprof AS m
    LEFT JOIN own AS w
        ON w.run_id = m.run_id AND w.rank = m.rank AND w.op_id = m.op_id
    LEFT JOIN total AS t
        ON t.run_id = m.run_id AND t.rank = m.rank AND t.op_id = m.op_id
) AS t
WHERE op.run_id = t.run_id AND op.rank = t.rank AND op.op_id = t.op_id;

DROP TABLE _op_msprof;
DROP TABLE _op_seq;
