"""MindSpore ``hccl_raw_{rank}.csv`` (formats.md §6.5): one row per step + a '-' average row.
MindSpore 1.x–2.2. ``communication_operator_cost`` holds JSON:
``{op: [step, cost_ms, wait_ms, {"src-dst": {"SDMA"|"RDMA": [time_ms, size_KB, bandwidth, (wait_ms)]}}]}``
with KB = 1000 B.
"""
from . import Field

FIELDS = {
    "step": Field(("step_num",), "int", required=True),
    "op_cost": Field(("communication_operator_cost",), "json", required=True),
    "communication_cost": Field(("communication_cost",), "ms"),     # not read: per-step sums
    "wait_cost": Field(("wait_cost",), "ms"),
    "link_info": Field(("link_info",), "json"),
}

# positions inside one op's list and one transport's list
OP_STEP, OP_LINKS = 0, 3
LINK_TIME_MS, LINK_SIZE_KB = 0, 1
SIZE_KB_BYTES = 1000
