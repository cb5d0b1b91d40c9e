"""Nsight Systems SQLite export (``nsys export --type sqlite``) → ``kernel`` / ``event``.

NVIDIA documents the export schema (Nsight Systems User Guide, "SQLite Schema Reference");
every table holds integer ns timestamps on the session clock and interns names in
``StringIds(id, value)``. Maps: our column → the export's column in each table (preferred
name first). Columns that appeared in later schema generations are optional (``since``); a
file without them gets NULL. The corpus export is nsys 2025.5.2, schema 3.24.0
(``META_DATA_EXPORT.EXPORT_SCHEMA_VERSION``); older exports (before nsys 2021.x, schema 2.x)
have no ``TARGET_INFO_SESSION_START_TIME``, no ``ENUM_*`` tables and no ``NVTX_EVENTS.textId``
(the text is inline), and ``META_DATA_EXPORT`` may be missing altogether.
"""
from . import Field

KERNEL_TABLE = "CUPTI_ACTIVITY_KIND_KERNEL"
MEMCPY_TABLE = "CUPTI_ACTIVITY_KIND_MEMCPY"
MEMSET_TABLE = "CUPTI_ACTIVITY_KIND_MEMSET"
RUNTIME_TABLE = "CUPTI_ACTIVITY_KIND_RUNTIME"
NVTX_TABLE = "NVTX_EVENTS"
STRINGS_TABLE = "StringIds"
SESSION_START_TABLE = "TARGET_INFO_SESSION_START_TIME"   # utcEpochNs: the session's time 0, UTC epoch ns
COPY_KIND_ENUM = "ENUM_CUDA_MEMCPY_OPER"
EXPORT_META_TABLE = "META_DATA_EXPORT"                   # (name, value) rows
EXPORT_SCHEMA_VERSION = "EXPORT_SCHEMA_VERSION"          # e.g. 3.24.0
EXPORT_PRODUCT_VERSION = "EXPORT_PRODUCT_VERSION"        # e.g. 2025.5.2.266

# fields whose integer is a StringIds id: the reader resolves them to the string
STRING_ID_FIELDS = frozenset({"name", "short_name", "text_id"})
SESSION_START = Field(("utcEpochNs",), "int")            # TARGET_INFO_SESSION_START_TIME column

# columns every GPU activity table (kernel, memcpy, memset) has
ACTIVITY = {
    "start": Field(("start",), "int", required=True),
    "end": Field(("end",), "int", required=True),
    "device": Field(("deviceId",), "int", required=True),
    "stream": Field(("streamId",), "int", required=True),
    "correlation": Field(("correlationId",), "int", required=True),
    "global_pid": Field(("globalPid",), "int"),
}
KERNEL = {
    **ACTIVITY,
    "name": Field(("demangledName", "shortName"), "int", required=True),
    "short_name": Field(("shortName",), "int"),
    "grid_x": Field(("gridX",), "int"), "grid_y": Field(("gridY",), "int"), "grid_z": Field(("gridZ",), "int"),
    "block_x": Field(("blockX",), "int"), "block_y": Field(("blockY",), "int"), "block_z": Field(("blockZ",), "int"),
}
COPY = {
    **ACTIVITY,
    "bytes": Field(("bytes",), "int", required=True),
    "copy_kind": Field(("copyKind",), "int"),        # memcpy only: ENUM_CUDA_MEMCPY_OPER id
    "src_kind": Field(("srcKind",), "int"),          # memcpy only: ENUM_CUDA_MEM_KIND id (Pageable, Pinned ...)
    "dst_kind": Field(("dstKind",), "int"),
}
RUNTIME = {
    "start": Field(("start",), "int", required=True),
    "end": Field(("end",), "int", required=True),
    "global_tid": Field(("globalTid",), "int", required=True),
    "correlation": Field(("correlationId",), "int", required=True),
    "name": Field(("nameId",), "int", required=True),
}
NVTX = {
    "start": Field(("start",), "int", required=True),
    "end": Field(("end",), "int"),
    "event_type": Field(("eventType",), "int", required=True),
    "text": Field(("text",), "text"),
    "text_id": Field(("textId",), "int"),   # registered strings (not in the oldest exports)
    "global_tid": Field(("globalTid",), "int"),
    "domain": Field(("domainId",), "int"),
}
# NVTX_EVENTS.eventType (ENUM_NSYS_EVENT_TYPE): ranges and marks
NVTX_RANGE_TYPES = (59, 60, 70, 71)    # NvtxPushPopRange, NvtxStartEndRange, Nvtxt* forms
NVTX_MARK_TYPES = (34, 65)             # NvtxMark, NvtxtMark

# OS runtime calls (nsys profile -t osrt): pthread_mutex_lock, sem_wait, poll, read, ioctl ...
OSRT_TABLE = "OSRT_API"
OSRT = {
    "start": Field(("start",), "int", required=True),
    "end": Field(("end",), "int", required=True),
    "global_tid": Field(("globalTid",), "int", required=True),
    "name": Field(("nameId",), "int", required=True),
}
# thread scheduling (nsys profile --cpuctxsw): one row per schedule-in / schedule-out of a thread;
# threadState / threadBlock (the state and reason a schedule-out recorded) since nsys 2023.x
SCHED_TABLE = "SCHED_EVENTS"
SCHED = {
    "start": Field(("start",), "int", required=True),
    "cpu": Field(("cpu",), "int"),
    "sched_in": Field(("isSchedIn",), "int", required=True),
    "global_tid": Field(("globalTid",), "int", required=True),
    "state": Field(("threadState",), "int"),
    "block": Field(("threadBlock",), "int"),
}
THREAD_STATE_ENUM = "ENUM_SAMPLING_THREAD_STATE"     # id → label (Running, Interruptible ...)
THREAD_BLOCK_ENUM = "ENUM_SCHEDULING_THREAD_BLOCK"   # id → label (Mutex, CondVar, Nanosleep ...)
THREAD_NAMES_TABLE = "ThreadNames"                   # (nameId, priority, globalTid)
THREAD_NAMES = {     # names only: a table without these columns gives threads no name
    "global_tid": Field(("globalTid",), "int"),
    "name": Field(("nameId",), "int"),
}
MEM_KIND_ENUM = "ENUM_CUDA_MEM_KIND"                 # id → label (Pageable, Pinned, Device ...)
# ENUM_CUDA_MEM_KIND ids (Nsight's CUDA_MEMOPR_MEMORY_KIND_*, as the corpus export's enum table
# lists them) when the file has no enum table
MEM_KINDS = {0: "Pageable", 1: "Pinned", 2: "Device", 3: "Array", 4: "Managed", 5: "Device Static",
             6: "Managed Static", 7: "Unknown"}

# ENUM_CUDA_MEMCPY_OPER id → kernel.copy_kind (the CUPTI memcpy kind; used when the file has
# no enum table): 1 HTOD, 2 DTOH, 8 DTOD, 9 HTOH, 10 PTOP; array and unified-memory kinds
# map to the direction they move data in.
COPY_KINDS = {1: "HtoD", 2: "DtoH", 3: "HtoD", 4: "DtoH", 5: "DtoD", 6: "DtoD", 7: "DtoD", 8: "DtoD",
              9: "HtoH", 10: "PtoP", 11: "HtoD", 12: "DtoH", 13: "DtoD"}

# steps: NVTX ranges named like this (RE2; group 1 = step number) unless
# ``tracedb ingest --step-range-pattern`` says otherwise
DEFAULT_STEP_PATTERN = r"^ProfilerStep#(\d+)$"
