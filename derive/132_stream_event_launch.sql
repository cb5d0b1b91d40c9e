-- stream_event.launch_*: the host runtime call with the same correlation id as each stream event
-- of (run, rank) that derive/131 just wrote (of several, the first to start, as derive/100 does
-- for kernels): cudaStreamSynchronize for a Stream Sync, cudaStreamWaitEvent for a Stream Wait
-- Event ... Only for ranks with stream events (most traces have none).
-- when-format: kineto
-- when: SELECT EXISTS (FROM stream_event WHERE run_id = getvariable('run_id') AND rank = getvariable('rank') AND correlation_id IS NOT NULL)
UPDATE stream_event SET launch_name = r.name, launch_ts_ns = r.ts_ns
FROM (
    SELECT corr, c.name, c.ts_ns
    FROM (SELECT TRY_CAST(json_extract_string(args, '$.correlation') AS BIGINT) AS corr,
                 arg_min({'name': name, 'ts_ns': ts_ns}, ts_ns) AS c
          FROM event
          WHERE run_id = getvariable('run_id') AND rank = getvariable('rank')
            AND file_id IN (FROM rank_files(getvariable('run_id'), getvariable('rank'), ['kineto']))
            AND ph = 'X' AND lower(cat) IN ('cuda_runtime', 'runtime', 'cuda_driver', 'privateuse1_runtime',
                                            'privateuse1_driver', 'hip_runtime')
            AND json_extract_string(args, '$.correlation') IS NOT NULL
          GROUP BY 1)
) AS r
WHERE stream_event.run_id = getvariable('run_id') AND stream_event.rank = getvariable('rank')
  AND stream_event.correlation_id = r.corr;
