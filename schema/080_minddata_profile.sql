-- MindSpore MindData profile files beyond the queue samples of 060: the per-op throughput of
-- pipeline_profiling_{rank}.json, the device-queue trace (device_queue_profiling_{rank}.txt /
-- dataset_iterator_profiling_{rank}.txt) and the CPU utilisation samples
-- (minddata_cpu_utilization_{rank}.json): what MindInsight's data-preparation and resource pages
-- showed. Read by input_bound and cpu_utilization.

ALTER TABLE data_pipeline ADD COLUMN IF NOT EXISTS throughput_rows_per_ms DOUBLE;
COMMENT ON COLUMN data_pipeline.throughput_rows_per_ms IS 'pipeline_profiling_{rank}.json metrics.output_queue.throughput at the sample: rows the op put into its output queue per ms since the sample before (MindSpore ConnectorThroughput: row-count delta / (1000 x seconds between samples)); NULL when absent (the CSV form, ops without metrics).';

CREATE TABLE IF NOT EXISTS data_queue_record (
    run_id         INTEGER NOT NULL,
    rank           INTEGER NOT NULL,
    file_id        INTEGER NOT NULL,
    line           INTEGER NOT NULL,
    kind           VARCHAR NOT NULL,
    batch          INTEGER,
    time_ms        BIGINT,
    queue_size     BIGINT,
    queue_capacity BIGINT,
    ts_ms          BIGINT,
    source         VARCHAR NOT NULL
);
COMMENT ON TABLE data_queue_record IS 'One row per record of MindSpore''s device-queue trace: device_queue_profiling_{rank}.txt (Ascend / GPU sink mode: the DeviceQueueOp feeding the device) or dataset_iterator_profiling_{rank}.txt (CPU / non-sink mode: the dataset iterator). Each line is "type extra-info batch value timestamp" (MindSpore MinddataProfilingAnalyzer._parse_device_trace_info): type 0 = a time record (extra-info 0 pipeline time, 1 push time, 2 batch time; value in ms), type 1 = a connector (queue) record (extra-info = queue capacity, value = rows in the queue when the batch was taken).';
COMMENT ON COLUMN data_queue_record.run_id IS 'Run (run.run_id).';
COMMENT ON COLUMN data_queue_record.rank IS 'Rank (rank.rank): the {rank} of the file name.';
COMMENT ON COLUMN data_queue_record.file_id IS 'Input file (source_file.file_id).';
COMMENT ON COLUMN data_queue_record.line IS '1-based line of the record in the file.';
COMMENT ON COLUMN data_queue_record.kind IS 'pipeline_time (type 0, extra 0: time to get the batch from the pipeline), push_time (type 0, extra 1: time to push it to the device, TDT), batch_time (type 0, extra 2: time between batches), queue (type 1: a queue-size sample), or unknown (any other type / extra-info, kept as written).';
COMMENT ON COLUMN data_queue_record.batch IS 'Batch number (the step in sink mode; MindInsight assigns CPU samples to steps by it).';
COMMENT ON COLUMN data_queue_record.time_ms IS 'Time records: the value, ms; NULL for queue records.';
COMMENT ON COLUMN data_queue_record.queue_size IS 'Queue records: rows (batches) in the device queue when the batch was taken; 0 = empty, the device waited; NULL for time records.';
COMMENT ON COLUMN data_queue_record.queue_capacity IS 'Queue records: the queue capacity (the extra-info field); NULL for time records.';
COMMENT ON COLUMN data_queue_record.ts_ms IS 'The record''s timestamp field as written (MindSpore ProfilingTime::GetCurMilliSecond, ms on the host clock; the clock of minddata_cpu_utilization time_stamp).';
COMMENT ON COLUMN data_queue_record.source IS 'device_queue_profiling or dataset_iterator_profiling.';

CREATE TABLE IF NOT EXISTS minddata_cpu_sample (
    run_id               INTEGER NOT NULL,
    rank                 INTEGER NOT NULL,
    file_id              INTEGER NOT NULL,
    scope                VARCHAR NOT NULL,
    op_id                INTEGER,
    sample               INTEGER NOT NULL,
    ts_ms                BIGINT,
    user_pct             DOUBLE,
    sys_pct              DOUBLE,
    io_pct               DOUBLE,
    idle_pct             DOUBLE,
    runnable_processes   BIGINT,
    context_switch_count BIGINT,
    cpu_processor_count  INTEGER,
    sampling_interval_ms BIGINT,
    source               VARCHAR NOT NULL
);
COMMENT ON TABLE minddata_cpu_sample IS 'One row per CPU-utilisation sample of minddata_cpu_utilization_{rank}.json (MindSpore dataset CpuSampler::SaveToFile): the whole machine (device_info), the training process (process_info) and each dataset pipeline op (op_info[], summed over the op''s worker threads / processes), every sampling_interval ms. MindInsight''s resource page averaged these per scope and op.';
COMMENT ON COLUMN minddata_cpu_sample.run_id IS 'Run (run.run_id).';
COMMENT ON COLUMN minddata_cpu_sample.rank IS 'Rank (rank.rank): the {rank} of the file name.';
COMMENT ON COLUMN minddata_cpu_sample.file_id IS 'Input file (source_file.file_id).';
COMMENT ON COLUMN minddata_cpu_sample.scope IS 'device (device_info: the whole machine), process (process_info: the training process) or op (op_info: one pipeline op).';
COMMENT ON COLUMN minddata_cpu_sample.op_id IS 'Pipeline op (data_pipeline.op_id) for scope op (-1 = threads of no op, as MindSpore writes them); NULL otherwise.';
COMMENT ON COLUMN minddata_cpu_sample.sample IS '0-based index of the sample (position in the metric lists).';
COMMENT ON COLUMN minddata_cpu_sample.ts_ms IS 'time_stamp[sample]: the sample''s host time, ms (MindSpore ProfilingTime::GetCurMilliSecond); NULL if the file has no time_stamp list.';
COMMENT ON COLUMN minddata_cpu_sample.user_pct IS 'user_utilization at the sample: device: % of all CPUs of the machine (0-100); process and op: % of one CPU summed over the CPUs used (MindSpore multiplies by cpu_processor_num), so 250 = two and a half cores busy.';
COMMENT ON COLUMN minddata_cpu_sample.sys_pct IS 'sys_utilization at the sample, same scale as user_pct.';
COMMENT ON COLUMN minddata_cpu_sample.io_pct IS 'device_info io_utilization (iowait), % of all CPUs; NULL for process and op.';
COMMENT ON COLUMN minddata_cpu_sample.idle_pct IS 'device_info idle_utilization, % of all CPUs; NULL for process and op.';
COMMENT ON COLUMN minddata_cpu_sample.runnable_processes IS 'device_info runnable_process (runable_processes in older files): processes ready to run at the sample; NULL for process and op.';
COMMENT ON COLUMN minddata_cpu_sample.context_switch_count IS 'device_info context_switch_count at the sample; NULL for process and op.';
COMMENT ON COLUMN minddata_cpu_sample.cpu_processor_count IS 'cpu_processor_num: logical CPUs of the machine.';
COMMENT ON COLUMN minddata_cpu_sample.sampling_interval_ms IS 'sampling_interval: ms between samples.';
COMMENT ON COLUMN minddata_cpu_sample.source IS 'minddata_cpu_utilization.';
