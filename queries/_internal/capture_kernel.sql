-- capture_kernel — a rank's kernels with the whole-capture unions each one belongs to: the one
-- place that says which kernels count as computing, communication, busy and all, and how an NPU
-- copy is clipped (read by tracedb_internal.capture_member and tracedb_internal.capture_union).
-- Grain:     one row per kernel (tracedb_internal.kernel_class).
-- Source:    tracedb_internal.kernel_class (is_communication, is_copy), run.platform.
-- Reference: msprof-analyze's whole-capture overall numbers (analyses.md §2.1): on NPU the
--            capture is the extent of computing and communication (CANN's Overlap Analysis, which
--            msprof-analyze's text path reads, does not see copies), so a copy counts in `all`
--            clipped to that extent, and not at all outside it; elsewhere copies count whole.
-- Method:    the extent's start is the earliest non-copy start, so a clipped start
--            greatest(ts_ns, extent start) keeps the kernels' start order.
-- Units:     *_ns integer nanoseconds since the epoch.
CREATE OR REPLACE VIEW tracedb_internal.capture_kernel AS
WITH kc AS (
    SELECT run_id, rank, kernel_id, group_name, ts_ns, ts_ns + dur_ns AS end_ns, is_communication, is_copy
    FROM tracedb_internal.kernel_class
),
npu_extent AS (
    SELECT k.run_id, k.rank, min(k.ts_ns) AS start_ns, max(k.end_ns) AS end_ns
    FROM kc AS k
    JOIN run AS r
        ON r.run_id = k.run_id
    WHERE r.platform = 'npu' AND NOT k.is_copy
    GROUP BY k.run_id, k.rank
)
SELECT
    k.run_id::INTEGER           AS run_id,            -- run
    k.rank::INTEGER             AS rank,              -- rank
    k.kernel_id::BIGINT         AS kernel_id,         -- the kernel
    k.group_name::VARCHAR       AS group_name,        -- communication group of a communication kernel
    k.ts_ns::BIGINT             AS ts_ns,             -- start, ns
    k.end_ns::BIGINT            AS end_ns,            -- end, ns
    k.is_communication          AS is_communication,  -- class Communication
    k.is_copy                   AS is_copy,           -- class Memcpy, Memset or SDMA
    (NOT k.is_communication AND NOT k.is_copy)
                                AS in_computing,      -- a member of the computing union
    k.is_communication          AS in_communication,  -- a member of the communication union
    (NOT k.is_copy)             AS in_busy,           -- a member of the busy union (computing and communication)
    (NOT k.is_copy OR x.run_id IS NULL OR (k.ts_ns < x.end_ns AND k.end_ns > x.start_ns))
                                AS in_all,            -- a member of the all union (NPU copies outside the extent are not)
    (CASE WHEN k.is_copy AND x.run_id IS NOT NULL THEN greatest(k.ts_ns, x.start_ns) ELSE k.ts_ns END)::BIGINT
                                AS all_start_ns,      -- start as a member of all (NPU copies clipped), ns
    (CASE WHEN k.is_copy AND x.run_id IS NOT NULL THEN least(k.end_ns, x.end_ns) ELSE k.end_ns END)::BIGINT
                                AS all_end_ns         -- end as a member of all (NPU copies clipped), ns
FROM kc AS k
LEFT JOIN npu_extent AS x
    ON x.run_id = k.run_id AND x.rank = k.rank
