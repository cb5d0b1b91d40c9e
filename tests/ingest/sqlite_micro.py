"""Hand-made micro SQLite inputs for the reliability and fuzz tests of issue 40: an Nsight
Systems export (schema of nsys 2025, as tests/nsys/test_nsys.py writes it) and a torch_npu
profiler DB (the tables and columns of tracedb/ingestion/fieldmaps/ascend_db.py), a few rows each.

``expected_kernels`` counts, with Python's sqlite3 and independently of the readers, the
``kernel`` rows each file must give: every activity row of an export; for a profiler DB the
compute tasks (TASK ⋈ COMPUTE_TASK_INFO with both times), the communication ops and the copy
tasks (TASK of type MEMCPY_ASYNC / SDMA_SQE / PCIE_DMA_SQE that no COMPUTE_TASK_INFO lists).
"""
from __future__ import annotations

import sqlite3
from pathlib import Path

GPID = 0x10000000000 + (4242 << 24)       # hardware 1, pid 4242
TID = GPID + 4243


def connect(path: Path) -> sqlite3.Connection:
    """sqlite3 on a test file, without the fsync of every commit (tests write many small files)."""
    con = sqlite3.connect(path)
    con.execute("PRAGMA synchronous = OFF")
    return con


def nsys_export(path: Path, *, wal: bool = False) -> Path:
    """3 kernels (one NCCL), 1 memcpy, 1 memset, 4 runtime calls, 2 NVTX step ranges."""
    con = connect(path)
    if wal:
        con.execute("PRAGMA journal_mode=WAL")
    con.execute("CREATE TABLE StringIds (id INTEGER PRIMARY KEY, value TEXT NOT NULL)")
    con.executemany("INSERT INTO StringIds VALUES (?, ?)", list(enumerate(
        ["add_one", "ncclDevKernel_AllReduce_Sum_f32_RING_LL", "cudaLaunchKernel_v7000", "cudaMemsetAsync_v3020",
         "cudaMemcpyAsync_v3020", "registered text"])))
    con.execute("CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL (start INTEGER, end INTEGER, deviceId INTEGER, "
                "streamId INTEGER, correlationId INTEGER, globalPid INTEGER, demangledName INTEGER, "
                "shortName INTEGER, gridX INTEGER, gridY INTEGER, gridZ INTEGER, blockX INTEGER, blockY INTEGER, "
                "blockZ INTEGER)")
    con.executemany("INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES (?, ?, 1, ?, ?, ?, ?, ?, 8, 1, 1, 128, 1, 1)",
                    [(2000, 3000, 7, 1, GPID, 0, 0), (6000, 6500, 7, 2, GPID, 0, 0), (7000, 8000, 9, 3, GPID, 1, 1)])
    con.execute("CREATE TABLE CUPTI_ACTIVITY_KIND_MEMCPY (start INTEGER, end INTEGER, deviceId INTEGER, "
                "streamId INTEGER, correlationId INTEGER, globalPid INTEGER, bytes INTEGER, copyKind INTEGER)")
    con.execute("INSERT INTO CUPTI_ACTIVITY_KIND_MEMCPY VALUES (1500, 1700, 1, 7, 5, ?, 4096, 1)", [GPID])
    con.execute("CREATE TABLE CUPTI_ACTIVITY_KIND_MEMSET (start INTEGER, end INTEGER, deviceId INTEGER, "
                "streamId INTEGER, correlationId INTEGER, globalPid INTEGER, value INTEGER, bytes INTEGER)")
    con.execute("INSERT INTO CUPTI_ACTIVITY_KIND_MEMSET VALUES (3500, 3600, 1, 7, 4, ?, 0, 64)", [GPID])
    con.execute("CREATE TABLE CUPTI_ACTIVITY_KIND_RUNTIME (start INTEGER, end INTEGER, eventClass INTEGER, "
                "globalTid INTEGER, correlationId INTEGER, nameId INTEGER, returnValue INTEGER)")
    con.executemany("INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES (?, ?, 0, ?, ?, ?, 0)",
                    [(1100, 1150, TID, 1, 2), (5100, 5150, TID, 2, 2), (5200, 5250, TID, 3, 2), (1200, 1210, TID, 4, 3)])
    con.execute("CREATE TABLE NVTX_EVENTS (start INTEGER, end INTEGER, eventType INTEGER, text TEXT, "
                "globalTid INTEGER, textId INTEGER)")
    con.executemany("INSERT INTO NVTX_EVENTS VALUES (?, ?, ?, ?, ?, ?)",
                    [(1000, 5000, 59, "ProfilerStep#1", TID, None), (5000, 9000, 59, "ProfilerStep#2", TID, None),
                     (1050, 1300, 59, None, TID, 5)])
    con.execute("CREATE TABLE TARGET_INFO_SESSION_START_TIME (utcEpochNs INTEGER, utcTime TEXT, localTime TEXT)")
    con.execute("INSERT INTO TARGET_INFO_SESSION_START_TIME VALUES (1700000000000000000, '', '')")
    con.commit()
    con.close()
    return path


def profiler_db(path: Path, *, wal: bool = False) -> Path:
    """2 compute tasks, 1 MEMCPY_ASYNC copy task, 1 communication op, 3 framework ops (one the
    step), 2 memory records, 1 step."""
    path.parent.mkdir(parents=True, exist_ok=True)
    con = connect(path)
    if wal:
        con.execute("PRAGMA journal_mode=WAL")
    strings = ["aclnnAdd_AddAiCore_Add", "Add", "AI_CORE", "KERNEL_AICORE", "MEMCPY_ASYNC", "aten::add",
               "ProfilerStep#1", "hcom_allReduce__1", "hcom_allReduce", "group0", "PTA"]
    con.execute("CREATE TABLE STRING_IDS (id INTEGER PRIMARY KEY, value TEXT)")
    con.executemany("INSERT INTO STRING_IDS VALUES (?, ?)", list(enumerate(strings)))
    con.execute("CREATE TABLE TASK (startNs INTEGER, endNs INTEGER, deviceId INTEGER, connectionId INTEGER, "
                "globalTaskId INTEGER, globalPid INTEGER, taskType INTEGER, contextId INTEGER, streamId INTEGER, "
                "taskId INTEGER, modelId INTEGER)")
    con.executemany("INSERT INTO TASK VALUES (?, ?, 0, ?, ?, 1, ?, 0, 2, ?, 0)",
                    [(1000, 1500, 10, 1, 3, 1), (2000, 2600, 11, 2, 3, 2), (3000, 3100, 12, 3, 4, 3)])
    con.execute("CREATE TABLE COMPUTE_TASK_INFO (name INTEGER, globalTaskId INTEGER, blockDim INTEGER, "
                "mixBlockDim INTEGER, taskType INTEGER, opType INTEGER, inputDataTypes INTEGER, inputShapes INTEGER, "
                "outputDataTypes INTEGER, outputShapes INTEGER)")
    con.executemany("INSERT INTO COMPUTE_TASK_INFO VALUES (0, ?, 8, 0, 2, 1, NULL, NULL, NULL, NULL)", [(1,), (2,)])
    con.execute("CREATE TABLE COMMUNICATION_OP (opName INTEGER, startNs INTEGER, endNs INTEGER, connectionId INTEGER, "
                "groupName INTEGER, opId INTEGER, relay INTEGER, retry INTEGER, dataType INTEGER, algType INTEGER, "
                "count INTEGER, opType INTEGER)")
    con.execute("INSERT INTO COMMUNICATION_OP VALUES (7, 4000, 4800, 13, 9, 0, 0, 0, 0, 0, 1, 8)")
    con.execute("CREATE TABLE PYTORCH_API (startNs TEXT, endNs TEXT, globalTid INTEGER, connectionId INTEGER, "
                "name INTEGER, sequenceNumber INTEGER, fwdThreadId INTEGER, inputDtypes INTEGER, inputShapes INTEGER, "
                "callchainId INTEGER, type INTEGER)")
    con.executemany("INSERT INTO PYTORCH_API VALUES (?, ?, 77, ?, ?, 1, 0, NULL, NULL, NULL, 50001)",
                    [("900", "5000", None, 6), ("950", "1200", 5, 5), ("1900", "2200", 6, 5)])
    con.execute("CREATE TABLE CONNECTION_IDS (id INTEGER, connectionId INTEGER)")
    con.executemany("INSERT INTO CONNECTION_IDS VALUES (?, ?)", [(5, 10), (6, 11)])
    con.execute("CREATE TABLE STEP_TIME (id INTEGER, startNs INTEGER, endNs INTEGER)")
    con.execute("INSERT INTO STEP_TIME VALUES (1, 900, 5000)")
    con.execute("CREATE TABLE META_DATA (name TEXT, value TEXT)")
    con.executemany("INSERT INTO META_DATA VALUES (?, ?)", [("SCHEMA_VERSION", "1.0.0"), ("ENV_VARIABLES", "{}")])
    con.execute("CREATE TABLE MEMORY_RECORD (component INTEGER, timestamp INTEGER, totalAllocated INTEGER, "
                "totalReserved INTEGER, totalActive INTEGER, streamPtr TEXT, deviceId INTEGER)")
    con.executemany("INSERT INTO MEMORY_RECORD VALUES (10, ?, ?, 4096, ?, '123', 0)", [(1000, 512, 512), (2000, 1024, 1024)])
    con.commit()
    con.close()
    return path


def _count(con, sql: str) -> int:
    try:
        return con.execute(sql).fetchone()[0]
    except sqlite3.Error:
        return 0


def expected_kernels(path: Path, fmt: str) -> int:
    """``kernel`` rows the file must give (see the module's docstring)."""
    con = sqlite3.connect(f"file:{path}?mode=ro&immutable=1", uri=True)
    try:
        if fmt == "nsys":
            return sum(_count(con, f"SELECT count(*) FROM {t}") for t in
                       ("CUPTI_ACTIVITY_KIND_KERNEL", "CUPTI_ACTIVITY_KIND_MEMCPY", "CUPTI_ACTIVITY_KIND_MEMSET"))
        compute = _count(con, "SELECT count(*) FROM TASK AS t JOIN COMPUTE_TASK_INFO AS c USING (globalTaskId) "
                              "WHERE t.startNs IS NOT NULL AND t.endNs IS NOT NULL")
        comm = _count(con, "SELECT count(*) FROM COMMUNICATION_OP")
        copy = _count(con, "SELECT count(*) FROM TASK AS t JOIN STRING_IDS AS s ON s.id = t.taskType "
                           "WHERE s.value IN ('MEMCPY_ASYNC', 'SDMA_SQE', 'PCIE_DMA_SQE') AND t.startNs IS NOT NULL "
                           "AND t.endNs IS NOT NULL AND NOT EXISTS (SELECT 1 FROM COMPUTE_TASK_INFO AS c "
                           "WHERE c.globalTaskId = t.globalTaskId)")
        return compute + comm + copy
    finally:
        con.close()


def analysis_db(path: Path) -> Path:
    """torch_npu's analysis.db: 2 StepTraceTime rows (µs), 2 CommAnalyzerTime rows (ms)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    con = connect(path)
    con.execute("CREATE TABLE StepTraceTime (deviceId INTEGER, step TEXT, computing REAL, "
                "communication_not_overlapped REAL, overlapped REAL, communication REAL, free REAL, stage REAL, "
                "bubble REAL, communication_not_overlapped_and_exclude_receive REAL, preparing REAL)")
    con.executemany("INSERT INTO StepTraceTime VALUES (0, ?, ?, 10.5, 2, 12.5, 3.25, 0, 0, 10.5, 1)",
                    [("1", 100.5), ("2", 98.25)])
    con.execute("CREATE TABLE CommAnalyzerTime (hccl_op_name TEXT, group_name TEXT, start_timestamp REAL, "
                "elapse_time REAL, transit_time REAL, wait_time REAL, synchronization_time REAL, idle_time REAL, "
                "step TEXT, type TEXT)")
    con.executemany("INSERT INTO CommAnalyzerTime VALUES (?, 'group0', 1700000000000000.5, 1.5, 1.0, 0.25, 0.25, 0.25, "
                    "'step1', 'collective')", [("hcom_allReduce__1",), ("Total Op Info",)])
    con.commit()
    con.close()
    return path
