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
