-- Kineto GPU-side records that are not kernels (schema/066): the GPU-side window of each step
-- (the gpu_user_annotation copy of ProfilerStep#N) into step.gpu_start_ns / gpu_end_ns, and the
-- non-kernel events on a device stream (cuda_sync, cuda_event ...) into stream_event; 132 adds
-- their host calls. A step without a host row gets no row here (only existing steps are updated).
-- when-format: kineto
UPDATE step SET gpu_start_ns = g.start_ns, gpu_end_ns = g.end_ns
FROM (
    SELECT run_id, rank, TRY_CAST(regexp_extract(name, '#(\d+)', 1) AS INTEGER) AS step, min(ts_ns) AS start_ns,
           max(ts_ns + coalesce(dur_ns, 0)) AS end_ns
    FROM event
    WHERE (run_id, rank) IN (FROM derive_rank())
      AND file_id IN (SELECT file_id FROM derive_files(['kineto']))
      AND ph = 'X' AND lower(cat) = 'gpu_user_annotation' AND name LIKE 'ProfilerStep#%' AND ts_ns IS NOT NULL
    GROUP BY run_id, rank, 3
) AS g
WHERE step.run_id = g.run_id AND step.rank = g.rank AND step.step = g.step;

DELETE FROM stream_event WHERE (run_id, rank) IN (FROM derive_rank());

INSERT INTO stream_event BY NAME
-- "stream" must be an integer >= 0 (ROCm runtime calls write "0x0"; context syncs -1)
SELECT run_id, rank, file_id, cat, name, a[1] AS stream_id,
       ts_ns, coalesce(dur_ns, 0) AS dur_ns, TRY_CAST(a[2] AS BIGINT) AS correlation_id
FROM (SELECT run_id, rank, file_id, cat, name, ts_ns, dur_ns,
             json_extract_string(args, ['$.stream', '$.correlation']) AS a
      FROM event
      WHERE (run_id, rank) IN (FROM derive_rank())
        AND file_id IN (SELECT file_id FROM derive_files(['kineto']))
        AND ph = 'X' AND ts_ns IS NOT NULL
        -- kernels and copies are kernel rows; host calls and annotations are not on a stream
        AND lower(coalesce(cat, '')) NOT IN ('kernel', 'gpu_memcpy', 'gpu_memset', 'memcpy', 'memset',
                                             'cpu_op', 'operator', 'user_annotation', 'gpu_user_annotation',
                                             'python_function', 'cuda_runtime', 'runtime', 'cuda_driver',
                                             'hip_runtime', 'privateuse1_runtime', 'privateuse1_driver', 'trace')
        AND args LIKE '%"stream"%')
WHERE TRY_CAST(a[1] AS BIGINT) >= 0
ORDER BY run_id, rank, ts_ns, stream_id, name;
