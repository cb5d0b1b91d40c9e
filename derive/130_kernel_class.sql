-- kernel_rule_match: the classification of every kernel of (run, rank) (a row per kernel) by kernel_class_rule,
-- stored once per rank so the views read it instead of matching the rules on every query (the
-- step views read the class of every kernel several times). Rebuilt here after the rank's
-- kernels and ops, and for every rank by `tracedb reclassify` after a rule is added or changed.
-- How a kernel is classified: every enabled rule of the kernel's platform (or of any platform)
-- whose pattern matches its field (kernel name, op type, accelerator core, task type, copy kind,
-- source, the reader's own is_communication flag, or the launching framework op and its 3
-- enclosing ops) matches; per output column the matching rule with the lowest (priority,
-- rule_id) that sets it wins. Rules are matched against the distinct kernel keys and the
-- distinct op names of the rank, not against every kernel.
DELETE FROM kernel_rule_match WHERE run_id = getvariable('run_id') AND rank = getvariable('rank');
INSERT INTO kernel_rule_match BY NAME
WITH k_rank AS (
    FROM kernel WHERE run_id = getvariable('run_id') AND rank = getvariable('rank')
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
best AS (
    -- per column, the launching op's rule when it comes first, else the key's
    SELECT
        k.run_id, k.rank, k.kernel_id, k.step, k.name, k.group_name, k.ts_ns, k.dur_ns, k.copy_kind,
        k.size_bytes, k.op_id,
        CASE WHEN ob.category_ord < coalesce(kb.category_ord, ob.category_ord + 1)
             THEN ob.category ELSE kb.category END AS category,
        CASE WHEN ob.category_ord < coalesce(kb.category_ord, ob.category_ord + 1)
             THEN ob.rule_id ELSE kb.rule_id END AS rule_id,
        CASE WHEN ob.sub_category_ord < coalesce(kb.sub_category_ord, ob.sub_category_ord + 1)
             THEN ob.sub_category ELSE kb.sub_category END AS sub_category,
        CASE WHEN ob.direction_ord < coalesce(kb.direction_ord, ob.direction_ord + 1)
             THEN ob.direction ELSE kb.direction END AS direction,
        CASE WHEN ob.collective_ord < coalesce(kb.collective_ord, ob.collective_ord + 1)
             THEN ob.collective ELSE kb.collective END AS collective
    FROM k_rank AS k
    JOIN run AS r
        ON r.run_id = k.run_id
    LEFT JOIN key_class AS kb
        ON kb.platform IS NOT DISTINCT FROM r.platform AND kb.name IS NOT DISTINCT FROM k.name
        AND kb.op_type IS NOT DISTINCT FROM k.op_type AND kb.accelerator_core IS NOT DISTINCT FROM k.accelerator_core
        AND kb.task_type IS NOT DISTINCT FROM k.task_type AND kb.copy_kind IS NOT DISTINCT FROM k.copy_kind
        AND kb.source IS NOT DISTINCT FROM k.source AND kb.is_communication = k.is_communication
    LEFT JOIN op_class AS ob
        ON ob.run_id = k.run_id AND ob.rank = k.rank AND ob.op_id = k.op_id
)
SELECT run_id, rank, kernel_id, category, sub_category, direction, collective, rule_id
FROM best;
