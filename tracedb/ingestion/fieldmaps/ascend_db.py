"""Ascend profiler DB (torch_npu ``export_type=db``: ``ascend_pytorch_profiler_{rank}.db``) and
its ``analysis.db``: the SQLite tables and columns the reader takes, with the DuckDB type each
column is read as (data, not code).

Both schema generations in the corpus (2024-09 and 2025-01, META_DATA SCHEMA_VERSION 1.0.0 in
the newer one) have these columns; a column absent from a file is read as NULL, a table absent
from a file as an empty table (e.g. TASK_PMU_INFO is newer, DDR older). Strings are ids into
STRING_IDS; enum codes resolve through the ENUM_* tables. Every ``*Ns``/``timestamp`` column is
integer ns since the epoch (PYTORCH_API declares startNs/endNs TEXT: parsed as integers, exact).
analysis.db's numbers are µs (StepTraceTime) and ms / decimal MB (CommAnalyzer*), stored REAL.
"""
from __future__ import annotations

B, T, D = "BIGINT", "VARCHAR", "DECIMAL(38,9)"

# table → {column: DuckDB type}
PROFILER_DB: dict[str, dict[str, str]] = {
    "STRING_IDS": {"id": B, "value": T},
    "ENUM_API_TYPE": {"id": B, "name": T},
    "ENUM_HCCL_TRANSPORT_TYPE": {"id": B, "name": T},
    "ENUM_HCCL_LINK_TYPE": {"id": B, "name": T},
    "ENUM_HCCL_RDMA_TYPE": {"id": B, "name": T},
    "ENUM_MODULE": {"id": B, "name": T},
    "TASK": {"startNs": B, "endNs": B, "deviceId": B, "connectionId": B, "globalTaskId": B, "globalPid": B,
             "taskType": B, "contextId": B, "streamId": B, "taskId": B, "modelId": B},
    "COMPUTE_TASK_INFO": {"name": B, "globalTaskId": B, "blockDim": B, "mixBlockDim": B, "taskType": B,
                          "opType": B, "inputDataTypes": B, "inputShapes": B, "outputDataTypes": B,
                          "outputShapes": B, "inputFormats": B, "hf32Eligible": T},
    # AI Core PMU counters per task (kernel_pmu_raw; names: fieldmaps/kernel_pmu.py DB_PMU)
    "TASK_PMU_INFO": {"globalTaskId": B, "name": B, "value": "DOUBLE"},
    "COMMUNICATION_OP": {"opName": B, "startNs": B, "endNs": B, "connectionId": B, "groupName": B, "opId": B,
                         "opType": B},
    "COMMUNICATION_TASK_INFO": {"name": B, "globalTaskId": B, "taskType": B, "planeId": B, "groupName": B,
                                "notifyId": T, "rdmaType": B, "srcRank": B, "dstRank": B, "transportType": B,
                                "size": B, "linkType": B, "opId": B},
    "CANN_API": {"startNs": B, "endNs": B, "type": B, "globalTid": B, "connectionId": B, "name": B},
    "PYTORCH_API": {"startNs": B, "endNs": B, "globalTid": B, "connectionId": B, "name": B, "sequenceNumber": B,
                    "fwdThreadId": B, "inputDtypes": B, "inputShapes": B, "type": B},
    "CONNECTION_IDS": {"id": B, "connectionId": B},
    "MEMORY_RECORD": {"component": B, "timestamp": B, "totalAllocated": B, "totalReserved": B, "totalActive": B,
                      "streamPtr": T, "deviceId": B},
    "OP_MEMORY": {"name": B, "size": B, "allocationTime": B, "releaseTime": B, "activeReleaseTime": B,
                  "duration": B, "activeDuration": B, "allocationTotalAllocated": B, "allocationTotalReserved": B,
                  "allocationTotalActive": B, "releaseTotalAllocated": B, "releaseTotalReserved": B,
                  "releaseTotalActive": B, "streamPtr": T, "deviceId": B},
    "NPU_MODULE_MEM": {"moduleId": B, "timestampNs": B, "totalReserved": B, "deviceId": B},
    "STEP_TIME": {"id": B, "startNs": B, "endNs": B},
    "META_DATA": {"name": T, "value": T},
    "NPU_INFO": {"id": B, "name": T},
    "RANK_DEVICE_MAP": {"rankId": B, "deviceId": B},
    "HOST_INFO": {"hostUid": T, "hostName": T},
    # mstx marks and ranges (torch_npu.npu.mstx / mindspore.profiler.mstx, profiler mstx=True)
    "MSTX_EVENTS": {"startNs": B, "endNs": B, "eventType": B, "rangeId": B, "message": B, "globalTid": B,
                    "endGlobalTid": B, "domainId": B, "connectionId": B},
    "ENUM_MSTX_EVENT_TYPE": {"id": B, "name": T},
}

# Columns where CANN writes UINT32_MAX (4294967295) for "none": read as NULL. Level0 exports
# (no HCCL task detail) write it in every COMMUNICATION_TASK_INFO planeId / srcRank; TASK
# contextId / modelId hold it for tasks outside a graph or context (formats.md §0.5). dstRank
# keeps it: there it means "local / on-chip" (link.dst_rank, comm_matrix books it on the self
# link), as the text export's "dst rank" does.
UINT32_NONE = 4294967295
NONE_COLUMNS: dict[str, tuple[str, ...]] = {
    "TASK": ("contextId", "modelId"),
    "COMMUNICATION_TASK_INFO": ("planeId", "srcRank"),
}

# integer ns columns (any table): refused beyond ±2^62 ns (year 2116), so that a start plus a
# duration always fits BIGINT
TIME_COLUMNS = frozenset({"startNs", "endNs", "timestamp", "timestampNs", "allocationTime", "releaseTime",
                          "activeReleaseTime", "duration", "activeDuration"})

# lookup tables: table → its id column, which names one row (a repeated id would repeat every
# row that joins it)
UNIQUE_IDS = {"STRING_IDS": "id", "ENUM_API_TYPE": "id", "ENUM_HCCL_TRANSPORT_TYPE": "id",
              "ENUM_HCCL_LINK_TYPE": "id", "ENUM_HCCL_RDMA_TYPE": "id", "ENUM_MODULE": "id",
              "ENUM_MSTX_EVENT_TYPE": "id"}

# DOUBLE columns (TASK_PMU_INFO.value: ratios, cycles, times, FLOPs): any finite number of this size
DOUBLE_LIMIT = 1e300

# a file holding none of these is not a torch_npu profiler DB
PROFILER_DB_MARKERS = ("TASK", "PYTORCH_API", "STRING_IDS")

# PYTORCH_API.type of framework ops (ENUM_API_TYPE name 'op'; the code when the enum is absent)
API_TYPE_OP = ("op", 50001)
# PYTORCH_API.type of python function rows (with_stack; the nn.Module ones give op.module_path)
API_TYPE_TRACE = ("trace", 50003)
# MSTX_EVENTS.eventType of ranges (ENUM_MSTX_EVENT_TYPE names; the codes when the enum is absent:
# 0 marker, 1 push/pop, 2 start/end, 3 marker_ex)
MSTX_RANGE_TYPES = (("push/pop", 1), ("start/end", 2))

ANALYSIS_DB: dict[str, dict[str, str]] = {
    "StepTraceTime": {"step": T, "computing": D, "communication_not_overlapped": D, "overlapped": D,
                      "communication": D, "free": D, "stage": D, "bubble": D,
                      "communication_not_overlapped_and_exclude_receive": D, "preparing": D, "deviceId": B},
    "CommAnalyzerTime": {"hccl_op_name": T, "group_name": T, "start_timestamp": D, "elapse_time": D,
                         "transit_time": D, "wait_time": D, "synchronization_time": D, "idle_time": D,
                         "step": T, "type": T},
    "CommAnalyzerBandwidth": {"hccl_op_name": T, "group_name": T, "transport_type": T, "transit_size": D,
                              "transit_time": D, "bandwidth": D, "large_packet_ratio": D, "count": D,
                              "step": T, "type": T},
    "CommAnalyzerMatrix": {"hccl_op_name": T, "group_name": T, "src_rank": T, "dst_rank": T,
                           "transport_type": T, "transit_size": D, "transit_time": D, "bandwidth": D,
                           "step": T, "type": T, "op_name": T},
}
ANALYSIS_DB_MARKERS = ("StepTraceTime", "CommAnalyzerTime")
# analysis.db numbers are ms, µs or MB (below 9e12: x 10^6 still fits BIGINT) except this epoch
# µs start (x 1000 into ns)
ANALYSIS_EPOCH_US = frozenset({"start_timestamp"})
EPOCH_US_LIMIT = 9e15
