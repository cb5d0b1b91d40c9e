"""MindSpore MindData pipeline profile (formats.md 8a/8b): ``pipeline_profiling_{rank}.json``
(written by MindSpore's dataset profiler) and ``minddata_pipeline_raw_{rank}.csv`` (MindSpore's
MinddataPipelineParser turns the JSON into it; MindInsight's data-preparation page reads the CSV).
"""
from . import Field

# pipeline_profiling_{rank}.json: {"sampling_interval": ms, "op_info": [{op_id, op_type,
# num_workers, children: [ids], metrics: {output_queue: {length, size: [..], throughput: [..]}}}]}
JSON = {
    "op_id": Field(("op_id",), "int", required=True),
    "op_type": Field(("op_type",), "text"),
    "num_workers": Field(("num_workers",), "int"),
    "children": Field(("children",), "json"),
    "metrics": Field(("metrics",), "json"),
}
JSON_TOP = {"op_info": Field(("op_info",), "json", required=True),
            "sampling_interval": Field(("sampling_interval",), "int")}
QUEUE_SIZE_PATH = "$.output_queue.size"
QUEUE_LENGTH_PATH = "$.output_queue.length"

# minddata_pipeline_raw_{rank}.csv (MindInsight MinddataPipelineAnalyser._col_names)
CSV = {
    "op_id": Field(("op_id",), "int", required=True),
    "op_type": Field(("op_type",), "text"),
    "num_workers": Field(("num_workers",), "int"),
    "queue_size": Field(("output_queue_size",), "json", required=True),   # "[10, 20, 30]"
    "queue_capacity": Field(("output_queue_length",), "int"),
    "sampling_interval": Field(("sample_interval",), "int"),
    "parent_op_id": Field(("parent_id",), "int"),
    "children": Field(("children_id",), "json"),                          # "[2, 3]"
}
