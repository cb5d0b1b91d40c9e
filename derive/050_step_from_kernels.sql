-- Steps known only from kernels (a kernel_details.csv Step Id without a ProfilerStep slice),
-- then every step's device window: first kernel start, last kernel end (MindSpore ranks keep
-- their step_trace_raw windows; Kineto copies count, NPU copies do not).
INSERT INTO step (run_id, rank, step)
SELECT DISTINCT k.run_id, k.rank, k.step
FROM kernel AS k
WHERE (k.run_id, k.rank) IN (FROM derive_rank()) AND k.step IS NOT NULL
  AND NOT EXISTS (SELECT 1 FROM step AS s WHERE s.run_id = k.run_id AND s.rank = k.rank AND s.step = k.step);

UPDATE step SET device_start_ns = w.start_ns, device_end_ns = w.end_ns
FROM (
    SELECT run_id, rank, step, min(ts_ns) AS start_ns, max(ts_ns + dur_ns) AS end_ns
    FROM kernel
    WHERE (run_id, rank) IN (FROM derive_rank()) AND step IS NOT NULL
      -- NPU copies (derive/031) do not widen it: CANN's step trace and Overlap Analysis, which
      -- step_trace_time.csv and msprof-analyze's text path follow, see compute and HCCL tasks only
      AND NOT (copy_kind IS NOT NULL AND source IN ('trace_view', 'ascend_db'))
      -- MindSpore ranks keep their step_trace_raw windows
      AND (run_id, rank) NOT IN (SELECT DISTINCT run_id, rank FROM step_trace_raw_row
                                 WHERE (run_id, rank) IN (FROM derive_rank()))
    GROUP BY run_id, rank, step
) AS w
WHERE step.run_id = w.run_id AND step.rank = w.rank AND step.step = w.step;
