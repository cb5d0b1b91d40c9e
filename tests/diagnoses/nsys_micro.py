"""A micro Nsight Systems SQLite export (schema of nsys 2025.x) drawn as a timeline, for the
diagnosis views (range_time, sync_copy, host_thread_state, host_wait's launch_thread_call).

Times are ns on the session clock; the session starts at EPOCH (utcEpochNs), so tracedb's ts_ns
= EPOCH + the numbers below. Thread T1 (pid 42, tid 100, "python") launches everything; thread
T2 (tid 101, "pt_data_worker") only reads and sleeps.

T1 NVTX  |ProfilerStep#1 1000..20000 ........................................||ProfilerStep#2 20000..30000|
         | forward 1100..6000            || optimizer 6000..12000 |            |  layer1 21000..22000 |
         |  layer1 1200..3000 |                                               unclosed 15000.. (no end)
T1 calls  c1 1300..1400  c2 2000..2100  c3 4000..4100  c9 5950..6050 (straddles forward/optimizer)
          c4 cudaMemcpyAsync 6500..6600  c5 7000..7050  c6 7100..7150  c7 7200..7250
          c8 cudaStreamSynchronize 7300..7900   pthread_mutex_lock 8200..9000   c12 9000..9050
          c10 cudaMemcpy 13000..14000   c11 21100..21200
stream 7  K1 2000..2500 K2 2600..2700 K3 4200..5200 K4 7800..7810 K5 7820..7830 K6 7840..7850
          K7 8000..8100 K9 9100..9200 K8 21500..21900
stream 8  M1 memcpy HtoD Pageable->Device 6700..7700 (c4)   M2 memcpy DtoH Device->Pinned 13100..13900 (c10)
T2 NVTX   loader 1000..9000 (launches nothing)
T2 calls  read 1000..5000, nanosleep 5000..8000
sched T1  in cpu0 1000, out 8200 (Interruptible, Mutex), in cpu1 9000, out 20000 (Running: preempted), in 20100
sched T2  in cpu2 1000, out 1500 (Uninterruptible, PageIn), in cpu2 5000, out 5100 (Interruptible, Nanosleep), in 8000
"""
from __future__ import annotations

import sqlite3
from pathlib import Path

EPOCH = 1_700_000_000_000_000_000
PID, T1, T2 = 42, 100, 101
GTID1, GTID2 = (PID << 24) | T1, (PID << 24) | T2
GPID = PID << 24

STRINGS = ["python", "pt_data_worker", "k_gemm", "k_elementwise", "cudaLaunchKernel_v7000", "cudaMemcpyAsync_v3020",
           "cudaStreamSynchronize_v3020", "cudaMemcpy_v3020", "pthread_mutex_lock", "read", "nanosleep"]
SID = {s: i for i, s in enumerate(STRINGS)}

# (name, start, end, gtid); end None = never closed
NVTX = [("ProfilerStep#1", 1000, 20000, GTID1), ("forward", 1100, 6000, GTID1), ("layer1", 1200, 3000, GTID1),
        ("optimizer", 6000, 12000, GTID1), ("unclosed", 15000, None, GTID1), ("ProfilerStep#2", 20000, 30000, GTID1),
        ("layer1", 21000, 22000, GTID1), ("loader", 1000, 9000, GTID2)]
# (correlation, call name, start, end)
CALLS = [(1, "cudaLaunchKernel_v7000", 1300, 1400), (2, "cudaLaunchKernel_v7000", 2000, 2100),
         (3, "cudaLaunchKernel_v7000", 4000, 4100), (4, "cudaMemcpyAsync_v3020", 6500, 6600),
         (5, "cudaLaunchKernel_v7000", 7000, 7050), (6, "cudaLaunchKernel_v7000", 7100, 7150),
         (7, "cudaLaunchKernel_v7000", 7200, 7250), (8, "cudaStreamSynchronize_v3020", 7300, 7900),
         (9, "cudaLaunchKernel_v7000", 5950, 6050), (10, "cudaMemcpy_v3020", 13000, 14000),
         (11, "cudaLaunchKernel_v7000", 21100, 21200), (12, "cudaLaunchKernel_v7000", 9000, 9050)]
# (correlation, kernel name, start, end) on stream 7
KERNELS = [(1, "k_gemm", 2000, 2500), (2, "k_elementwise", 2600, 2700), (3, "k_gemm", 4200, 5200),
           (5, "k_elementwise", 7800, 7810), (6, "k_elementwise", 7820, 7830), (7, "k_elementwise", 7840, 7850),
           (9, "k_gemm", 8000, 8100), (12, "k_gemm", 9100, 9200), (11, "k_gemm", 21500, 21900)]
# (correlation, start, end, bytes, copyKind, srcKind, dstKind) on stream 8: ENUM_CUDA_MEMCPY_OPER 1 HtoD / 2 DtoH;
# ENUM_CUDA_MEM_KIND 0 Pageable, 1 Pinned, 2 Device
COPIES = [(4, 6700, 7700, 4096, 1, 0, 2), (10, 13100, 13900, 8192, 2, 2, 1)]
OSRT = [("pthread_mutex_lock", 8200, 9000, GTID1), ("read", 1000, 5000, GTID2), ("nanosleep", 5000, 8000, GTID2)]
# (start, cpu, isSchedIn, gtid, threadState, threadBlock): states 1 Running, 2 Interruptible, 3 Uninterruptible;
# blocks 4 Nanosleep, 6 Mutex, 21 PageIn
SCHED = [(1000, 0, 1, GTID1, 1, 0), (8200, 0, 0, GTID1, 2, 6), (9000, 1, 1, GTID1, 1, 0), (20000, 1, 0, GTID1, 1, 0),
         (20100, 1, 1, GTID1, 1, 0),
         (1000, 2, 1, GTID2, 1, 0), (1500, 2, 0, GTID2, 3, 21), (5000, 2, 1, GTID2, 1, 0), (5100, 2, 0, GTID2, 2, 4),
         (8000, 2, 1, GTID2, 1, 0)]


def write(path: Path) -> Path:
    con = sqlite3.connect(path)
    x = con.execute
    x("CREATE TABLE StringIds (id INTEGER PRIMARY KEY, value TEXT NOT NULL)")
    con.executemany("INSERT INTO StringIds VALUES (?, ?)", [(i, s) for s, i in SID.items()])
    x("CREATE TABLE TARGET_INFO_SESSION_START_TIME (utcEpochNs INTEGER, utcTime TEXT, localTime TEXT)")
    x("INSERT INTO TARGET_INFO_SESSION_START_TIME VALUES (?, '', '')", [EPOCH])
    x("CREATE TABLE ThreadNames (nameId INTEGER, priority INTEGER, globalTid INTEGER)")
    con.executemany("INSERT INTO ThreadNames VALUES (?, 20, ?)", [(SID["python"], GTID1), (SID["pt_data_worker"], GTID2)])
    x("CREATE TABLE NVTX_EVENTS (start INTEGER, end INTEGER, eventType INTEGER, text TEXT, globalTid INTEGER, "
      "endGlobalTid INTEGER, textId INTEGER, domainId INTEGER)")
    con.executemany("INSERT INTO NVTX_EVENTS VALUES (?, ?, 59, ?, ?, NULL, NULL, 0)",
                    [(s, e, n, g) for n, s, e, g in NVTX])
    x("CREATE TABLE CUPTI_ACTIVITY_KIND_RUNTIME (start INTEGER, end INTEGER, eventClass INTEGER, globalTid INTEGER, "
      "correlationId INTEGER, nameId INTEGER, returnValue INTEGER, callchainId INTEGER)")
    con.executemany("INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES (?, ?, 0, ?, ?, ?, 0, NULL)",
                    [(s, e, GTID1, c, SID[n]) for c, n, s, e in CALLS])
    x("CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL (start INTEGER, end INTEGER, deviceId INTEGER, contextId INTEGER, "
      "streamId INTEGER, correlationId INTEGER, globalPid INTEGER, demangledName INTEGER, shortName INTEGER, "
      "gridX INTEGER, gridY INTEGER, gridZ INTEGER, blockX INTEGER, blockY INTEGER, blockZ INTEGER)")
    con.executemany("INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES (?, ?, 0, 1, 7, ?, ?, ?, ?, 1, 1, 1, 128, 1, 1)",
                    [(s, e, c, GPID, SID[n], SID[n]) for c, n, s, e in KERNELS])
    x("CREATE TABLE CUPTI_ACTIVITY_KIND_MEMCPY (start INTEGER, end INTEGER, deviceId INTEGER, contextId INTEGER, "
      "streamId INTEGER, correlationId INTEGER, globalPid INTEGER, bytes INTEGER, copyKind INTEGER, srcKind INTEGER, "
      "dstKind INTEGER)")
    con.executemany("INSERT INTO CUPTI_ACTIVITY_KIND_MEMCPY VALUES (?, ?, 0, 1, 8, ?, ?, ?, ?, ?, ?)",
                    [(s, e, c, GPID, b, k, sk, dk) for c, s, e, b, k, sk, dk in COPIES])
    x("CREATE TABLE ENUM_CUDA_MEM_KIND (id INTEGER, name TEXT, label TEXT)")
    con.executemany("INSERT INTO ENUM_CUDA_MEM_KIND VALUES (?, '', ?)", [(0, "Pageable"), (1, "Pinned"), (2, "Device")])
    x("CREATE TABLE OSRT_API (start INTEGER, end INTEGER, eventClass INTEGER, globalTid INTEGER, nameId INTEGER, "
      "returnValue INTEGER, nestingLevel INTEGER, callchainId INTEGER, argumentsId INTEGER)")
    con.executemany("INSERT INTO OSRT_API VALUES (?, ?, 27, ?, ?, 0, 0, 0, 0)",
                    [(s, e, g, SID[n]) for n, s, e, g in OSRT])
    x("CREATE TABLE SCHED_EVENTS (start INTEGER, cpu INTEGER, isSchedIn INTEGER, globalTid INTEGER, "
      "threadState INTEGER, threadBlock INTEGER)")
    con.executemany("INSERT INTO SCHED_EVENTS VALUES (?, ?, ?, ?, ?, ?)", SCHED)
    x("CREATE TABLE ENUM_SAMPLING_THREAD_STATE (id INTEGER, name TEXT, label TEXT)")
    con.executemany("INSERT INTO ENUM_SAMPLING_THREAD_STATE VALUES (?, ?, ?)",
                    [(1, "Running", "Running"), (2, "Interruptible", "Interruptible"),
                     (3, "Uninterruptible", "Uninterruptible")])
    x("CREATE TABLE ENUM_SCHEDULING_THREAD_BLOCK (id INTEGER, name TEXT, label TEXT)")
    con.executemany("INSERT INTO ENUM_SCHEDULING_THREAD_BLOCK VALUES (?, ?, ?)",
                    [(0, "NonBlocked", "NonBlocked"), (4, "Nanosleep", "Nanosleep"), (6, "Mutex", "Mutex"),
                     (21, "PageIn", "PageIn")])
    con.commit()
    con.close()
    return path
