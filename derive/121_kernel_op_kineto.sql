-- kernel.op_id: the innermost framework op that launched each Kineto kernel of (run, rank)
-- (trace_view.json's kernels: 120_kernel_op_npu).
-- Kineto: the innermost op of the launch thread running at the launch start (kernel.launch_*,
-- derive/100: the runtime call with the kernel's correlation, else the ac2g / async_gpu /
-- async flow start; an op runs from its start to before its end, zero-length ops never): the
-- first running one of the last op to start before the launch and its ancestors.
-- Kernels nothing links to an op keep op_id NULL.
-- when: SELECT EXISTS (FROM op WHERE (run_id, rank) IN (FROM derive_rank()) AND source = 'kineto')
UPDATE kernel SET op_id = a.op_id
FROM (
    WITH launch AS (
        SELECT k.run_id, k.rank, k.kernel_id, k.file_id, k.launch_tid AS tid, k.launch_ts_ns AS ts_ns
        FROM kernel AS k
        WHERE (k.run_id, k.rank) IN (FROM derive_rank()) AND k.source = 'kineto'
          AND k.launch_ts_ns IS NOT NULL
    ),
    kops AS (
        SELECT run_id, rank, file_id, tid, op_id, ts_ns, ts_ns + dur_ns AS end_ns, depth, parent_op_id
        FROM op
        WHERE (run_id, rank) IN (FROM derive_rank()) AND source = 'kineto' AND dur_ns > 0
    ),
    starts AS (
        -- per (thread, start): the innermost of the ops starting then (the last in op_id order)
        SELECT run_id, rank, file_id, tid, ts_ns, max(op_id) AS op_id FROM kops GROUP BY ALL
    ),
    -- the last op to start at or before the launch, and its ancestors: the innermost op running
    -- at the launch is the first of them still running then (every op running then started no
    -- later than that op, so it encloses it)
    chain AS (
        SELECT l.run_id, l.rank, l.kernel_id, l.file_id, l.tid, l.ts_ns,
               o0.op_id AS id0, o0.end_ns AS end0, o1.op_id AS id1, o1.end_ns AS end1,
               o2.op_id AS id2, o2.end_ns AS end2, o3.op_id AS id3, o3.end_ns AS end3, o3.parent_op_id AS up
        FROM launch AS l
        ASOF JOIN starts AS s ON s.file_id = l.file_id AND s.tid = l.tid AND l.ts_ns >= s.ts_ns
        JOIN kops AS o0 ON o0.run_id = s.run_id AND o0.rank = s.rank AND o0.op_id = s.op_id
        LEFT JOIN kops AS o1 ON o1.run_id = o0.run_id AND o1.rank = o0.rank AND o1.op_id = o0.parent_op_id
        LEFT JOIN kops AS o2 ON o2.run_id = o1.run_id AND o2.rank = o1.rank AND o2.op_id = o1.parent_op_id
        LEFT JOIN kops AS o3 ON o3.run_id = o2.run_id AND o3.rank = o2.rank AND o3.op_id = o2.parent_op_id
    ),
    near AS (
        SELECT run_id, rank, kernel_id, file_id, tid, ts_ns,
               CASE WHEN end0 > ts_ns THEN id0 WHEN end1 > ts_ns THEN id1
                    WHEN end2 > ts_ns THEN id2 WHEN end3 > ts_ns THEN id3 END AS op_id,
               CASE WHEN end0 > ts_ns OR end1 > ts_ns OR end2 > ts_ns OR end3 > ts_ns THEN FALSE
                    ELSE up IS NOT NULL END AS deeper
        FROM chain
    ),
    -- launches more than 4 levels below: the number of ops running on the thread at the launch,
    -- then the last op of that depth - 1 to start at or before it (only their threads)
    far_ops AS (
        FROM kops WHERE (file_id, tid) IN (SELECT (file_id, tid) FROM near WHERE deeper)
    ),
    running AS (
        SELECT file_id, tid, t, sum(delta) OVER (PARTITION BY file_id, tid ORDER BY t ROWS UNBOUNDED PRECEDING)
                   AS n
        FROM (SELECT file_id, tid, t, sum(delta) AS delta
              FROM (SELECT file_id, tid, ts_ns AS t, 1 AS delta FROM far_ops
                    UNION ALL SELECT file_id, tid, end_ns, -1 FROM far_ops)
              GROUP BY ALL)
    ),
    far AS (
        SELECT l.run_id, l.rank, l.kernel_id, o.op_id
        FROM (SELECT l.*, r.n
              FROM (FROM near WHERE deeper) AS l
              ASOF JOIN running AS r ON r.file_id = l.file_id AND r.tid = l.tid AND l.ts_ns >= r.t
              WHERE r.n > 0) AS l
        ASOF JOIN far_ops AS o ON o.file_id = l.file_id AND o.tid = l.tid AND o.depth = l.n - 1 AND l.ts_ns >= o.ts_ns
    ),
    kineto AS (
        SELECT run_id, rank, 'kineto' AS source, kernel_id, op_id FROM near WHERE op_id IS NOT NULL
        UNION ALL
        SELECT run_id, rank, 'kineto', kernel_id, op_id FROM far
    )
    FROM kineto
) AS a
WHERE kernel.run_id = a.run_id AND kernel.rank = a.rank
  AND kernel.source = a.source AND kernel.kernel_id = a.kernel_id;
