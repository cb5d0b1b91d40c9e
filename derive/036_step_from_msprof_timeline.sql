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
    SELECT ts_ns, dur_ns,
           coalesce(TRY_CAST(json_extract_string(args, '$."Iteration ID"') AS INTEGER),
                    TRY_CAST(regexp_extract(name, '^Iteration (\d+)$', 1) AS INTEGER)) AS step,
           coalesce(TRY_CAST(regexp_extract(thread_name, 'Model ID:\s*(\d+)', 1) AS BIGINT), -1) AS model,
           json_extract_string(args, ['$."FP Start"', '$."BP End"']) AS a
    FROM event
    WHERE run_id = getvariable('run_id') AND rank = getvariable('rank')
      AND file_id IN (FROM rank_files(getvariable('run_id'), getvariable('rank'), ['trace_view', 'msprof_timeline']))
      AND ph = 'X' AND ts_ns IS NOT NULL AND dur_ns IS NOT NULL
      AND name LIKE 'Iteration %' AND regexp_full_match(name, 'Iteration \d+')
      AND (process_name = 'Step Trace' OR coalesce(thread_name, '') LIKE 'Step Trace%')
),
model AS (
    SELECT model FROM it WHERE step IS NOT NULL
    GROUP BY model ORDER BY count(DISTINCT step) DESC, model LIMIT 1
)
SELECT step, min(ts_ns) AS start_ns, max(ts_ns + dur_ns) AS end_ns,
       min(CAST(round(TRY_CAST(trim(a[1], '" ') AS DECIMAL(38, 9)) * 1000) AS BIGINT)) AS fp_ns,
       max(CAST(round(TRY_CAST(trim(a[2], '" ') AS DECIMAL(38, 9)) * 1000) AS BIGINT)) AS bp_ns
FROM it
WHERE step IS NOT NULL AND model = (FROM model)
GROUP BY step;

INSERT INTO step (run_id, rank, step, device_start_ns, device_end_ns, fp_ns, bp_ns)
SELECT getvariable('run_id'), getvariable('rank'), i.step, i.start_ns, i.end_ns, i.fp_ns, i.bp_ns
FROM _iteration AS i
WHERE NOT EXISTS (SELECT 1 FROM step AS s WHERE s.run_id = getvariable('run_id')
                  AND s.rank = getvariable('rank') AND s.step = i.step)
ORDER BY i.step;

UPDATE kernel SET step = w.step
FROM (
    SELECT k.kernel_id, i.step
    FROM (SELECT kernel_id, ts_ns FROM kernel
          WHERE run_id = getvariable('run_id') AND rank = getvariable('rank') AND source = 'trace_view'
            AND step IS NULL AND EXISTS (FROM _iteration)) AS k
    ASOF JOIN (SELECT step, start_ns FROM _iteration) AS i ON k.ts_ns >= i.start_ns
) AS w
WHERE kernel.run_id = getvariable('run_id') AND kernel.rank = getvariable('rank')
  AND kernel.kernel_id = w.kernel_id;

DROP TABLE _iteration;
