-- kernel_rule_match: the classification of every kernel of the ranks (a row per kernel) by kernel_class_rule,
-- stored once per rank so the views read it instead of matching the rules on every query (the
-- step views read the class of every kernel several times). Rebuilt here after the rank's
-- kernels and ops, and for every rank by `tracedb reclassify` after a rule is added or changed.
-- How a kernel is classified: every enabled rule of the kernel's platform (or of any platform)
-- whose pattern matches its field (kernel name, op type, accelerator core, task type, copy kind,
-- source, the reader's own is_communication flag, the launching framework op and its 3
-- enclosing ops, or an op of any host thread running at the launch) matches; per output column
-- the matching rule with the lowest (priority, rule_id) that sets it wins. Rules of the field
-- enclosing_op are tried op by op, outermost (earliest start) first, as msprof-analyze tries its
-- FA / Conv / Matmul masks (base_profiling_parser.categorize_computing_performance_data): the first
-- op some rule of the column matches decides, and its rule's (priority, rule_id) competes with the
-- other fields'. Rules are matched against the distinct kernel keys and the distinct op names of
-- the rank, not against every kernel. No session macro here: tracedb reclassify runs this file on
-- a plain connection. The ranks: the variable derive_ranks, else the one of run_id / rank
-- (derive/_session.sql's derive_rank(), spelled out), each with a band of its own on one number
-- line for the range join (band x 2^64 + ns, HUGEINT; |ns| < 2^63: no pair crosses ranks).
-- msprof_category / msprof_sub_category / msprof_direction: the same rules as msprof-analyze
-- compare's OverallMetrics applies them, with its reading of the inputs: the op rules count only
-- where it links the kernel to the op (NPU: async_npu flow or DB connection id, i.e. kernel.op_id;
-- Kineto: only in a trace with ac2g / async_gpu / async_cpu_to_gpu / async flows, its only link);
-- a torch_npu text rank whose kernel_details.csv has no PMU columns (profiler Level0) or that has
-- none (trace_view.json alone) gets no category (all in Other); DB ranks (COMPUTE_TASK_INFO) put
-- every uncategorised compute task in Vector (No Trans) (AI_CPU, DSA tasks); copies: SDMA only for
-- SDMA_SQE / PCIE_DMA_SQE tasks whose trace args carry "Stream Id" (DB: those TASK types),
-- Memcpy for the other DB copies and Kineto gpu_memcpy events, NULL for copies it does not read
-- (Kineto gpu_memset, 2021 Memcpy / Memset events, MEMCPY_ASYNC tasks of the text export).

CREATE OR REPLACE TEMP TABLE _class_rank AS
SELECT run_id, rank, (row_number() OVER (ORDER BY run_id, rank))::HUGEINT * 18446744073709551616 AS band
FROM (SELECT DISTINCT run_id, rank
      FROM (SELECT unnest(coalesce(getvariable('derive_ranks'),
                                   [{'run_id': getvariable('run_id')::INTEGER, 'rank': getvariable('rank')::INTEGER}]),
                          recursive := true)));

-- The enclosing_op candidates first, as tables: both sides of the range join are then plain
-- scans, which DuckDB plans as one IE join (over CTEs inside the ingest transaction it chose a
-- merge join on one bound and a filter).
CREATE OR REPLACE TEMP TABLE _enc_op AS
WITH enc_rule AS (
    SELECT u.*, CAST(u.priority AS BIGINT) * 1000000 + u.rule_id AS ord
    FROM kernel_class_rule AS u
    WHERE u.enabled AND u.match_field = 'enclosing_op'
),
enc_name AS (
    -- the runs' op names some enclosing_op rule of the run's platform matches, with each rule that matches
    SELECT x.run_id, x.name, u.rule_id, u.ord, u.category, u.sub_category, u.direction, u.collective
    FROM (SELECT DISTINCT run_id, name FROM op
          WHERE (run_id, rank) IN (SELECT run_id, rank FROM _class_rank) AND EXISTS (FROM enc_rule)) AS x
    JOIN run AS r
        ON r.run_id = x.run_id
    JOIN enc_rule AS u
        ON (u.platform IS NULL OR u.platform = r.platform) AND lower(x.name) LIKE lower(u.pattern) ESCAPE '\'
)
SELECT o.run_id, o.rank, o.op_id, o.ts_ns, c.band + o.ts_ns AS k_ts, c.band + o.ts_ns + o.dur_ns AS k_end,
       n.rule_id, n.ord, n.category, n.sub_category, n.direction, n.collective
FROM op AS o
JOIN _class_rank AS c
    ON c.run_id = o.run_id AND c.rank = o.rank
JOIN enc_name AS n
    ON n.run_id = o.run_id AND n.name = o.name;

CREATE OR REPLACE TEMP TABLE _launch_at AS
-- where each launching op starts: msprof-analyze's flow start
SELECT o.run_id, o.rank, o.op_id, c.band + o.ts_ns AS k_at
FROM op AS o
JOIN _class_rank AS c
    ON c.run_id = o.run_id AND c.rank = o.rank
WHERE (o.run_id, o.rank, o.op_id) IN (SELECT run_id, rank, op_id FROM kernel
                                      WHERE (run_id, rank) IN (SELECT run_id, rank FROM _class_rank)
                                        AND op_id IS NOT NULL)
  AND EXISTS (FROM _enc_op);

CREATE OR REPLACE TEMP TABLE _enc_class AS
-- per launching op and column, the rule of the outermost op (earliest start, then op_id, on any
-- host thread) running at the launch ([start, end], ends included) that a rule of the column
-- matches
SELECT
    a.run_id, a.rank, a.op_id,
    arg_min(e.ord, (e.ts_ns, e.op_id, e.ord)) FILTER (WHERE e.category IS NOT NULL) AS category_ord,
    arg_min(e.category, (e.ts_ns, e.op_id, e.ord)) FILTER (WHERE e.category IS NOT NULL) AS category,
    arg_min(e.rule_id, (e.ts_ns, e.op_id, e.ord)) FILTER (WHERE e.category IS NOT NULL) AS rule_id,
    arg_min(e.ord, (e.ts_ns, e.op_id, e.ord)) FILTER (WHERE e.sub_category IS NOT NULL) AS sub_category_ord,
    arg_min(e.sub_category, (e.ts_ns, e.op_id, e.ord)) FILTER (WHERE e.sub_category IS NOT NULL) AS sub_category,
    arg_min(e.ord, (e.ts_ns, e.op_id, e.ord)) FILTER (WHERE e.direction IS NOT NULL) AS direction_ord,
    arg_min(e.direction, (e.ts_ns, e.op_id, e.ord)) FILTER (WHERE e.direction IS NOT NULL) AS direction,
    arg_min(e.ord, (e.ts_ns, e.op_id, e.ord)) FILTER (WHERE e.collective IS NOT NULL) AS collective_ord,
    arg_min(e.collective, (e.ts_ns, e.op_id, e.ord)) FILTER (WHERE e.collective IS NOT NULL) AS collective
FROM _launch_at AS a
JOIN _enc_op AS e
    ON e.k_ts <= a.k_at AND e.k_end >= a.k_at
GROUP BY a.run_id, a.rank, a.op_id;

DELETE FROM kernel_rule_match WHERE (run_id, rank) IN (SELECT run_id, rank FROM _class_rank);
INSERT INTO kernel_rule_match BY NAME
WITH k_rank AS (
    FROM kernel WHERE (run_id, rank) IN (SELECT run_id, rank FROM _class_rank)
),
rule AS (
    SELECT *, CAST(priority AS BIGINT) * 1000000 + rule_id AS ord
    FROM kernel_class_rule
    WHERE enabled
),
kernel_key AS (
    SELECT DISTINCT r.platform, k.name, k.op_type, k.accelerator_core, k.task_type, k.copy_kind, k.source,
           k.is_communication
    FROM k_rank AS k
    JOIN run AS r
        ON r.run_id = k.run_id
),
key_class AS (
    -- per output column, the matching rule with the lowest ord that sets it: its ord (to weigh
    -- against the launching op's rule) and its value, resolved per key rather than per kernel
    SELECT
        x.platform, x.name, x.op_type, x.accelerator_core, x.task_type, x.copy_kind, x.source, x.is_communication,
        min(u.ord) FILTER (WHERE u.category IS NOT NULL) AS category_ord,
        arg_min(u.category, u.ord) FILTER (WHERE u.category IS NOT NULL) AS category,
        arg_min(u.rule_id, u.ord) FILTER (WHERE u.category IS NOT NULL) AS rule_id,
        min(u.ord) FILTER (WHERE u.sub_category IS NOT NULL) AS sub_category_ord,
        arg_min(u.sub_category, u.ord) FILTER (WHERE u.sub_category IS NOT NULL) AS sub_category,
        min(u.ord) FILTER (WHERE u.direction IS NOT NULL) AS direction_ord,
        arg_min(u.direction, u.ord) FILTER (WHERE u.direction IS NOT NULL) AS direction,
        min(u.ord) FILTER (WHERE u.collective IS NOT NULL) AS collective_ord,
        arg_min(u.collective, u.ord) FILTER (WHERE u.collective IS NOT NULL) AS collective
    FROM kernel_key AS x
    JOIN rule AS u
        ON (u.platform IS NULL OR u.platform = x.platform)
        AND lower(CASE u.match_field
                      WHEN 'name' THEN x.name
                      WHEN 'op_type' THEN x.op_type
                      WHEN 'accelerator_core' THEN x.accelerator_core
                      WHEN 'task_type' THEN x.task_type
                      WHEN 'copy_kind' THEN x.copy_kind
                      WHEN 'source' THEN x.source
                      WHEN 'is_communication' THEN CASE WHEN x.is_communication THEN 'true' ELSE 'false' END
                  END) LIKE lower(u.pattern) ESCAPE '\'
    GROUP BY x.platform, x.name, x.op_type, x.accelerator_core, x.task_type, x.copy_kind, x.source, x.is_communication
),
launch_op AS (
    SELECT DISTINCT run_id, rank, op_id
    FROM k_rank
    WHERE op_id IS NOT NULL
),
chain AS (
    -- the launching op and up to 3 enclosing ops (msprof-analyze takes the outermost op of a
    -- mask that holds the launch)
    SELECT l.run_id, l.rank, l.op_id, o0.name AS n0, o1.name AS n1, o2.name AS n2, o3.name AS n3
    FROM launch_op AS l
    JOIN op AS o0
        ON o0.run_id = l.run_id AND o0.rank = l.rank AND o0.op_id = l.op_id
    LEFT JOIN op AS o1
        ON o1.run_id = l.run_id AND o1.rank = l.rank AND o1.op_id = o0.parent_op_id
    LEFT JOIN op AS o2
        ON o2.run_id = l.run_id AND o2.rank = l.rank AND o2.op_id = o1.parent_op_id
    LEFT JOIN op AS o3
        ON o3.run_id = l.run_id AND o3.rank = l.rank AND o3.op_id = o2.parent_op_id
),
op_chain AS (
    -- one row per (launching op, op of its chain)
    SELECT run_id, rank, op_id, n0 AS name FROM chain
    UNION ALL
    SELECT run_id, rank, op_id, n1 FROM chain WHERE n1 IS NOT NULL
    UNION ALL
    SELECT run_id, rank, op_id, n2 FROM chain WHERE n2 IS NOT NULL
    UNION ALL
    SELECT run_id, rank, op_id, n3 FROM chain WHERE n3 IS NOT NULL
),
op_name_best AS (
    SELECT
        x.platform, x.name,
        min(u.ord) FILTER (WHERE u.category IS NOT NULL) AS category_ord,
        arg_min(u.category, u.ord) FILTER (WHERE u.category IS NOT NULL) AS category,
        arg_min(u.rule_id, u.ord) FILTER (WHERE u.category IS NOT NULL) AS rule_id,
        min(u.ord) FILTER (WHERE u.sub_category IS NOT NULL) AS sub_category_ord,
        arg_min(u.sub_category, u.ord) FILTER (WHERE u.sub_category IS NOT NULL) AS sub_category,
        min(u.ord) FILTER (WHERE u.direction IS NOT NULL) AS direction_ord,
        arg_min(u.direction, u.ord) FILTER (WHERE u.direction IS NOT NULL) AS direction,
        min(u.ord) FILTER (WHERE u.collective IS NOT NULL) AS collective_ord,
        arg_min(u.collective, u.ord) FILTER (WHERE u.collective IS NOT NULL) AS collective
    FROM (SELECT DISTINCT r.platform, c.name FROM op_chain AS c JOIN run AS r ON r.run_id = c.run_id) AS x
    JOIN rule AS u
        ON u.match_field = 'framework_op' AND (u.platform IS NULL OR u.platform = x.platform)
        AND lower(x.name) LIKE lower(u.pattern) ESCAPE '\'
    GROUP BY x.platform, x.name
),
op_class AS (
    -- per launching op and column, the first rule over the ops of its chain
    SELECT
        c.run_id, c.rank, c.op_id,
        min(b.category_ord) AS category_ord,
        arg_min(b.category, b.category_ord) AS category,
        arg_min(b.rule_id, b.category_ord) AS rule_id,
        min(b.sub_category_ord) AS sub_category_ord,
        arg_min(b.sub_category, b.sub_category_ord) AS sub_category,
        min(b.direction_ord) AS direction_ord,
        arg_min(b.direction, b.direction_ord) AS direction,
        min(b.collective_ord) AS collective_ord,
        arg_min(b.collective, b.collective_ord) AS collective
    FROM op_chain AS c
    JOIN run AS r
        ON r.run_id = c.run_id
    JOIN op_name_best AS b
        ON b.platform IS NOT DISTINCT FROM r.platform AND b.name = c.name
    GROUP BY c.run_id, c.rank, c.op_id
),
rank_kernels AS (
    SELECT run_id, rank,
           bool_or(source = 'kernel_details') AS has_details,
           bool_or(source = 'trace_view' AND copy_kind IS NULL) AS has_trace_compute,
           bool_or(source IN ('kernel_details', 'ascend_db')) AS has_details_or_db
    FROM k_rank
    GROUP BY run_id, rank
),
kineto_flow AS (
    SELECT DISTINCT run_id, rank
    FROM event
    WHERE (run_id, rank) IN (SELECT run_id, rank FROM _class_rank)
      AND file_id IN (SELECT file_id FROM source_file WHERE (run_id, rank) IN (SELECT run_id, rank FROM _class_rank)
                      AND format = 'kineto')
      AND ph = 'f' AND lower(cat) IN ('ac2g', 'async_gpu', 'async_cpu_to_gpu', 'async')
),
rank_facts AS (
    -- how msprof-analyze reads each rank (see the header)
    SELECT
        c.run_id, c.rank, r.platform,
        -- a torch_npu text rank without PMU categories: Level0, or no kernel_details.csv / DB
        r.platform = 'npu' AND (
            (coalesce(rk.has_details, false) AND coalesce(rr.profiler_level, '') = 'Level0')
            OR (coalesce(rk.has_trace_compute, false) AND NOT coalesce(rk.has_details_or_db, false)))
            AS hides_categories,
        -- its op link: Kineto traces only through flows
        r.platform <> 'gpu' OR (c.run_id, c.rank) IN (SELECT run_id, rank FROM kineto_flow) AS links_by_op
    FROM _class_rank AS c
    JOIN run AS r
        ON r.run_id = c.run_id
    LEFT JOIN rank_kernels AS rk
        ON rk.run_id = c.run_id AND rk.rank = c.rank
    LEFT JOIN rank AS rr
        ON rr.run_id = c.run_id AND rr.rank = c.rank
),
gpu_memcpy AS (
    -- Kineto copies msprof-analyze reads: events of category gpu_memcpy (not the 2021 Memcpy)
    SELECT DISTINCT file_id, name, ts_ns
    FROM event
    WHERE (run_id, rank) IN (SELECT run_id, rank FROM _class_rank)
      AND file_id IN (SELECT file_id FROM source_file WHERE (run_id, rank) IN (SELECT run_id, rank FROM _class_rank)
                      AND format = 'kineto')
      AND ph = 'X' AND cat = 'gpu_memcpy'
),
npu_sdma AS (
    -- torch_npu trace copies msprof-analyze's SDMA row reads: SDMA_SQE / PCIE_DMA_SQE tasks whose
    -- args carry "Stream Id" (newer CANN writes only "Physic Stream Id")
    SELECT DISTINCT file_id, name, ts_ns
    FROM event
    WHERE (run_id, rank) IN (SELECT run_id, rank FROM _class_rank)
      AND file_id IN (SELECT file_id FROM source_file WHERE (run_id, rank) IN (SELECT run_id, rank FROM _class_rank)
                      AND format = 'trace_view')
      AND process_name = 'Ascend Hardware' AND ph = 'X' AND args LIKE '%DMA\_SQE%' ESCAPE '\'
      AND json_extract_string(args, '$."Task Type"') IN ('SDMA_SQE', 'PCIE_DMA_SQE')
      AND json_extract(args, '$."Stream Id"') IS NOT NULL
),
best AS (
    -- per column, the source (kernel key, launching op chain, enclosing op) whose rule comes
    -- first; msprof: the same without the op sources where msprof-analyze has no link
    SELECT
        k.run_id, k.rank, k.kernel_id, k.source, k.copy_kind, k.accelerator_core, k.op_id, k.file_id, k.name,
        k.ts_ns, f.hides_categories, f.links_by_op,
        least(kb.category_ord, ob.category_ord, eb.category_ord) AS category_ord,
        least(kb.sub_category_ord, ob.sub_category_ord, eb.sub_category_ord) AS sub_category_ord,
        least(kb.direction_ord, ob.direction_ord, eb.direction_ord) AS direction_ord,
        least(kb.collective_ord, ob.collective_ord, eb.collective_ord) AS collective_ord,
        CASE WHEN f.links_by_op THEN least(kb.category_ord, ob.category_ord, eb.category_ord)
             ELSE kb.category_ord END AS m_category_ord,
        CASE WHEN f.links_by_op THEN least(kb.sub_category_ord, ob.sub_category_ord, eb.sub_category_ord)
             ELSE kb.sub_category_ord END AS m_sub_category_ord,
        CASE WHEN f.links_by_op THEN least(kb.direction_ord, ob.direction_ord, eb.direction_ord)
             ELSE kb.direction_ord END AS m_direction_ord,
        kb.category AS k_category, kb.rule_id AS k_rule_id, kb.sub_category_ord AS k_sub_category_ord,
        kb.sub_category AS k_sub_category, kb.direction_ord AS k_direction_ord, kb.direction AS k_direction,
        kb.collective_ord AS k_collective_ord, kb.collective AS k_collective,
        ob.category_ord AS o_category_ord, ob.category AS o_category, ob.rule_id AS o_rule_id,
        ob.sub_category_ord AS o_sub_category_ord, ob.sub_category AS o_sub_category,
        ob.direction_ord AS o_direction_ord, ob.direction AS o_direction,
        ob.collective_ord AS o_collective_ord, ob.collective AS o_collective,
        eb.category_ord AS e_category_ord, eb.category AS e_category, eb.rule_id AS e_rule_id,
        eb.sub_category_ord AS e_sub_category_ord, eb.sub_category AS e_sub_category,
        eb.direction_ord AS e_direction_ord, eb.direction AS e_direction,
        eb.collective_ord AS e_collective_ord, eb.collective AS e_collective
    FROM k_rank AS k
    JOIN run AS r
        ON r.run_id = k.run_id
    JOIN rank_facts AS f
        ON f.run_id = k.run_id AND f.rank = k.rank
    LEFT JOIN key_class AS kb
        ON kb.platform IS NOT DISTINCT FROM r.platform AND kb.name IS NOT DISTINCT FROM k.name
        AND kb.op_type IS NOT DISTINCT FROM k.op_type AND kb.accelerator_core IS NOT DISTINCT FROM k.accelerator_core
        AND kb.task_type IS NOT DISTINCT FROM k.task_type AND kb.copy_kind IS NOT DISTINCT FROM k.copy_kind
        AND kb.source IS NOT DISTINCT FROM k.source AND kb.is_communication = k.is_communication
    LEFT JOIN op_class AS ob
        ON ob.run_id = k.run_id AND ob.rank = k.rank AND ob.op_id = k.op_id
    LEFT JOIN _enc_class AS eb
        ON eb.run_id = k.run_id AND eb.rank = k.rank AND eb.op_id = k.op_id
),
chosen AS (
    SELECT
        b.*,
        CASE b.category_ord WHEN b.e_category_ord THEN b.e_category WHEN b.o_category_ord THEN b.o_category
                            ELSE b.k_category END AS category,
        CASE b.category_ord WHEN b.e_category_ord THEN b.e_rule_id WHEN b.o_category_ord THEN b.o_rule_id
                            ELSE b.k_rule_id END AS rule_id,
        CASE b.sub_category_ord WHEN b.e_sub_category_ord THEN b.e_sub_category
                                WHEN b.o_sub_category_ord THEN b.o_sub_category ELSE b.k_sub_category END AS sub_category,
        CASE b.direction_ord WHEN b.e_direction_ord THEN b.e_direction WHEN b.o_direction_ord THEN b.o_direction
                             ELSE b.k_direction END AS direction,
        CASE b.collective_ord WHEN b.e_collective_ord THEN b.e_collective WHEN b.o_collective_ord THEN b.o_collective
                              ELSE b.k_collective END AS collective,
        CASE b.m_category_ord WHEN b.e_category_ord THEN b.e_category WHEN b.o_category_ord THEN b.o_category
                              ELSE b.k_category END AS m_category,
        CASE b.m_sub_category_ord WHEN b.e_sub_category_ord THEN b.e_sub_category
                                  WHEN b.o_sub_category_ord THEN b.o_sub_category ELSE b.k_sub_category END
            AS m_sub_category,
        CASE b.m_direction_ord WHEN b.e_direction_ord THEN b.e_direction WHEN b.o_direction_ord THEN b.o_direction
                               ELSE b.k_direction END AS m_direction
    FROM best AS b
)
SELECT
    c.run_id, c.rank, c.kernel_id, c.category, c.sub_category, c.direction, c.collective, c.rule_id,
    CASE
        -- copies: only those msprof-analyze reads
        WHEN c.copy_kind IS NOT NULL THEN
            CASE WHEN c.source = 'kineto' AND g.name IS NOT NULL THEN 'Memcpy'
                 WHEN c.source = 'trace_view' AND s.name IS NOT NULL THEN 'SDMA'
                 WHEN c.source = 'ascend_db'
                 THEN CASE WHEN c.accelerator_core IN ('SDMA_SQE', 'PCIE_DMA_SQE') THEN 'SDMA' ELSE 'Memcpy' END
            END
        WHEN c.m_category IN ('Communication', 'Lccl', 'Memcpy', 'Memset', 'SDMA') THEN c.m_category
        WHEN c.hides_categories THEN 'Other'
        WHEN c.source = 'ascend_db' AND coalesce(c.m_category, 'Other') = 'Other' THEN 'Vector'
        ELSE coalesce(c.m_category, 'Other')
    END AS msprof_category,
    CASE
        WHEN c.copy_kind IS NOT NULL OR c.m_category IN ('Communication', 'Lccl', 'Memcpy', 'Memset', 'SDMA')
             OR c.hides_categories THEN NULL
        WHEN c.source = 'ascend_db' AND coalesce(c.m_category, 'Other') = 'Other' THEN 'vector'
        ELSE c.m_sub_category
    END AS msprof_sub_category,
    CASE WHEN c.copy_kind IS NULL AND NOT c.hides_categories THEN c.m_direction END AS msprof_direction
FROM chosen AS c
LEFT JOIN gpu_memcpy AS g
    ON c.copy_kind IS NOT NULL AND g.file_id = c.file_id AND g.name = c.name AND g.ts_ns = c.ts_ns
LEFT JOIN npu_sdma AS s
    ON c.copy_kind IS NOT NULL AND s.file_id = c.file_id AND s.name = c.name AND s.ts_ns = c.ts_ns;

DROP TABLE _enc_class;
DROP TABLE _launch_at;
DROP TABLE _enc_op;
DROP TABLE _class_rank;
