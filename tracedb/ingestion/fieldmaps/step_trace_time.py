"""step_trace_time.csv (formats.md §4) → ``profiler_step_trace``: every value µs (exact ns).

Header names are matched exactly. ``Device_id`` was added mid-2025 (torch_npu 7.1.0 line);
``Preparing`` from torch_npu v2.1.0-6.0.0; MindSpore >= 2.4 writes the torch_npu header
without ``Device_id`` and one row with Step "0".
"""
from . import Field

STEP = Field(("Step",), "int", required=True)             # empty when there is no step info
DEVICE = Field(("Device_id",), "int", since="torch_npu 7.1.0")

# profiler_step_trace column → field (in the table's column order)
FIELDS = {
    "computing_ns": Field(("Computing",), "us", required=True),
    "communication_not_overlapped_ns": Field(("Communication(Not Overlapped)",), "us", required=True),
    "overlapped_ns": Field(("Overlapped",), "us"),
    "communication_ns": Field(("Communication",), "us"),
    "free_ns": Field(("Free",), "us", required=True),
    "stage_ns": Field(("Stage",), "us"),
    "bubble_ns": Field(("Bubble",), "us"),
    "communication_not_overlapped_exclude_receive_ns": Field(
        ("Communication(Not Overlapped and Exclude Receive)",), "us"),
    "preparing_ns": Field(("Preparing",), "us", since="torch_npu 6.0.0"),
}
