-- stream_event.launch_*: the host runtime call with the same correlation id as each stream event
-- of (run, rank) that derive/131 just wrote (of several, the first to start, as derive/100 does
-- for kernels): cudaStreamSynchronize for a Stream Sync, cudaStreamWaitEvent for a Stream Wait
-- Event ... Only for ranks with stream events (most traces have none).
-- when-format: kineto
-- when: SELECT EXISTS (FROM stream_event WHERE (run_id, rank) IN (FROM derive_rank()) AND correlation_id IS NOT NULL)
UPDATE stream_event SET launch_name = r.name, launch_ts_ns = r.ts_ns
FROM (
    SELECT run_id, rank, corr, c.name, c.ts_ns
    FROM (SELECT run_id, rank, TRY_CAST(json_extract_string(args, '$.correlation') AS BIGINT) AS corr,
                 arg_min({'name': name, 'ts_ns': ts_ns}, ts_ns) AS c
          FROM event
          WHERE (run_id, rank) IN (FROM derive_rank())
            AND file_id IN (SELECT file_id FROM derive_files(['kineto']))
            AND ph = 'X' AND lower(cat) IN ('cuda_runtime', 'runtime', 'cuda_driver', 'privateuse1_runtime',
                                            'privateuse1_driver', 'hip_runtime')
            AND json_extract_string(args, '$.correlation') IS NOT NULL
          GROUP BY run_id, rank, corr)
) AS r
WHERE stream_event.run_id = r.run_id AND stream_event.rank = r.rank
  AND stream_event.correlation_id = r.corr;
