-- cluster_step — every rank's step in one table, also for ranks whose folder holds only the
-- profiler's own step_trace_time.csv (no trace, no kernel_details.csv), with its place in the
-- parallel layout.
-- Grain:     one row per (run, step, rank): the step_breakdown rows, plus the profiler's rows of
--            ranks that have no step_breakdown row at all.
-- Source:    step_breakdown (recomputed from kernel intervals); profiler_step_trace
--            (step_trace_time.csv, or analysis.db StepTraceTime) for the ranks without kernels
--            and for the columns step_breakdown leaves NULL (Preparing needs the host
--            ProfilerStep, which kernel_details.csv alone does not give); parallel_layout.
-- Reference: msprof-analyze cluster, cluster_step_trace_time.csv "rank" rows (it copies each
--            rank's step_trace_time.csv and adds DP / PP / TP Index). Ranks with kernels keep the
--            recomputed numbers; source says where a row's numbers come from. For rows taken from
--            the file, e2e_ns = Computing + Communication(Not Overlapped) + Free (the file's
--            identity; it has no E2E column). When both step_trace_time.csv and analysis.db
--            rows exist for a step, the step_trace_time.csv row is used.
-- Units:     *_ns integer nanoseconds (the file's µs converted exactly); *_index 0-based.
CREATE OR REPLACE VIEW cluster_step AS
WITH file_row AS (
    SELECT
        r.run_name, p.rank, p.step,
        p.computing_ns, p.communication_not_overlapped_ns, p.overlapped_ns, p.communication_ns, p.free_ns,
        p.stage_ns, p.bubble_ns, p.communication_not_overlapped_exclude_receive_ns, p.preparing_ns,
        CASE f.format WHEN 'step_trace_time' THEN 'step_trace_time.csv' WHEN 'analysis_db' THEN 'analysis.db'
                      ELSE f.format END AS file_source,
        row_number() OVER (
            PARTITION BY p.run_id, p.rank, p.step
            ORDER BY CASE f.format WHEN 'step_trace_time' THEN 0 ELSE 1 END, f.format,
                     p.computing_ns, p.communication_ns, p.free_ns, p.stage_ns, p.preparing_ns
        ) AS pick
    FROM profiler_step_trace AS p
    JOIN run AS r
        ON r.run_id = p.run_id
    JOIN source_file AS f
        ON f.file_id = p.file_id
),
one_file_row AS (
    SELECT * FROM file_row WHERE pick = 1
),
recomputed_rank AS (
    SELECT DISTINCT run_name, rank FROM step_breakdown
),
merged AS (
    SELECT
        b.run_name, b.rank, b.step,
        CASE WHEN (b.computing_ns IS NULL AND f.computing_ns IS NOT NULL)
                  OR (b.communication_not_overlapped_ns IS NULL AND f.communication_not_overlapped_ns IS NOT NULL)
                  OR (b.overlapped_ns IS NULL AND f.overlapped_ns IS NOT NULL)
                  OR (b.free_ns IS NULL AND f.free_ns IS NOT NULL)
                  OR (b.communication_not_overlapped_exclude_receive_ns IS NULL
                      AND f.communication_not_overlapped_exclude_receive_ns IS NOT NULL)
                  OR (b.preparing_ns IS NULL AND f.preparing_ns IS NOT NULL)
             THEN 'recomputed + ' || f.file_source ELSE 'recomputed' END AS source,
        coalesce(b.computing_ns, f.computing_ns) AS computing_ns,
        coalesce(b.communication_not_overlapped_ns, f.communication_not_overlapped_ns) AS communication_not_overlapped_ns,
        coalesce(b.overlapped_ns, f.overlapped_ns) AS overlapped_ns,
        b.communication_ns,
        coalesce(b.free_ns, f.free_ns) AS free_ns,
        b.stage_ns,
        b.bubble_ns,
        coalesce(b.communication_not_overlapped_exclude_receive_ns, f.communication_not_overlapped_exclude_receive_ns)
            AS communication_not_overlapped_exclude_receive_ns,
        coalesce(b.preparing_ns, f.preparing_ns) AS preparing_ns,
        b.e2e_ns
    FROM step_breakdown AS b
    LEFT JOIN one_file_row AS f
        ON f.run_name = b.run_name AND f.rank = b.rank AND f.step IS NOT DISTINCT FROM b.step
    UNION ALL
    SELECT
        f.run_name, f.rank, f.step, f.file_source,
        f.computing_ns, f.communication_not_overlapped_ns, f.overlapped_ns, f.communication_ns, f.free_ns,
        f.stage_ns, f.bubble_ns, f.communication_not_overlapped_exclude_receive_ns, f.preparing_ns,
        f.computing_ns + f.communication_not_overlapped_ns + f.free_ns
    FROM one_file_row AS f
    LEFT JOIN recomputed_rank AS k
        ON k.run_name = f.run_name AND k.rank = f.rank
    WHERE k.run_name IS NULL
)
SELECT
    m.run_name::VARCHAR                                          AS run_name,                                         -- run name
    m.step::INTEGER                                              AS step,                                             -- step number; NULL = whole capture without steps
    m.rank::INTEGER                                              AS rank,                                             -- global rank
    m.source::VARCHAR                                            AS source,                                           -- recomputed (step_breakdown), step_trace_time.csv / analysis.db (the profiler's numbers: the rank has no kernels), or "recomputed + step_trace_time.csv" (recomputed; columns step_breakdown leaves NULL, e.g. preparing_ns, taken from the file)
    m.computing_ns::BIGINT                                       AS computing_ns,                                     -- Computing, ns
    m.communication_not_overlapped_ns::BIGINT                    AS communication_not_overlapped_ns,                  -- Communication(Not Overlapped), ns
    m.overlapped_ns::BIGINT                                      AS overlapped_ns,                                    -- Overlapped, ns
    m.communication_ns::BIGINT                                   AS communication_ns,                                 -- Communication, ns
    m.free_ns::BIGINT                                            AS free_ns,                                          -- Free, ns
    m.stage_ns::BIGINT                                           AS stage_ns,                                         -- Stage, ns
    m.bubble_ns::BIGINT                                          AS bubble_ns,                                        -- Bubble, ns
    m.communication_not_overlapped_exclude_receive_ns::BIGINT    AS communication_not_overlapped_exclude_receive_ns,  -- Communication(Not Overlapped and Exclude Receive), ns
    m.preparing_ns::BIGINT                                       AS preparing_ns,                                     -- Preparing, ns
    m.e2e_ns::BIGINT                                             AS e2e_ns,                                           -- step time: step_breakdown.e2e_ns, or Computing + Not Overlapped + Free from the file, ns
    l.dp_index::INTEGER                                          AS dp_index,                                         -- DP Index (parallel_layout)
    l.pp_index::INTEGER                                          AS pp_index,                                         -- PP Index (parallel_layout)
    l.tp_index::INTEGER                                          AS tp_index,                                         -- TP Index (parallel_layout)
    l.stage_index::INTEGER                                       AS stage_index,                                      -- pipeline stage by the communication groups (parallel_layout); NULL when unknown
    l.stage_ranks::VARCHAR                                       AS stage_ranks                                       -- ranks of that stage, e.g. "(0, 1)"
FROM merged AS m
LEFT JOIN parallel_layout AS l
    ON l.run_name = m.run_name AND l.rank = m.rank
ORDER BY run_name, step, rank;
