-- kernel_class — every kernel with the class kernel_class_rule gives it (the base of every view
-- that splits computing, communication and copies).
-- Grain:     one row per kernel (kernel table).
-- Source:    kernel (name, op_type, accelerator_core, task_type, copy_kind, source and the reader's
--            own flag is_communication), run.platform,
--            op.name of the launching op (kernel.op_id) and of its 3 enclosing ops (parent_op_id);
--            kernel_class_rule (enabled rules).
-- Reference: per output column (category, sub_category, direction, collective) the matching rule
--            with the lowest (priority, rule_id) that sets it wins; no category rule → Other.
--            Communication = category Communication; copies = Memcpy, Memset, SDMA.
-- Method:    rules are matched against the distinct (platform, name, op_type, accelerator_core,
--            task_type, copy_kind, source, is_communication) values and the distinct op names, not against every
--            kernel (a few thousand LIKE tests instead of kernels × rules); each kernel then takes
--            its key's and its op chain's best rule by equality joins.
-- Units:     *_ns integer nanoseconds; size_bytes bytes.
CREATE OR REPLACE VIEW tracedb_internal.kernel_class AS
WITH rule AS (
    SELECT *, CAST(priority AS BIGINT) * 1000000 + rule_id AS ord
    FROM kernel_class_rule
    WHERE enabled
),
kernel_key AS (
    SELECT DISTINCT r.platform, k.name, k.op_type, k.accelerator_core, k.task_type, k.copy_kind, k.source,
           k.is_communication
    FROM kernel AS k
    JOIN run AS r
        ON r.run_id = k.run_id
),
key_best AS (
    SELECT
        x.platform, x.name, x.op_type, x.accelerator_core, x.task_type, x.copy_kind, x.source, x.is_communication,
        min(CASE WHEN u.category IS NOT NULL THEN u.ord END) AS category_ord,
        min(CASE WHEN u.sub_category IS NOT NULL THEN u.ord END) AS sub_category_ord,
        min(CASE WHEN u.direction IS NOT NULL THEN u.ord END) AS direction_ord,
        min(CASE WHEN u.collective IS NOT NULL THEN u.ord END) AS collective_ord
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
    FROM kernel
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
        min(CASE WHEN u.category IS NOT NULL THEN u.ord END) AS category_ord,
        min(CASE WHEN u.sub_category IS NOT NULL THEN u.ord END) AS sub_category_ord,
        min(CASE WHEN u.direction IS NOT NULL THEN u.ord END) AS direction_ord,
        min(CASE WHEN u.collective IS NOT NULL THEN u.ord END) AS collective_ord
    FROM (SELECT DISTINCT r.platform, c.name FROM op_chain AS c JOIN run AS r ON r.run_id = c.run_id) AS x
    JOIN rule AS u
        ON u.match_field = 'framework_op' AND (u.platform IS NULL OR u.platform = x.platform)
        AND lower(x.name) LIKE lower(u.pattern) ESCAPE '\'
    GROUP BY x.platform, x.name
),
op_best AS (
    SELECT
        c.run_id, c.rank, c.op_id,
        min(b.category_ord) AS category_ord,
        min(b.sub_category_ord) AS sub_category_ord,
        min(b.direction_ord) AS direction_ord,
        min(b.collective_ord) AS collective_ord
    FROM op_chain AS c
    JOIN run AS r
        ON r.run_id = c.run_id
    JOIN op_name_best AS b
        ON b.platform IS NOT DISTINCT FROM r.platform AND b.name = c.name
    GROUP BY c.run_id, c.rank, c.op_id
),
best AS (
    SELECT
        k.run_id, k.rank, k.kernel_id, k.step, k.name, k.group_name, k.ts_ns, k.dur_ns, k.copy_kind,
        k.size_bytes, k.op_id,
        least(kb.category_ord, ob.category_ord) AS category_ord,
        least(kb.sub_category_ord, ob.sub_category_ord) AS sub_category_ord,
        least(kb.direction_ord, ob.direction_ord) AS direction_ord,
        least(kb.collective_ord, ob.collective_ord) AS collective_ord
    FROM kernel AS k
    JOIN run AS r
        ON r.run_id = k.run_id
    LEFT JOIN key_best AS kb
        ON kb.platform IS NOT DISTINCT FROM r.platform AND kb.name IS NOT DISTINCT FROM k.name
        AND kb.op_type IS NOT DISTINCT FROM k.op_type AND kb.accelerator_core IS NOT DISTINCT FROM k.accelerator_core
        AND kb.task_type IS NOT DISTINCT FROM k.task_type AND kb.copy_kind IS NOT DISTINCT FROM k.copy_kind
        AND kb.source IS NOT DISTINCT FROM k.source AND kb.is_communication = k.is_communication
    LEFT JOIN op_best AS ob
        ON ob.run_id = k.run_id AND ob.rank = k.rank AND ob.op_id = k.op_id
)
SELECT
    b.run_id::INTEGER                                      AS run_id,            -- run
    b.rank::INTEGER                                        AS rank,              -- rank
    b.kernel_id::BIGINT                                    AS kernel_id,         -- kernel.kernel_id
    b.step::INTEGER                                        AS step,              -- kernel.step
    b.name::VARCHAR                                        AS name,              -- kernel name
    b.group_name::VARCHAR                                  AS group_name,        -- HCCL group of a communication op
    b.ts_ns::BIGINT                                        AS ts_ns,             -- kernel start, ns since the epoch
    b.dur_ns::BIGINT                                       AS dur_ns,            -- kernel duration, ns
    b.copy_kind::VARCHAR                                   AS copy_kind,         -- kernel.copy_kind
    b.size_bytes::BIGINT                                   AS size_bytes,        -- kernel.size_bytes
    b.op_id::BIGINT                                        AS op_id,             -- launching framework op
    coalesce(c.category, 'Other')::VARCHAR                 AS category,          -- category of the winning rule; Other when no rule gives one
    CASE WHEN coalesce(c.category, 'Other') NOT IN ('Communication', 'Memcpy', 'Memset', 'SDMA', 'Lccl')
         THEN s.sub_category END::VARCHAR                  AS sub_category,      -- cube, vector or trans (compute kernels only)
    d.direction::VARCHAR                                   AS direction,         -- fwd or bwd when a rule says
    CASE WHEN c.category = 'Communication' THEN t.collective END::VARCHAR
                                                           AS collective,        -- normalised collective type (communication only)
    c.rule_id::INTEGER                                     AS rule_id,           -- kernel_class_rule.rule_id that gave the category; NULL = none
    coalesce(c.category = 'Communication', false)::BOOLEAN AS is_communication,  -- communication op
    coalesce(c.category IN ('Memcpy', 'Memset', 'SDMA'), false)::BOOLEAN
                                                           AS is_copy            -- copy: neither computing nor communication
FROM best AS b
LEFT JOIN rule AS c
    ON c.ord = b.category_ord
LEFT JOIN rule AS s
    ON s.ord = b.sub_category_ord
LEFT JOIN rule AS d
    ON d.ord = b.direction_ord
LEFT JOIN rule AS t
    ON t.ord = b.collective_ord;
