"""MindSpore ``step_trace_raw_{rank}_detail_time.csv`` (formats.md §5): 10 ns device-counter
ticks. MindSpore 1.x–2.2 (the file is gone from 2.3 on). The last row is the average
(``step_num`` '-', '0' in old files). Inference files have no ``bp_point``.

Communication ops come as column triples ``{op}``, ``{op}_start_point``, ``{op}_end_point``
(both orders seen): matched by the suffixes.
"""
from . import Field

FIELDS = {
    "step": Field(("step_num",), "int", required=True),
    "start_ns": Field(("start_point",), "ticks", required=True),
    "end_ns": Field(("end_point",), "ticks", required=True),
    "fp_ns": Field(("fp_point",), "ticks"),
    "bp_ns": Field(("bp_point",), "ticks"),                 # absent in inference files
}
COMM_START_SUFFIX = "_start_point"
COMM_END_SUFFIX = "_end_point"
