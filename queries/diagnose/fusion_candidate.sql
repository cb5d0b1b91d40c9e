-- fusion_candidate — runs of consecutive short kernels on one stream, launched within one
-- optimizer step, module or framework op, that one fused kernel could replace: their count, device
-- time, the gaps between them and the launch time fusing them would save.
-- Grain:     one row per (fusion_pattern, run, rank, stream, run of kernels): a maximal run of
--            consecutive kernels of the stream (no other kernel, copy or communication op
--            between them) that match the pattern and share its scope, at least min_kernels long.
--            A kernel matching two patterns appears in a run of each.
-- Source:    kernel (stream_id, ts_ns, dur_ns, name, op_type, launch_dur_ns: the launch call,
--            Kineto cuda_runtime / Nsight CUDA runtime / NPU CANN call; op_id: the launching op);
--            op (name, module_path, the enclosing optimizer op by time on the launch op's thread);
--            fusion_pattern (enabled patterns, editable data); diagnosis_threshold
--            fusion_candidate.short_kernel_ns; run.platform.
-- Reference: HolisticTraceAnalysis kernel launch stats call a kernel short when it runs shorter
--            than its launch call (cpu_duration > gpu_duration); here a kernel is short when
--            dur_ns < launch_dur_ns, or, without a known launch call, dur_ns <
--            fusion_candidate.short_kernel_ns. Fusing a run of n kernels into one keeps one launch:
--            launch_saving_ns = sum of their launch calls − the longest (tracedb's estimate; HTA
--            lists short kernels and launch outliers but no saving), and removes the idle gaps
--            between them on the stream (gap_ns). Scopes: optimizer = the innermost op whose name
--            matches scope_pattern (Optimizer.step#SGD.step, Optimizer.zero_grad#...) and holds the
--            launching op's start on its thread; module = op.module_path of the launching op;
--            op = the launching op; stream = the stream alone.
-- Units:     *_ns integer nanoseconds (ts since the epoch); *_count kernels.
CREATE OR REPLACE VIEW fusion_candidate AS
WITH threshold AS (
    SELECT max(CASE WHEN name = 'fusion_candidate.short_kernel_ns' THEN value END) AS short_ns
    FROM diagnosis_threshold
),
pattern AS (
    SELECT * FROM fusion_pattern WHERE enabled
),
stream_kernel AS (
    -- every kernel, copy and communication op of a stream, numbered in stream order
    SELECT k.run_id, k.rank, k.kernel_id, k.step, k.stream_id, k.ts_ns, k.dur_ns, k.name, k.op_type, k.op_id,
           k.launch_dur_ns, k.copy_kind IS NULL AND NOT k.is_communication AS is_compute,
           row_number() OVER (PARTITION BY k.run_id, k.rank, k.stream_id ORDER BY k.ts_ns, k.kernel_id) AS stream_seq
    FROM kernel AS k
    WHERE k.stream_id IS NOT NULL
),
kern AS (
    SELECT s.*, r.platform, o.name AS op_name, o.module_path, o.file_id AS op_file_id, o.tid AS op_tid,
           o.ts_ns AS op_ts_ns
    FROM stream_kernel AS s
    JOIN run AS r
        ON r.run_id = s.run_id
    LEFT JOIN op AS o
        ON o.run_id = s.run_id AND o.rank = s.rank AND o.op_id = s.op_id
    WHERE s.is_compute
),
scope_op AS (
    -- ops that can scope a run (optimizer steps): few per step
    SELECT p.pattern_id, o.run_id, o.rank, o.file_id, o.tid, o.op_id, o.name, o.ts_ns, o.ts_ns + o.dur_ns AS end_ns
    FROM pattern AS p
    JOIN op AS o
        ON lower(o.name) LIKE lower(p.scope_pattern) ESCAPE '\'
    WHERE p.scope = 'optimizer'
),
in_scope AS (
    -- each kernel's innermost enclosing scope op, per optimizer pattern
    SELECT pattern_id, kernel_id, run_id, rank, op_id, name
    FROM (
        SELECT so.pattern_id, k.kernel_id, k.run_id, k.rank, so.op_id, so.name,
               row_number() OVER (PARTITION BY so.pattern_id, k.run_id, k.rank, k.kernel_id
                                  ORDER BY so.ts_ns DESC, so.op_id DESC) AS pick
        FROM kern AS k
        JOIN scope_op AS so
            ON so.run_id = k.run_id AND so.rank = k.rank AND so.file_id = k.op_file_id AND so.tid = k.op_tid
           AND so.ts_ns <= k.op_ts_ns AND k.op_ts_ns < so.end_ns
    ) AS ranked
    WHERE pick = 1
),
matched AS (
    SELECT p.pattern_id, k.run_id, k.rank, k.kernel_id, k.step, k.stream_id, k.stream_seq, k.ts_ns, k.dur_ns,
           k.name, k.launch_dur_ns,
           CASE p.scope WHEN 'optimizer' THEN CAST(i.op_id AS VARCHAR)
                        WHEN 'module' THEN k.module_path
                        WHEN 'op' THEN CAST(k.op_id AS VARCHAR)
                        WHEN 'stream' THEN '' END AS scope_key,
           CASE p.scope WHEN 'optimizer' THEN i.name
                        WHEN 'module' THEN k.module_path
                        WHEN 'op' THEN k.op_name END AS scope_name
    FROM pattern AS p
    CROSS JOIN threshold AS t
    JOIN kern AS k
        ON p.platform IS NULL OR p.platform = k.platform
    LEFT JOIN in_scope AS i
        ON p.scope = 'optimizer' AND i.pattern_id = p.pattern_id AND i.run_id = k.run_id AND i.rank = k.rank
       AND i.kernel_id = k.kernel_id
    WHERE lower(CASE p.match_field WHEN 'name' THEN k.name
                                   WHEN 'op_type' THEN k.op_type
                                   WHEN 'framework_op' THEN k.op_name END) LIKE lower(p.pattern) ESCAPE '\'
      AND (NOT p.short_only OR k.dur_ns < coalesce(k.launch_dur_ns, t.short_ns))
),
numbered AS (
    -- consecutive kernels of the stream with the same scope share stream_seq − their own count
    SELECT m.*,
           m.stream_seq - row_number() OVER (PARTITION BY m.pattern_id, m.run_id, m.rank, m.stream_id, m.scope_key
                                             ORDER BY m.stream_seq) AS run_key
    FROM matched AS m
    WHERE m.scope_key IS NOT NULL
),
runs AS (
    SELECT pattern_id, run_id, rank, stream_id, scope_key, run_key,
           min(step) AS step, any_value(scope_name) AS scope_name,
           count(*) AS kernel_count,
           count(DISTINCT name) AS name_count,
           arg_min(name, stream_seq) AS first_kernel_name,
           min(ts_ns) AS start_ns,
           max(ts_ns + dur_ns) AS end_ns,
           sum(dur_ns) AS device_ns,
           count(launch_dur_ns) AS launch_count,
           sum(launch_dur_ns) AS launch_ns,
           max(launch_dur_ns) AS max_launch_ns
    FROM numbered
    GROUP BY pattern_id, run_id, rank, stream_id, scope_key, run_key
)
SELECT
    r.run_name::VARCHAR                                                   AS run_name,            -- run name
    u.rank::INTEGER                                                       AS rank,                -- global rank
    u.step::INTEGER                                                       AS step,                -- step of the run's first kernel (kernel.step)
    p.pattern_id::INTEGER                                                 AS pattern_id,          -- fusion_pattern.pattern_id
    p.name::VARCHAR                                                       AS pattern,             -- pattern name (optimizer_elementwise, elementwise_chain, transdata_pair ...)
    p.scope::VARCHAR                                                      AS scope,               -- optimizer, module, op or stream
    u.scope_name::VARCHAR                                                 AS scope_name,          -- the optimizer op, module path or framework op the kernels share; NULL for scope stream
    u.stream_id::VARCHAR                                                  AS stream_id,           -- device stream
    u.first_kernel_name::VARCHAR                                          AS first_kernel_name,   -- name of the run's first kernel
    u.name_count::BIGINT                                                  AS kernel_name_count,   -- distinct kernel names in the run
    u.kernel_count::BIGINT                                                AS kernel_count,        -- kernels in the run
    u.start_ns::BIGINT                                                    AS start_ns,            -- first kernel start, ns since the epoch
    (u.end_ns - u.start_ns)::BIGINT                                       AS span_ns,             -- last kernel end − first kernel start, ns
    u.device_ns::BIGINT                                                   AS device_ns,           -- sum of the kernels' durations, ns
    (u.end_ns - u.start_ns - u.device_ns)::BIGINT                         AS gap_ns,              -- idle time between the run's kernels on the stream, ns (span − device)
    u.launch_ns::BIGINT                                                   AS launch_ns,           -- sum of their launch calls' durations, ns; NULL when no launch call is known
    (CASE WHEN u.launch_count = u.kernel_count
          THEN u.launch_ns - u.max_launch_ns END)::BIGINT                 AS launch_saving_ns,    -- host launch time one fused kernel would save: all launches but the longest, ns; NULL unless every launch call is known
    p.fix::VARCHAR                                                        AS fix                  -- what to do (fusion_pattern.fix)
FROM runs AS u
JOIN pattern AS p
    ON p.pattern_id = u.pattern_id
JOIN run AS r
    ON r.run_id = u.run_id
WHERE u.kernel_count >= p.min_kernels
ORDER BY r.run_name, u.rank, u.start_ns, u.stream_id, p.pattern_id;
