"""communication.json / communication_matrix.json JSON keys (formats.md §6.1, §6.2).

Framework shape ``{"step{N}"|"step": {"collective"|"p2p": {op_key: entry}}}`` (torch_npu,
MindSpore) or CANN's flat ``{op_key: entry}`` (``msprof --analyze``). Op keys are
``{op}@{group}``; the totals key is ``Total Op Info`` (framework) or ``Total HCCL Operators``
(CANN). The matrix's ``Op Name`` on top/middle/bottom entries and the aggregated keys exist
from torch_npu 6.0.rc1; ``SIO`` transports only on newer CANN (free text here).
"""
from . import Field

TOTAL_KEYS = ("Total Op Info", "Total HCCL Operators")
KINDS = ("collective", "p2p")
STEP_KEY = r"^step(\d*)$"

TIME_INFO = "Communication Time Info"
BANDWIDTH_INFO = "Communication Bandwidth Info"

# profiler_comm_op column → key inside "Communication Time Info"
TIME_FIELDS = {
    "start_ns": Field(("Start Timestamp(us)",), "us"),      # absent in the totals entries
    "elapse_ns": Field(("Elapse Time(ms)",), "ms"),
    "transit_ns": Field(("Transit Time(ms)",), "ms"),
    "wait_ns": Field(("Wait Time(ms)",), "ms"),
    "synchronization_ns": Field(("Synchronization Time(ms)",), "ms"),
    "idle_ns": Field(("Idle Time(ms)",), "ms"),
    "wait_ratio": Field(("Wait Time Ratio",), "ratio"),
    "synchronization_ratio": Field(("Synchronization Time Ratio",), "ratio"),
}

# profiler_comm_bandwidth column → key inside one transport of "Communication Bandwidth Info"
BANDWIDTH_FIELDS = {
    "transit_size_bytes": Field(("Transit Size(MB)",), "mb_decimal"),
    "transit_ns": Field(("Transit Time(ms)",), "ms"),
    "bandwidth_gbps": Field(("Bandwidth(GB/s)",), "ratio"),      # absent in torch_npu totals
    "large_packet_ratio": Field(("Large Packet Ratio",), "ratio"),
    "packet_count": Field(("Size Distribution",), "json"),             # {size_mb: [count, ms]}
}

# profiler_comm_matrix column → key of one link entry ("{src}-{dst}": {...})
MATRIX_FIELDS = {
    "transport_type": Field(("Transport Type",), "text"),
    "transit_size_bytes": Field(("Transit Size(MB)",), "mb_decimal"),
    "transit_ns": Field(("Transit Time(ms)",), "ms"),
    "bandwidth_gbps": Field(("Bandwidth(GB/s)",), "ratio"),
    "link_op_name": Field(("Op Name",), "text", since="torch_npu 6.0.rc1"),
}
LINK_KEY = r"\s*(\d+)\s*-\s*(\d+)\s*"
