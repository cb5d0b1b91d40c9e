-- memory_diff_between — per framework op name, memory its ops allocated in a comparison run against a baseline run.
-- Grain:     one row per framework op name (after op_name_map) compared on either side (the ops of
--            op_diff_between: the aligned ops, else the top-level ops); ordered by
--            diff_memory_bytes descending.
-- Source:    memory rows of kind operator (operator_memory.csv: Size(KB), Allocation Time(us),
--            Duration(us); rows without an allocation time left out; a cann:: row is re-timed to
--            the Enqueue (trace_view.json, same args correlation_id) of the Dequeue slice that
--            holds its allocation time, and left out when no Dequeue holds it) and kind event
--            (Kineto [memory] allocations: positive Bytes, paired with the next free of the same
--            Addr and size for the duration); a record counts for the compared op of the same
--            rank whose host window [ts_ns, ts_ns + dur_ns] holds its time (the latest-starting
--            one if several).
-- Reference: msprof-analyze compare MemoryCompareStatistic (Allocated Duration, Allocated Memory,
--            Operator Number per side; Diff Memory = comparison − baseline; Diff Ratio = comparison
--            / baseline), incl. its cann:: re-timing. msprof-analyze attaches a record to the innermost
--            op of one tree over all threads; here the op window decides. Totals per rank.
-- Units:     *_bytes bytes, *_ns integer nanoseconds (per-rank totals rounded); *_calls per rank;
--            *_ratio plain ratio.
-- Parameters: baseline_run, comparison_run — run names (run.run_name), positional.
-- Browse:    memory_diff(baseline, comparison)
CREATE OR REPLACE MACRO memory_diff_between(baseline_run, comparison_run) AS TABLE
WITH b_run AS (
    SELECT run_id FROM run WHERE run_name = baseline_run
),
c_run AS (
    SELECT run_id FROM run WHERE run_name = comparison_run
),
pair AS (
    SELECT m.*
    FROM op_match AS m
    JOIN b_run ON m.baseline_run_id = b_run.run_id
    JOIN c_run ON m.comparison_run_id = c_run.run_id
),
aligned AS (
    SELECT count(*) AS n FROM pair
),
run_op AS (
    -- the two runs' ops, named once: compare_op is a view (op, its parent op, the name map and
    -- the compared steps), and each use of it is planned again
    SELECT run_id, rank, op_id, op_key, ts_ns, dur_ns, is_top
    FROM tracedb_internal.compare_op
    WHERE run_id IN (SELECT run_id FROM b_run UNION ALL SELECT run_id FROM c_run)
),
ops AS (
    SELECT 'b' AS side, o.run_id, o.rank, o.op_id, o.op_key, o.ts_ns, o.dur_ns
    FROM run_op AS o
    JOIN b_run ON o.run_id = b_run.run_id
    JOIN pair AS m ON m.baseline_rank = o.rank AND m.baseline_op_id = o.op_id
    UNION ALL
    SELECT 'b' AS side, o.run_id, o.rank, o.op_id, o.op_key, o.ts_ns, o.dur_ns
    FROM run_op AS o
    JOIN b_run ON o.run_id = b_run.run_id
    WHERE o.is_top AND (SELECT n FROM aligned) = 0
    UNION ALL
    SELECT 'c' AS side, o.run_id, o.rank, o.op_id, o.op_key, o.ts_ns, o.dur_ns
    FROM run_op AS o
    JOIN c_run ON o.run_id = c_run.run_id
    JOIN pair AS m ON m.comparison_rank = o.rank AND m.comparison_op_id = o.op_id
    UNION ALL
    SELECT 'c' AS side, o.run_id, o.rank, o.op_id, o.op_key, o.ts_ns, o.dur_ns
    FROM run_op AS o
    JOIN c_run ON o.run_id = c_run.run_id
    WHERE o.is_top AND (SELECT n FROM aligned) = 0
),
kineto_mem AS (
    SELECT run_id, rank, ts_ns, size_bytes,
           CASE WHEN lead(size_bytes) OVER (PARTITION BY run_id, rank, addr ORDER BY ts_ns) = -size_bytes
                THEN lead(ts_ns) OVER (PARTITION BY run_id, rank, addr ORDER BY ts_ns) - ts_ns END AS dur_ns
    FROM memory
    WHERE kind = 'event' AND addr IS NOT NULL
),
queue AS (
    SELECT run_id, rank, cat, ts_ns, dur_ns, regexp_extract(args, '"correlation_id": *([0-9]+)', 1) AS corr
    FROM event
    WHERE ph = 'X' AND cat IN ('enqueue', 'dequeue')
),
enqueue AS (
    SELECT run_id, rank, corr, max(ts_ns) AS ts_ns FROM queue WHERE cat = 'enqueue' GROUP BY run_id, rank, corr
),
cann AS (
    SELECT m.run_id, m.rank, m.ts_ns AS alloc_ns, m.size_bytes, coalesce(m.dur_ns, 0) AS dur_ns, q.corr,
           row_number() OVER (PARTITION BY m.run_id, m.rank, m.ts_ns, m.size_bytes, m.dur_ns, m.name
                              ORDER BY q.ts_ns DESC) AS pick
    FROM memory AS m
    JOIN queue AS q
        ON q.cat = 'dequeue' AND q.run_id = m.run_id AND q.rank = m.rank
       AND q.ts_ns <= m.ts_ns AND m.ts_ns <= q.ts_ns + q.dur_ns
    WHERE m.kind = 'operator' AND m.ts_ns IS NOT NULL AND m.name LIKE 'cann::%'
),
alloc AS (
    SELECT run_id, rank, ts_ns, size_bytes, coalesce(dur_ns, 0) AS dur_ns
    FROM memory
    WHERE kind = 'operator' AND ts_ns IS NOT NULL AND NOT (name LIKE 'cann::%')
    UNION ALL
    SELECT c.run_id, c.rank, coalesce(e.ts_ns, 0) AS ts_ns, c.size_bytes, c.dur_ns
    FROM cann AS c
    LEFT JOIN enqueue AS e ON e.run_id = c.run_id AND e.rank = c.rank AND e.corr = c.corr
    WHERE c.pick = 1
    UNION ALL
    SELECT run_id, rank, ts_ns, size_bytes, coalesce(dur_ns, 0) AS dur_ns
    FROM kineto_mem
    WHERE size_bytes > 0
),
numbered AS (
    SELECT alloc.*, row_number() OVER (ORDER BY run_id, rank, ts_ns, size_bytes, dur_ns) AS alloc_id
    FROM alloc
),
owner AS (
    SELECT o.side, o.rank, o.op_id, a.size_bytes, a.dur_ns,
           row_number() OVER (PARTITION BY o.side, a.alloc_id ORDER BY o.ts_ns DESC, o.op_id DESC) AS pick
    FROM ops AS o
    JOIN numbered AS a
        ON a.run_id = o.run_id AND a.rank = o.rank AND a.ts_ns >= o.ts_ns AND a.ts_ns <= o.ts_ns + o.dur_ns
),
per_op AS (
    SELECT o.side, o.rank, o.op_id, o.op_key,
           coalesce(sum(w.size_bytes), 0) AS bytes, coalesce(sum(w.dur_ns), 0) AS alloc_ns
    FROM ops AS o
    LEFT JOIN (SELECT * FROM owner WHERE pick = 1) AS w
        ON w.side = o.side AND w.rank = o.rank AND w.op_id = o.op_id
    GROUP BY o.side, o.rank, o.op_id, o.op_key
),
ranks AS (
    SELECT sum(CASE WHEN o.run_id = (SELECT run_id FROM b_run) THEN 1 ELSE 0 END) AS b_n,
           sum(CASE WHEN o.run_id = (SELECT run_id FROM c_run) THEN 1 ELSE 0 END) AS c_n
    FROM (SELECT DISTINCT run_id, rank FROM run_op) AS o
),
agg AS (
    SELECT op_key,
           sum(CASE WHEN side = 'b' THEN 1 ELSE 0 END) AS b_calls,
           sum(CASE WHEN side = 'b' THEN bytes ELSE 0 END) AS b_bytes,
           sum(CASE WHEN side = 'b' THEN alloc_ns ELSE 0 END) AS b_ns,
           sum(CASE WHEN side = 'c' THEN 1 ELSE 0 END) AS c_calls,
           sum(CASE WHEN side = 'c' THEN bytes ELSE 0 END) AS c_bytes,
           sum(CASE WHEN side = 'c' THEN alloc_ns ELSE 0 END) AS c_ns
    FROM per_op
    GROUP BY op_key
),
per_rank AS (
    SELECT op_key,
        CASE WHEN r.b_n > 0 THEN b_calls::DOUBLE / r.b_n ELSE 0 END AS b_calls_pr,
        CASE WHEN r.b_n > 0 THEN round(b_bytes::DOUBLE / r.b_n) ELSE 0 END AS b_bytes_pr,
        CASE WHEN r.b_n > 0 THEN round(b_ns::DOUBLE / r.b_n) ELSE 0 END AS b_ns_pr,
        CASE WHEN r.c_n > 0 THEN c_calls::DOUBLE / r.c_n ELSE 0 END AS c_calls_pr,
        CASE WHEN r.c_n > 0 THEN round(c_bytes::DOUBLE / r.c_n) ELSE 0 END AS c_bytes_pr,
        CASE WHEN r.c_n > 0 THEN round(c_ns::DOUBLE / r.c_n) ELSE 0 END AS c_ns_pr
    FROM agg CROSS JOIN ranks AS r
)
SELECT
    CAST(baseline_run AS VARCHAR)                  AS baseline_run,              -- baseline run name
    CAST(comparison_run AS VARCHAR)                AS comparison_run,            -- comparison run name
    op_key::VARCHAR                                AS op_name,                   -- framework op name after op_name_map (Operator Name)
    b_calls_pr::DOUBLE                             AS baseline_calls,            -- ops per baseline rank (Base Operator Number)
    b_bytes_pr::BIGINT                             AS baseline_memory_bytes,     -- bytes allocated inside these ops per baseline rank (Base Allocated Memory, MB = bytes / 1024^2)
    b_ns_pr::BIGINT                                AS baseline_alloc_ns,         -- Σ lifetime of those allocations per baseline rank, ns (Base Allocated Duration)
    c_calls_pr::DOUBLE                             AS comparison_calls,          -- ops per comparison rank (Comparison Operator Number)
    c_bytes_pr::BIGINT                             AS comparison_memory_bytes,   -- bytes allocated inside these ops per comparison rank (Comparison Allocated Memory)
    c_ns_pr::BIGINT                                AS comparison_alloc_ns,       -- Σ lifetime of those allocations per comparison rank, ns (Comparison Allocated Duration)
    (c_bytes_pr - b_bytes_pr)::BIGINT              AS diff_memory_bytes,         -- comparison − baseline bytes per rank (Diff Memory)
    CASE WHEN b_bytes_pr > 0 THEN c_bytes_pr::DOUBLE / b_bytes_pr END::DOUBLE AS memory_ratio  -- comparison / baseline bytes (Diff Ratio); NULL when the baseline allocated none
FROM per_rank
ORDER BY diff_memory_bytes DESC, op_name;
