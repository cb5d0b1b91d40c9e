-- kernel_class — every kernel with the class kernel_class_rule gives it (the base of every view
-- that splits computing, communication and copies).
-- Grain:     one row per kernel (kernel table).
-- Source:    kernel (name, op_type, accelerator_core, task_type, copy_kind, source and the reader's
--            own flag is_communication), run.platform,
--            op.name of the launching op (kernel.op_id) and of its 3 enclosing ops (parent_op_id);
--            kernel_class_rule (enabled rules).
-- Reference: per output column (category, sub_category, direction, collective) the matching rule
--            with the lowest (priority, rule_id) that sets it wins; no category rule → Other.
--            Communication = category Communication; copies = Memcpy, Memset, SDMA. msprof_*: the
--            class msprof-analyze compare gives the kernel (derive/130: op rules only where it
--            links the kernel to the op, no categories without PMU columns, DB quirks).
-- Method:    the match is stored per kernel at ingest (table kernel_rule_match, derive/130);
--            after changing kernel_class_rule, `tracedb reclassify` re-applies the rules. A kernel
--            without a stored row (written with SQL since) counts by its reader's flags.
-- Units:     *_ns integer nanoseconds; size_bytes bytes.
CREATE OR REPLACE VIEW tracedb_internal.kernel_class AS
WITH best AS (
    SELECT
        k.run_id, k.rank, k.kernel_id, k.step, k.name, k.group_name, k.ts_ns, k.dur_ns, k.copy_kind,
        k.size_bytes, k.op_id, m.rule_id, m.sub_category, m.direction, m.collective,
        m.msprof_category, m.msprof_sub_category, m.msprof_direction,
        -- a kernel not classified yet (rows written with SQL, no tracedb reclassify since) counts
        -- by what its reader said: its communication flag and copy kind
        CASE WHEN m.kernel_id IS NOT NULL THEN m.category
             WHEN k.is_communication THEN 'Communication'
             WHEN k.copy_kind = 'Memset' THEN 'Memset'
             WHEN k.copy_kind IS NOT NULL THEN 'Memcpy' END AS category
    FROM kernel AS k
    LEFT JOIN kernel_rule_match AS m
        ON m.run_id = k.run_id AND m.rank = k.rank AND m.kernel_id = k.kernel_id
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
    coalesce(b.category, 'Other')::VARCHAR                 AS category,          -- category of the winning rule; Other when no rule gives one
    CASE WHEN coalesce(b.category, 'Other') NOT IN ('Communication', 'Memcpy', 'Memset', 'SDMA', 'Lccl')
         THEN b.sub_category END::VARCHAR                  AS sub_category,      -- cube, vector or trans (compute kernels only)
    b.direction::VARCHAR                                   AS direction,         -- fwd or bwd when a rule says
    CASE WHEN b.category = 'Communication' THEN b.collective END::VARCHAR
                                                           AS collective,        -- normalised collective type (communication only)
    b.rule_id::INTEGER                                     AS rule_id,           -- kernel_class_rule.rule_id that gave the category; NULL = none
    coalesce(b.category = 'Communication', false)::BOOLEAN AS is_communication,  -- communication op
    coalesce(b.category IN ('Memcpy', 'Memset', 'SDMA'), false)::BOOLEAN
                                                           AS is_copy,           -- copy: neither computing nor communication
    b.msprof_category::VARCHAR                             AS msprof_category,   -- category msprof-analyze compare gives it (kernel_rule_match.msprof_category); NULL = it does not read the row or the row is not classified yet
    b.msprof_sub_category::VARCHAR                         AS msprof_sub_category, -- cube, vector or trans as msprof-analyze splits it
    b.msprof_direction::VARCHAR                            AS msprof_direction   -- fwd or bwd as msprof-analyze gives it
FROM best AS b;
