-- cpu_utilization — CPU use of the machine, the training process and each MindSpore dataset
-- pipeline op, with the per-worker load and MindSpore's advice on num_parallel_workers.
-- Grain:     one row per (run, rank, scope, op): scope device (the whole machine), process (the
--            training process) or op (one pipeline op; op_id -1 = threads of no op).
-- Source:    minddata_cpu_sample (minddata_cpu_utilization_{rank}.json device_info / process_info
--            / op_info user_utilization, sys_utilization, io_utilization, idle_utilization);
--            data_pipeline (op_type, num_workers of pipeline_profiling_{rank}.json);
--            diagnosis_threshold cpu_utilization.per_worker_max_pct / per_worker_min_pct.
-- Reference: MindInsight's resource page (MinddataCpuUtilizationAnalyser): the average of each
--            metric over the samples (MindInsight rounds it to an integer; here unrounded).
--            MindSpore's pipeline bottleneck analysis (minddata_analyzer.py BottleneckAnalyzer):
--            avg_cpu_pct = average of user + sys per op, per worker = avg_cpu_pct / num_workers;
--            above 75 % per worker "try increasing num_parallel_workers" (verdict add_workers),
--            below 20 % with more than one worker the workers mostly wait (verdict workers_idle);
--            ops MindSpore runs on one thread (Barrier, Concat, EpochCtrl, Rename, Repeat, Shuffle,
--            Skip, Take, Zip) get no verdict.
-- Units:     *_pct percent: device = % of all CPUs (0-100); process and op = % of one CPU summed
--            over the CPUs used (can exceed 100); *_count samples, workers or CPUs.
CREATE OR REPLACE VIEW cpu_utilization AS
WITH per_scope AS (
    SELECT run_id, rank, scope, op_id, count(*) AS sample_count,
           avg(user_pct) AS user_pct, avg(sys_pct) AS sys_pct, avg(io_pct) AS io_pct, avg(idle_pct) AS idle_pct,
           avg(coalesce(user_pct, 0) + coalesce(sys_pct, 0)) AS cpu_pct,
           max(cpu_processor_count) AS cpu_count
    FROM minddata_cpu_sample
    GROUP BY run_id, rank, scope, op_id
),
pipeline_op AS (
    SELECT run_id, rank, op_id, any_value(op_type) AS op_type, max(num_workers) AS num_workers
    FROM data_pipeline
    GROUP BY run_id, rank, op_id
),
thresholds AS (
    SELECT max(CASE WHEN name = 'cpu_utilization.per_worker_max_pct' THEN value END) AS max_pct,
           max(CASE WHEN name = 'cpu_utilization.per_worker_min_pct' THEN value END) AS min_pct
    FROM diagnosis_threshold
),
judged AS (
    SELECT s.*, o.op_type, o.num_workers,
           CASE WHEN s.scope = 'op' AND o.num_workers > 0 THEN s.cpu_pct / o.num_workers END AS per_worker_pct,
           s.scope = 'op' AND o.op_type IS NOT NULL
               AND regexp_replace(o.op_type, 'Op$', '') NOT IN ('Barrier', 'Concat', 'EpochCtrl', 'Rename', 'Repeat',
                                                                 'Shuffle', 'Skip', 'Take', 'Zip') AS multithreaded
    FROM per_scope AS s
    LEFT JOIN pipeline_op AS o
        ON s.scope = 'op' AND o.run_id = s.run_id AND o.rank = s.rank AND o.op_id = s.op_id
)
SELECT
    r.run_name::VARCHAR                                    AS run_name,             -- run name
    j.rank::INTEGER                                        AS rank,                 -- global rank
    j.scope::VARCHAR                                       AS scope,                -- device (machine), process (training process) or op (pipeline op)
    j.op_id::INTEGER                                       AS pipeline_op_id,       -- pipeline op (data_pipeline.op_id); -1 = threads of no op; NULL for device and process
    j.op_type::VARCHAR                                     AS pipeline_op_type,     -- pipeline op type (MapOp, BatchOp ...; data_pipeline.op_type); NULL when unknown
    j.num_workers::BIGINT                                  AS worker_count,         -- the op's worker threads (num_parallel_workers); NULL when unknown
    j.sample_count::BIGINT                                 AS sample_count,         -- CPU samples averaged
    j.cpu_count::BIGINT                                    AS cpu_processor_count,  -- logical CPUs of the machine (cpu_processor_num)
    j.user_pct::DOUBLE                                     AS user_pct,             -- average user time, %
    j.sys_pct::DOUBLE                                      AS sys_pct,              -- average system time, %
    j.io_pct::DOUBLE                                       AS io_pct,               -- average iowait of the machine, %; NULL for process and op
    j.idle_pct::DOUBLE                                     AS idle_pct,             -- average idle of the machine, %; NULL for process and op
    j.cpu_pct::DOUBLE                                      AS cpu_pct,              -- average user + sys, % (MindSpore avg_cpu_pct)
    j.per_worker_pct::DOUBLE                               AS cpu_per_worker_pct,   -- cpu_pct / worker_count for an op (MindSpore avg_cpu_pct_per_worker); NULL otherwise
    (CASE WHEN NOT j.multithreaded THEN NULL
          WHEN j.per_worker_pct > t.max_pct THEN 'add_workers'
          WHEN j.per_worker_pct < t.min_pct AND j.num_workers > 1 THEN 'workers_idle'
          WHEN j.per_worker_pct IS NOT NULL THEN 'ok' END)::VARCHAR
                                                           AS verdict               -- add_workers (per worker above cpu_utilization.per_worker_max_pct: raise num_parallel_workers), workers_idle (below per_worker_min_pct with several workers), ok; NULL for device, process and single-threaded ops
FROM judged AS j
JOIN run AS r
    ON r.run_id = j.run_id
CROSS JOIN thresholds AS t
ORDER BY r.run_name, j.rank, CASE j.scope WHEN 'device' THEN 0 WHEN 'process' THEN 1 ELSE 2 END, j.op_id;
