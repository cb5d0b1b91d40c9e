-- input_bound — is each step waiting for its input data: how much of the step went to loading
-- data, how busy the device was meanwhile, the verdict, and for a MindSpore pipeline the op to blame.
-- Grain:     one row per (run, rank, step) with a host window (ProfilerStep#N of Kineto,
--            trace_view.json, an Ascend profiler DB or an Nsight NVTX step range) or a MindSpore
--            step_trace_raw step (device window and fp point).
-- Source:    step (host_start_ns / host_end_ns, device_start_ns; MindSpore: start_point, fp_point,
--            end_point); op (DataLoader fetches: name enumerate(DataLoader)#..., e.g.
--            enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__); kernel (device
--            intervals); event (CUDA / HIP runtime calls, for the TensorBoard rule);
--            data_queue_record (device_queue_profiling_{rank}.txt queue records, batch = step);
--            data_pipeline / data_pipeline_wait (pipeline_profiling_{rank}.json queues, workers,
--            throughput); diagnosis_threshold (the thresholds).
-- Reference: PyTorch / Paddle guides: the reader's share of the step (Paddle reader_cost /
--            batch_cost). data_loading_ratio = |U(DataLoader fetches) within the host step| / host
--            step; input-bound above diagnosis_threshold input_bound.dataloader_ratio (0.05, the
--            PyTorch TensorBoard profiler's "high time cost on input data loading" rule). The
--            TensorBoard profiler itself books only the part of the fetches no kernel, copy,
--            memset or runtime call overlaps (tb_plugin OverallParser role priority): that is
--            tb_dataloader_ns (on tracedb's host step window; TensorBoard widens its steps to the
--            device work they launched). MindSpore step_trace_raw steps: the iteration interval
--            (fp_point − start_point: the device idle before the forward pass, waiting for the
--            batch) is the data-loading time, input-bound above input_bound.iteration_interval_ns
--            (MindInsight's step-trace proposal, 0.5 ms), its share of the step is
--            data_loading_ratio. The pipeline side follows MindInsight's data-preparation page:
--            device_queue_empty_ratio = queue records of device_queue_profiling_{rank}.txt that found
--            the device queue empty / all (MindInsight's empty batches / batches), else
--            pipeline_queue_empty_ratio (data_pipeline_wait.queue_empty_ratio, the pipeline
--            profile's samples of the device's queue); data_pipeline_bound above
--            input_bound.device_queue_empty_ratio (0.3, MindInsight's data_process warning). The
--            producer to blame is the op data_pipeline_wait blames most often when the device
--            waited: the op nearest the device whose output queue is empty while its inputs hold
--            data, else the empty source op (MindSpore BottleneckAnalyzer's queue rules: a leaf
--            using little of its output queue is I/O bound, "try num_parallel_workers > n").
-- Method:    unions of intervals by a running maximum of the ends (touching intervals merge);
--            intervals are matched to step windows by 2^20 ns buckets, each overlapping pair kept
--            once, in the bucket where the overlap starts (as host_wait).
-- Units:     *_ns integer nanoseconds; *_ratio 0..1 shares; *_count batches, calls or workers;
--            *_per_ms rows per millisecond (MindSpore throughput).
CREATE OR REPLACE VIEW input_bound AS
WITH host_step AS (
    SELECT run_id, rank, step, host_start_ns AS start_ns, host_end_ns AS end_ns, device_start_ns
    FROM step
    WHERE host_start_ns IS NOT NULL AND host_end_ns > host_start_ns
),
step_bucket AS (
    SELECT s.run_id, s.rank, s.step, s.start_ns, s.end_ns,
           unnest(generate_series(s.start_ns // 1048576, (s.end_ns - 1) // 1048576)) AS bucket
    FROM host_step AS s
),
loader AS (
    -- DataLoader fetches clipped to each host step they overlap
    SELECT s.run_id, s.rank, s.step, o.op_id, o.name,
           greatest(o.ts_ns, s.start_ns) AS ts_ns, least(o.ts_ns + o.dur_ns, s.end_ns) AS end_ns
    FROM op AS o
    JOIN host_step AS s
        ON s.run_id = o.run_id AND s.rank = o.rank AND o.ts_ns < s.end_ns AND o.ts_ns + o.dur_ns > s.start_ns
    WHERE o.name LIKE 'enumerate(DataLoader)#%' AND o.dur_ns > 0
),
loader_ordered AS (
    SELECT run_id, rank, step, op_id, name, ts_ns, end_ns,
           max(end_ns) OVER (PARTITION BY run_id, rank, step ORDER BY ts_ns, end_ns, op_id
                             ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING) AS prev_end_ns
    FROM loader
),
loader_step AS (
    SELECT run_id, rank, step, count(*) AS call_count,
           sum(greatest(end_ns - greatest(ts_ns, coalesce(prev_end_ns, ts_ns)), 0)) AS loading_ns,
           max(CASE WHEN name LIKE '%MultiProcessing%' THEN 1 ELSE 0 END) AS multi_process,
           max(CASE WHEN name LIKE '%SingleProcess%' THEN 1 ELSE 0 END) AS single_process
    FROM loader_ordered
    GROUP BY run_id, rank, step
),
loader_island AS (
    -- the fetches' union as islands (for the TensorBoard rule)
    SELECT run_id, rank, step, island, min(ts_ns) AS ts_ns, max(end_ns) AS end_ns
    FROM (
        SELECT run_id, rank, step, ts_ns, end_ns,
               sum(CASE WHEN prev_end_ns IS NULL OR ts_ns > prev_end_ns THEN 1 ELSE 0 END)
                   OVER (PARTITION BY run_id, rank, step ORDER BY ts_ns, end_ns, op_id ROWS UNBOUNDED PRECEDING) AS island
        FROM loader_ordered
    ) AS numbered
    GROUP BY run_id, rank, step, island
),
island_bucket AS (
    SELECT i.*, unnest(generate_series(i.ts_ns // 1048576, (i.end_ns - 1) // 1048576)) AS bucket
    FROM loader_island AS i
    WHERE i.end_ns > i.ts_ns
),
device AS (
    -- device intervals: kernels, communication, copies, memsets
    SELECT run_id, rank, ts_ns, ts_ns + dur_ns AS end_ns FROM kernel WHERE dur_ns > 0
),
device_bucket AS (
    SELECT d.run_id, d.rank, d.ts_ns, d.end_ns,
           unnest(generate_series(d.ts_ns // 1048576, (d.end_ns - 1) // 1048576)) AS bucket
    FROM device AS d
    WHERE (d.run_id, d.rank) IN (SELECT run_id, rank FROM host_step)
),
device_in_step AS (
    SELECT s.run_id, s.rank, s.step, greatest(d.ts_ns, s.start_ns) AS ts_ns, least(d.end_ns, s.end_ns) AS end_ns
    FROM step_bucket AS s
    JOIN device_bucket AS d
        ON d.run_id = s.run_id AND d.rank = s.rank AND d.bucket = s.bucket
    WHERE d.ts_ns < s.end_ns AND d.end_ns > s.start_ns AND s.bucket = greatest(d.ts_ns, s.start_ns) // 1048576
),
device_step AS (
    SELECT run_id, rank, step, sum(greatest(end_ns - greatest(ts_ns, coalesce(prev_end_ns, ts_ns)), 0)) AS busy_ns
    FROM (
        SELECT run_id, rank, step, ts_ns, end_ns,
               max(end_ns) OVER (PARTITION BY run_id, rank, step ORDER BY ts_ns, end_ns
                                 ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING) AS prev_end_ns
        FROM device_in_step
    ) AS ordered
    GROUP BY run_id, rank, step
),
covering AS (
    -- what TensorBoard books before DataLoader: device intervals and runtime calls
    SELECT run_id, rank, ts_ns, end_ns, bucket FROM device_bucket
    WHERE (run_id, rank) IN (SELECT run_id, rank FROM loader_island)
    UNION ALL
    SELECT e.run_id, e.rank, e.ts_ns, e.ts_ns + e.dur_ns,
           unnest(generate_series(e.ts_ns // 1048576, (e.ts_ns + e.dur_ns - 1) // 1048576))
    FROM event AS e
    WHERE e.ph = 'X' AND e.dur_ns > 0
      AND lower(e.cat) IN ('cuda_runtime', 'hip_runtime', 'runtime', 'cuda_driver')
      AND (e.run_id, e.rank) IN (SELECT run_id, rank FROM loader_island)
),
covered AS (
    SELECT i.run_id, i.rank, i.step, i.island, greatest(c.ts_ns, i.ts_ns) AS ts_ns, least(c.end_ns, i.end_ns) AS end_ns
    FROM island_bucket AS i
    JOIN covering AS c
        ON c.run_id = i.run_id AND c.rank = i.rank AND c.bucket = i.bucket
    WHERE c.ts_ns < i.end_ns AND c.end_ns > i.ts_ns AND i.bucket = greatest(c.ts_ns, i.ts_ns) // 1048576
),
covered_step AS (
    SELECT run_id, rank, step, sum(greatest(end_ns - greatest(ts_ns, coalesce(prev_end_ns, ts_ns)), 0)) AS covered_ns
    FROM (
        SELECT run_id, rank, step, ts_ns, end_ns,
               max(end_ns) OVER (PARTITION BY run_id, rank, step, island ORDER BY ts_ns, end_ns
                                 ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING) AS prev_end_ns
        FROM covered
    ) AS ordered
    GROUP BY run_id, rank, step
),
mindspore_step AS (
    SELECT run_id, rank, step, device_start_ns AS start_ns, device_end_ns AS end_ns, fp_ns
    FROM step
    WHERE host_start_ns IS NULL AND fp_ns IS NOT NULL AND device_end_ns > device_start_ns
),
queue_step AS (
    -- device_queue_profiling_{rank}.txt: the device queue when the step's batch was taken
    SELECT run_id, rank, batch AS step, min(queue_size) AS queue_size, max(queue_capacity) AS queue_capacity
    FROM data_queue_record
    WHERE kind = 'queue'
    GROUP BY run_id, rank, batch
),
queue_rank AS (
    SELECT run_id, rank, avg(CASE WHEN queue_size = 0 THEN 1.0 ELSE 0.0 END) AS empty_ratio
    FROM data_queue_record
    WHERE kind = 'queue'
    GROUP BY run_id, rank
),
pipeline_rank AS (
    SELECT r.run_id, w.rank, max(w.queue_empty_ratio) AS empty_ratio
    FROM data_pipeline_wait AS w
    JOIN run AS r
        ON r.run_name = w.run_name
    GROUP BY r.run_id, w.rank
),
blamed AS (
    -- the op data_pipeline_wait blames most often (ties: nearest the device, then lowest id)
    SELECT run_id, rank, op_id
    FROM (
        SELECT r.run_id, w.rank, w.empty_queue_op_id AS op_id, count(*) AS n, min(p.depth) AS depth,
               row_number() OVER (PARTITION BY r.run_id, w.rank
                                  ORDER BY count(*) DESC, min(p.depth), w.empty_queue_op_id) AS pick
        FROM data_pipeline_wait AS w
        JOIN run AS r
            ON r.run_name = w.run_name
        JOIN data_pipeline AS p
            ON p.run_id = r.run_id AND p.rank = w.rank AND p.op_id = w.empty_queue_op_id AND p.sample = w.sample
        WHERE w.device_waited AND w.empty_queue_op_id IS NOT NULL
        GROUP BY r.run_id, w.rank, w.empty_queue_op_id
    ) AS counted
    WHERE pick = 1
),
producer AS (
    SELECT b.run_id, b.rank, b.op_id, any_value(p.op_type) AS op_type, max(p.num_workers) AS num_workers,
           avg(CASE WHEN p.sample > 0 THEN p.throughput_rows_per_ms END) AS throughput_rows_per_ms,
           avg(CASE WHEN p.queue_size = 0 THEN 1.0 ELSE 0.0 END) AS empty_ratio
    FROM blamed AS b
    JOIN data_pipeline AS p
        ON p.run_id = b.run_id AND p.rank = b.rank AND p.op_id = b.op_id
    WHERE p.sample IS NOT NULL
    GROUP BY b.run_id, b.rank, b.op_id
),
steps AS (
    SELECT s.run_id, s.rank, s.step, 'dataloader' AS source, s.end_ns - s.start_ns AS step_ns,
           coalesce(l.loading_ns, 0) AS loading_ns, coalesce(l.call_count, 0) AS call_count,
           coalesce(l.loading_ns, 0) - coalesce(c.covered_ns, 0) AS tb_loading_ns,
           s.device_start_ns - s.start_ns AS preparing_ns, coalesce(d.busy_ns, 0) AS busy_ns,
           CASE WHEN l.multi_process = 1 THEN 'multi_process' WHEN l.single_process = 1 THEN 'single_process' END AS mode
    FROM host_step AS s
    LEFT JOIN loader_step AS l
        ON l.run_id = s.run_id AND l.rank = s.rank AND l.step = s.step
    LEFT JOIN covered_step AS c
        ON c.run_id = s.run_id AND c.rank = s.rank AND c.step = s.step
    LEFT JOIN device_step AS d
        ON d.run_id = s.run_id AND d.rank = s.rank AND d.step = s.step
    UNION ALL
    SELECT run_id, rank, step, 'iteration_interval', end_ns - start_ns, fp_ns - start_ns, NULL, NULL, NULL,
           end_ns - fp_ns, NULL
    FROM mindspore_step
),
thresholds AS (
    SELECT
        max(CASE WHEN name = 'input_bound.dataloader_ratio' THEN value END) AS loader_ratio,
        max(CASE WHEN name = 'input_bound.iteration_interval_ns' THEN value END) AS interval_ns,
        max(CASE WHEN name = 'input_bound.device_queue_empty_ratio' THEN value END) AS queue_empty_ratio
    FROM diagnosis_threshold
)
SELECT
    r.run_name::VARCHAR                                                  AS run_name,                         -- run name
    s.rank::INTEGER                                                      AS rank,                             -- global rank
    s.step::INTEGER                                                      AS step,                             -- step number (ProfilerStep#N; MindSpore step_num)
    s.source::VARCHAR                                                    AS data_loading_source,              -- dataloader (DataLoader fetches within the host step) or iteration_interval (MindSpore step trace)
    s.step_ns::BIGINT                                                    AS step_ns,                          -- the step: host window of ProfilerStep#N, ns; MindSpore: end_point − start_point
    s.loading_ns::BIGINT                                                 AS data_loading_ns,                  -- data loading: union of the DataLoader fetches within the host step, ns; MindSpore: iteration interval fp_point − start_point
    (s.loading_ns / nullif(s.step_ns, 0))::DOUBLE                        AS data_loading_ratio,               -- data_loading_ns / step_ns (Paddle reader_cost / batch_cost)
    s.call_count::BIGINT                                                 AS loader_call_count,                -- DataLoader fetches overlapping the step; NULL for MindSpore
    s.mode::VARCHAR                                                      AS dataloader_mode,                  -- single_process (_SingleProcessDataLoaderIter: num_workers=0, loading on the training thread) or multi_process (_MultiProcessingDataLoaderIter: worker processes); NULL when unnamed or MindSpore
    s.tb_loading_ns::BIGINT                                              AS tb_dataloader_ns,                 -- TensorBoard profiler's DataLoader time: the fetches minus what device intervals and runtime calls overlap, ns; NULL for MindSpore
    s.preparing_ns::BIGINT                                               AS preparing_ns,                     -- first kernel of the step − host step start, ns (step_breakdown.preparing_ns); NULL without kernels or MindSpore
    s.busy_ns::BIGINT                                                    AS device_busy_ns,                   -- union of device intervals (kernels, communication, copies) within the host step, ns; MindSpore: end_point − fp_point
    (s.busy_ns / nullif(s.step_ns, 0))::DOUBLE                           AS device_busy_ratio,                -- device_busy_ns / step_ns: the device's busy share over the step
    (CASE WHEN s.source = 'dataloader' THEN s.loading_ns / nullif(s.step_ns, 0) > t.loader_ratio
          ELSE s.loading_ns > t.interval_ns END)::BOOLEAN                AS is_input_bound,                   -- the verdict: data_loading_ratio above input_bound.dataloader_ratio (DataLoader), iteration interval above input_bound.iteration_interval_ns (MindSpore)
    (CASE WHEN s.source = 'dataloader' THEN 'data_loading_ratio > ' || CAST(t.loader_ratio AS VARCHAR)
          ELSE 'data_loading_ns > ' || CAST(CAST(t.interval_ns AS BIGINT) AS VARCHAR) END)::VARCHAR
                                                                         AS input_bound_rule,                 -- the rule and threshold the verdict applied (diagnosis_threshold)
    q.queue_size::BIGINT                                                 AS device_queue_batch_count,         -- batches in the device queue when the step's batch was taken (device_queue_profiling_{rank}.txt); 0 = empty; NULL without a record
    q.queue_capacity::BIGINT                                             AS device_queue_capacity_count,      -- the device queue's capacity, batches
    qr.empty_ratio::DOUBLE                                               AS device_queue_empty_ratio,         -- share of the rank's device-queue records that found the queue empty (MindInsight empty batches / batches)
    pr.empty_ratio::DOUBLE                                               AS pipeline_queue_empty_ratio,       -- share of the pipeline profile's samples with the device's queue empty (data_pipeline_wait.queue_empty_ratio)
    (coalesce(qr.empty_ratio, pr.empty_ratio) > t.queue_empty_ratio)::BOOLEAN
                                                                         AS data_pipeline_bound,              -- the device queue was empty more often than input_bound.device_queue_empty_ratio (MindInsight's data_process warning); NULL without a MindData profile
    p.op_id::INTEGER                                                     AS producer_op_id,                   -- pipeline op to blame (data_pipeline.op_id): the one data_pipeline_wait names most often when the device waited
    p.op_type::VARCHAR                                                   AS producer_op_type,                 -- its op type (MapOp, ImageFolderOp, BatchOp ...)
    p.num_workers::BIGINT                                                AS producer_worker_count,            -- its worker threads: the num_parallel_workers to raise
    p.throughput_rows_per_ms::DOUBLE                                     AS producer_throughput_rows_per_ms,  -- its average output throughput over the samples after the first, rows per ms (pipeline_profiling throughput)
    p.empty_ratio::DOUBLE                                                AS producer_queue_empty_ratio        -- share of samples its output queue was empty
FROM steps AS s
JOIN run AS r
    ON r.run_id = s.run_id
CROSS JOIN thresholds AS t
LEFT JOIN queue_step AS q
    ON q.run_id = s.run_id AND q.rank = s.rank AND q.step = s.step
LEFT JOIN queue_rank AS qr
    ON qr.run_id = s.run_id AND qr.rank = s.rank
LEFT JOIN pipeline_rank AS pr
    ON pr.run_id = s.run_id AND pr.rank = s.rank
LEFT JOIN producer AS p
    ON p.run_id = s.run_id AND p.rank = s.rank
ORDER BY r.run_name, s.rank, s.step;
