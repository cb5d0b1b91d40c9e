-- data_pipeline_wait — for each queue sample of a MindSpore dataset pipeline: whether the device
-- waited for data (the queue feeding it was empty) and which op's output queue ran dry.
-- Grain:     one row per (run, rank, sample) of data_pipeline: the pipeline profile samples its
--            queues every sampling_interval_ms; it carries samples, not steps.
-- Source:    data_pipeline: pipeline_profiling_{rank}.json op_info[].metrics.output_queue
--            (size samples, length), or minddata_pipeline_raw_{rank}.csv output_queue_size /
--            output_queue_length. The device queue is the output queue of the op nearest the
--            device that has queue samples (the root, DeviceQueueOp / EpochCtrlOp, has none).
-- Reference: MindInsight's data-preparation page (minddata_analyser.py): a batch taken from an
--            empty device queue is an empty batch; the data pipeline is the bottleneck
--            ("data_process" warning) when empty batches exceed 30 % of all
--            (DEVICE_QUEUE_EMPTY_WARNING_THRESHOLD = 0.3). The op to blame follows its pipeline
--            page (minddata_pipeline_analyser.py: an op whose child queues are fuller than its own
--            is slow; a source op with an empty queue is slow), applied per sample: the op
--            nearest the device whose output queue is empty while every child queue holds data,
--            or an empty source (leaf) op.
-- Units:     *_count batches; *_ns integer nanoseconds from the first sample; *_ratio 0..1.
CREATE OR REPLACE VIEW data_pipeline_wait AS
WITH q AS (
    SELECT run_id, rank, op_id, op_type, parent_op_id, children_op_ids, depth, sample, queue_size,
           queue_capacity, sampling_interval_ms
    FROM data_pipeline
    WHERE sample IS NOT NULL
),
feed_op AS (
    -- the queue the device takes its batches from: the sampled op with the smallest depth
    SELECT run_id, rank, op_id, op_type
    FROM (
        SELECT run_id, rank, op_id, op_type,
               row_number() OVER (PARTITION BY run_id, rank ORDER BY depth NULLS LAST, op_id) AS n
        FROM (SELECT DISTINCT run_id, rank, op_id, op_type, depth FROM q) AS ops
    ) AS ranked
    WHERE n = 1
),
feed AS (
    SELECT q.run_id, q.rank, q.sample, q.op_id, f.op_type, q.queue_size, q.queue_capacity,
           q.sample * q.sampling_interval_ms * 1000000 AS sample_offset_ns
    FROM q
    JOIN feed_op AS f
        ON f.run_id = q.run_id AND f.rank = q.rank AND f.op_id = q.op_id
),
child_min AS (
    -- the emptiest child queue of each op at each sample
    SELECT run_id, rank, parent_op_id AS op_id, sample, min(queue_size) AS min_child_size
    FROM q
    WHERE parent_op_id IS NOT NULL
    GROUP BY run_id, rank, parent_op_id, sample
),
culprit AS (
    SELECT run_id, rank, sample, op_id, op_type
    FROM (
        SELECT q.run_id, q.rank, q.sample, q.op_id, q.op_type,
               row_number() OVER (PARTITION BY q.run_id, q.rank, q.sample ORDER BY q.depth NULLS LAST, q.op_id) AS n
        FROM q
        LEFT JOIN child_min AS c
            ON c.run_id = q.run_id AND c.rank = q.rank AND c.op_id = q.op_id AND c.sample = q.sample
        WHERE q.queue_size = 0 AND (q.children_op_ids IS NULL OR c.min_child_size > 0)
    ) AS ranked
    WHERE n = 1
),
waits AS (
    SELECT f.*,
           f.queue_size = 0 AS device_waited,
           avg(CASE WHEN f.queue_size = 0 THEN 1.0 ELSE 0.0 END) OVER (PARTITION BY f.run_id, f.rank)
               AS queue_empty_ratio
    FROM feed AS f
)
SELECT
    r.run_name::VARCHAR                                              AS run_name,               -- run name
    w.rank::INTEGER                                                  AS rank,                   -- global rank ({rank} of the file name)
    w.sample::INTEGER                                                AS sample,                 -- 0-based queue sample
    w.sample_offset_ns::BIGINT                                       AS sample_offset_ns,       -- sample x sampling_interval_ms, as ns from the first sample
    w.op_id::INTEGER                                                 AS device_queue_op_id,     -- op whose output queue feeds the device
    w.op_type::VARCHAR                                               AS device_queue_op_type,   -- its op type (BatchOp, ...)
    w.queue_size::BIGINT                                             AS device_queue_batch_count,     -- batches waiting in the device queue at the sample (output_queue size)
    w.queue_capacity::BIGINT                                         AS device_queue_capacity_count,  -- batches the device queue holds when full (output_queue length)
    w.device_waited::BOOLEAN                                         AS device_waited,          -- TRUE when the device queue was empty: the device waited for data
    (CASE WHEN w.device_waited THEN c.op_id END)::INTEGER            AS empty_queue_op_id,      -- when the device waited: the op to blame (empty output queue, children holding data, or an empty source)
    (CASE WHEN w.device_waited THEN c.op_type END)::VARCHAR          AS empty_queue_op_type,    -- its op type
    w.queue_empty_ratio::DOUBLE                                      AS queue_empty_ratio,      -- share of the rank's samples with an empty device queue (MindInsight empty batches / total)
    (w.queue_empty_ratio > 0.3)::BOOLEAN                             AS data_pipeline_bound     -- MindInsight's data_process warning: empty ratio above 0.3, the data pipeline is the bottleneck
FROM waits AS w
JOIN run AS r
    ON r.run_id = w.run_id
LEFT JOIN culprit AS c
    ON c.run_id = w.run_id AND c.rank = w.rank AND c.sample = w.sample;
