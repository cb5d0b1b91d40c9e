-- Steps of graph-mode CANN timelines: the "Iteration <n>" slices of the Step Trace rows
-- (formats.md §2.4; CANN msprof timeline files PROF_*/device_*/timeline: on the Ascend Hardware
-- thread "Step Trace(Model ID:<m>)" of msprof_*.json, or the "Step Trace" process, thread
-- "Model ID:<m>", of the step_trace_* slices; trace_view.json of graph-mode MindSpore alike).
-- Step n = the slice with args "Iteration ID" n (else the n of its name): device window
-- [ts, ts + dur] (= Iteration End), fp_ns = args "FP Start", bp_ns = args "BP End" (µs of the
-- slice's own clock, converted exactly). One model's steps: the model (thread "... Model ID:m")
-- with the most iterations, ties the lowest model id; an iteration written in two files
-- (msprof_*.json and the step_trace_* slice of the same capture) is one step.
-- Step rows are added for steps the rank does not have yet (a ProfilerStep#N, step_trace_raw
-- or STEP_TIME step keeps its own window); derive/050 then sets the device windows of steps
-- with kernels from their kernels, as for every NPU step.
-- The rank's trace kernels without a step (no ProfilerStep#N host window: graph mode) take the
-- last iteration that started at or before them (the window rule of host steps; a kernel
-- before the first iteration has no step).
-- when-format: trace_view msprof_timeline
CREATE OR REPLACE TEMP TABLE _iteration AS
WITH it AS (
    SELECT run_id, rank, ts_ns, dur_ns,
           coalesce(TRY_CAST(json_extract_string(args, '$."Iteration ID"') AS INTEGER),
                    TRY_CAST(regexp_extract(name, '^Iteration (\d+)$', 1) AS INTEGER)) AS step,
           coalesce(TRY_CAST(regexp_extract(thread_name, 'Model ID:\s*(\d+)', 1) AS BIGINT), -1) AS model,
           json_extract_string(args, ['$."FP Start"', '$."BP End"']) AS a
    FROM event
    WHERE (run_id, rank) IN (FROM derive_rank())
      AND file_id IN (SELECT file_id FROM derive_files(['trace_view', 'msprof_timeline']))
      AND ph = 'X' AND ts_ns IS NOT NULL AND dur_ns IS NOT NULL
      AND name LIKE 'Iteration %' AND regexp_full_match(name, 'Iteration \d+')
      AND (process_name = 'Step Trace' OR coalesce(thread_name, '') LIKE 'Step Trace%')
),
model AS (
    SELECT run_id, rank, model FROM it WHERE step IS NOT NULL
    GROUP BY run_id, rank, model
    QUALIFY row_number() OVER (PARTITION BY run_id, rank ORDER BY count(DISTINCT step) DESC, model) = 1
)
SELECT it.run_id, it.rank, it.step, min(it.ts_ns) AS start_ns, max(it.ts_ns + it.dur_ns) AS end_ns,
       min(CAST(round(TRY_CAST(trim(it.a[1], '" ') AS DECIMAL(38, 9)) * 1000) AS BIGINT)) AS fp_ns,
       max(CAST(round(TRY_CAST(trim(it.a[2], '" ') AS DECIMAL(38, 9)) * 1000) AS BIGINT)) AS bp_ns
FROM it JOIN model AS m ON m.run_id = it.run_id AND m.rank = it.rank AND m.model = it.model
WHERE it.step IS NOT NULL
GROUP BY it.run_id, it.rank, it.step;

INSERT INTO step (run_id, rank, step, device_start_ns, device_end_ns, fp_ns, bp_ns)
SELECT i.run_id, i.rank, i.step, i.start_ns, i.end_ns, i.fp_ns, i.bp_ns
FROM _iteration AS i
WHERE NOT EXISTS (SELECT 1 FROM step AS s WHERE s.run_id = i.run_id AND s.rank = i.rank AND s.step = i.step)
ORDER BY i.run_id, i.rank, i.step;

UPDATE kernel SET step = w.step
FROM (
    SELECT k.run_id, k.rank, k.kernel_id, i.step
    FROM (SELECT run_id, rank, kernel_id, ts_ns FROM kernel
          WHERE (run_id, rank) IN (SELECT DISTINCT run_id, rank FROM _iteration) AND source = 'trace_view'
            AND step IS NULL) AS k
    ASOF JOIN (SELECT run_id, rank, step, start_ns FROM _iteration) AS i
        ON i.run_id = k.run_id AND i.rank = k.rank AND k.ts_ns >= i.start_ns
) AS w
WHERE kernel.run_id = w.run_id AND kernel.rank = w.rank AND kernel.kernel_id = w.kernel_id;

DROP TABLE _iteration;
