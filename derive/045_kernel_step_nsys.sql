-- Steps of the Nsight Systems kernels and copies (readers/nsys.py writes them with step NULL):
-- the ProfilerStep#N host window (an NVTX step range) that holds the CUDA runtime call with the
-- same correlation id (kernel.launch_ts_ns; HolisticTraceAnalysis's rule, as for Kineto in
-- 040); a row without a launch call belongs to the last step whose host window started at or
-- before it. Recomputed for every nsys row of the rank, so the result is the same whatever
-- order the files came in.
-- when: SELECT count(*) > 0 FROM source_file WHERE run_id = getvariable('run_id') AND rank = getvariable('rank') AND format = 'nsys'
UPDATE kernel SET step = s.step
FROM (
    WITH k AS (
        SELECT kernel_id, ts_ns, launch_ts_ns FROM kernel
        WHERE run_id = getvariable('run_id') AND rank = getvariable('rank') AND source = 'nsys'
    ),
    by_launch AS (
        SELECT k.kernel_id, min(s.step) AS step
        FROM k JOIN step AS s
          ON s.run_id = getvariable('run_id') AND s.rank = getvariable('rank')
         AND k.launch_ts_ns >= s.host_start_ns AND k.launch_ts_ns < s.host_end_ns
        GROUP BY k.kernel_id
    ),
    step_start AS (FROM host_step_starts(getvariable('run_id'), getvariable('rank'))),
    by_window AS (
        SELECT k.kernel_id, w.step
        FROM (SELECT kernel_id, ts_ns FROM k WHERE launch_ts_ns IS NULL) AS k
        ASOF JOIN step_start AS w ON k.ts_ns >= w.host_start_ns
    )
    SELECT k.kernel_id, coalesce(l.step, w.step) AS step
    FROM k LEFT JOIN by_launch AS l USING (kernel_id) LEFT JOIN by_window AS w USING (kernel_id)
) AS s
WHERE kernel.run_id = getvariable('run_id') AND kernel.rank = getvariable('rank') AND kernel.source = 'nsys'
  AND kernel.kernel_id = s.kernel_id AND kernel.step IS DISTINCT FROM s.step;
