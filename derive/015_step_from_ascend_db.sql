-- Steps of an Ascend profiler DB (STEP_TIME, kept in ascend_db_step by readers/ascend_db.py):
-- the host window of ProfilerStep#N as torch_npu wrote it. A step the rank's trace already
-- gave (010) keeps that window; 050 adds the device window from the kernels.
-- when-format: ascend_db
INSERT INTO step (run_id, rank, step, host_start_ns, host_end_ns)
SELECT run_id, rank, step, min(start_ns), max(end_ns)
FROM ascend_db_step AS d
WHERE (run_id, rank) IN (FROM derive_rank())
  AND NOT EXISTS (SELECT 1 FROM step AS s WHERE s.run_id = d.run_id AND s.rank = d.rank AND s.step = d.step)
GROUP BY run_id, rank, step;
