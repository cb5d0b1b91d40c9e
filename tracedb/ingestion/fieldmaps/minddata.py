"""MindSpore MindData pipeline profile (formats.md 8a/8b): ``pipeline_profiling_{rank}.json``
(written by MindSpore's dataset profiler) and ``minddata_pipeline_raw_{rank}.csv`` (MindSpore's
MinddataPipelineParser turns the JSON into it; MindInsight's data-preparation page reads the CSV).
"""
from . import Field

# pipeline_profiling_{rank}.json: {"sampling_interval": ms, "op_info": [{op_id, op_type,
# num_workers, children: [ids], metrics: {output_queue: {length, size: [..], throughput: [..]}}}]}
JSON = {
    "id": Field(("op_id",), "int", required=True),
    "type": Field(("op_type",), "text"),
    "workers": Field(("num_workers",), "int"),
    "child_ids": Field(("children",), "json"),
    "queue_metrics": Field(("metrics",), "json"),
}
JSON_TOP = {"ops": Field(("op_info",), "json", required=True),
            "interval_ms": Field(("sampling_interval",), "int")}
QUEUE_SIZE_PATH = "$.output_queue.size"
QUEUE_LENGTH_PATH = "$.output_queue.length"
QUEUE_THROUGHPUT_PATH = "$.output_queue.throughput"   # rows per ms, one per sample (absent in old files)

# minddata_pipeline_raw_{rank}.csv (MindInsight MinddataPipelineAnalyser._col_names)
CSV = {
    "id": Field(("op_id",), "int", required=True),
    "type": Field(("op_type",), "text"),
    "workers": Field(("num_workers",), "int"),
    "queue_size": Field(("output_queue_size",), "json", required=True),   # "[10, 20, 30]"
    "queue_capacity": Field(("output_queue_length",), "int"),
    "interval_ms": Field(("sample_interval",), "int"),
    "parent_op_id": Field(("parent_id",), "int"),
    "child_ids": Field(("children_id",), "json"),                          # "[2, 3]"
}

# device_queue_profiling_{rank}.txt / dataset_iterator_profiling_{rank}.txt: one record per line,
# "type extra-info batch value timestamp" (MindSpore MinddataProfilingAnalyzer
# ._parse_device_trace_info reads the first five integers of each line)
QUEUE_FIELDS = 5
QUEUE_TIME_KINDS = {0: "pipeline_time", 1: "push_time", 2: "batch_time"}   # type 0: extra-info -> kind
QUEUE_SOURCES = {"device_queue_profiling": "device_queue_profiling",
                 "dataset_iterator_profiling": "dataset_iterator_profiling"}

# minddata_cpu_utilization_{rank}.json (MindSpore CpuSampler::SaveToFile): {"cpu_processor_num",
# "device_info": {user_utilization, sys_utilization, io_utilization, idle_utilization,
# runnable_process (runable_processes before MindSpore 1.6), context_switch_count: [..]},
# "process_info": {user_utilization, sys_utilization}, "op_info": [{op_id, metrics:
# {user_utilization, sys_utilization}}], "sampling_interval": ms, "time_stamp": [ms]}
CPU_TOP = {
    "cpus": Field(("cpu_processor_num",), "int"),
    "device": Field(("device_info",), "json"),
    "process": Field(("process_info",), "json"),
    "ops": Field(("op_info",), "json"),
    "interval_ms": Field(("sampling_interval",), "int"),
    "time_stamp": Field(("time_stamp",), "json"),
}
CPU_USER, CPU_SYS, CPU_IO, CPU_IDLE = "user_utilization", "sys_utilization", "io_utilization", "idle_utilization"
CPU_RUNNABLE = ("runnable_process", "runable_processes")     # newer name first
CPU_CONTEXT_SWITCH = "context_switch_count"
