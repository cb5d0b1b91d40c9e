"""MindSpore timeline (``ascend_timeline_display_{rank}.json``, older ``timeline_display_{rank}.json``)
and ``step_trace_point_info[_{device}].json`` (formats.md §0.1, §5.2).

The timeline is a Chrome-trace array with relative ``ts`` (µs from the first record), string or
numeric ``tid`` (the stream of a device op) and no metadata events in MindSpore 0.x–1.x; a
device op carries ``args.type`` (op type) and ``args.fullname`` (scope path, the name
step_trace_point_info.json uses). Lanes named ``stream_{id}_parallel_{k}`` / ``stream_{id}_{k}_…``
(pid 10000 in 0.x) are the step trace's communication intervals; host lanes (pid 9000:
InitData, GetNext, EndOfSequence) have no args.
"""
from . import Field

OP_TYPE = Field(("type",), "text")          # args key of a device op
FULL_NAME = Field(("fullname",), "text")    # args key: scope path of the op
FP_START = Field(("fp_start",), "text", required=True)
BP_END = Field(("bp_end",), "text", required=True)

# communication: the step trace's parallel/stream lanes, and HCCL op types (args.type); derive/035 spells
# these two patterns in its SQL (keep them equal)
COMM_LANE_REGEX = r"^stream_[0-9]+_"
COMM_TYPE_REGEX = r"^(hcom_?)?(allreduce|allgather|reducescatter|broadcast|send|receive|alltoall)"
