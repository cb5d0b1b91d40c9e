"""Write a synthetic Nsight Systems SQLite export for ingest benchmarks (the corpus export has
3 kernels). SQLite generates the rows itself (recursive CTE), in the current export's table
layout: N activities on 4 streams with their cudaLaunchKernel calls, N/10 memcpys, N/1000 NVTX
ProfilerStep#k ranges. Correlation id i: a kernel, or a memcpy for every
tenth i, each with one runtime call.

    python bench/make_nsys.py OUT.sqlite [N_KERNELS]
"""
from __future__ import annotations

import sqlite3
import sys


def make(path: str, n: int) -> None:
    con = sqlite3.connect(path)
    con.executescript("""
        PRAGMA journal_mode = OFF; PRAGMA synchronous = OFF;
        CREATE TABLE StringIds (id INTEGER PRIMARY KEY, value TEXT NOT NULL);
        INSERT INTO StringIds VALUES (0, 'ampere_sgemm_128x64_nn'), (1, 'ncclDevKernel_AllReduce_Sum_f32_RING_LL'),
            (2, 'cudaLaunchKernel_v7000'), (3, 'cudaMemcpyAsync_v3020'), (4, 'elementwise_kernel');
        CREATE TABLE TARGET_INFO_SESSION_START_TIME (utcEpochNs INTEGER, utcTime TEXT, localTime TEXT);
        INSERT INTO TARGET_INFO_SESSION_START_TIME VALUES (1785620044423518993, '', '');
        CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL (start INTEGER NOT NULL, end INTEGER NOT NULL,
            deviceId INTEGER NOT NULL, contextId INTEGER, greenContextId INTEGER, streamId INTEGER NOT NULL,
            correlationId INTEGER, globalPid INTEGER, demangledName INTEGER NOT NULL, shortName INTEGER NOT NULL,
            mangledName INTEGER, launchType INTEGER, cacheConfig INTEGER, registersPerThread INTEGER,
            gridX INTEGER, gridY INTEGER, gridZ INTEGER, blockX INTEGER, blockY INTEGER, blockZ INTEGER,
            staticSharedMemory INTEGER, dynamicSharedMemory INTEGER);
        CREATE TABLE CUPTI_ACTIVITY_KIND_MEMCPY (start INTEGER NOT NULL, end INTEGER NOT NULL,
            deviceId INTEGER NOT NULL, contextId INTEGER, greenContextId INTEGER, streamId INTEGER NOT NULL,
            correlationId INTEGER, globalPid INTEGER, bytes INTEGER NOT NULL, copyKind INTEGER NOT NULL,
            srcKind INTEGER, dstKind INTEGER);
        CREATE TABLE CUPTI_ACTIVITY_KIND_RUNTIME (start INTEGER NOT NULL, end INTEGER NOT NULL,
            eventClass INTEGER, globalTid INTEGER, correlationId INTEGER, nameId INTEGER NOT NULL,
            returnValue INTEGER, callchainId INTEGER);
        CREATE TABLE NVTX_EVENTS (start INTEGER NOT NULL, end INTEGER, eventType INTEGER NOT NULL,
            rangeId INTEGER, category INTEGER, color INTEGER, text TEXT, globalTid INTEGER,
            endGlobalTid INTEGER, textId INTEGER, domainId INTEGER);
    """)
    gpid, gtid = 297345568735232, 297345569681193
    con.execute(f"""
        INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL
        WITH RECURSIVE c(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM c WHERE i + 1 < {n})
        SELECT 1000000 + i * 2000 + 500, 1000000 + i * 2000 + 500 + 1200 + i % 700, 0, 1, 0, 7 + 2 * (i % 4), i,
               {gpid}, CASE WHEN i % 50 = 0 THEN 1 WHEN i % 3 = 0 THEN 4 ELSE 0 END,
               CASE WHEN i % 50 = 0 THEN 1 WHEN i % 3 = 0 THEN 4 ELSE 0 END, 0, 0, 0, 64,
               128 + i % 64, 1, 1, 256, 1, 1, 0, 0
        FROM c WHERE i % 10 <> 9""")
    con.execute(f"""
        INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME
        WITH RECURSIVE c(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM c WHERE i + 1 < {n})
        SELECT 1000000 + i * 2000, 1000000 + i * 2000 + 300, 1, {gtid}, i, CASE WHEN i % 10 = 9 THEN 3 ELSE 2 END, 0, 0
        FROM c""")
    con.execute(f"""
        INSERT INTO CUPTI_ACTIVITY_KIND_MEMCPY
        WITH RECURSIVE c(i) AS (SELECT 9 UNION ALL SELECT i + 10 FROM c WHERE i + 10 < {n})
        SELECT 1000000 + i * 2000 + 1800, 1000000 + i * 2000 + 1900, 0, 1, 0, 7, i, {gpid}, 4096, 1 + i % 2, 0, 2
        FROM c""")
    con.execute(f"""
        INSERT INTO NVTX_EVENTS
        WITH RECURSIVE c(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM c WHERE i + 1 < {max(1, n // 1000)})
        SELECT 1000000 + i * 2000000 - 100, 1000000 + (i + 1) * 2000000 - 100, 59, NULL, NULL, NULL,
               'ProfilerStep#' || i, {gtid}, {gtid}, NULL, 0
        FROM c""")
    con.commit()
    con.close()


if __name__ == "__main__":
    make(sys.argv[1], int(sys.argv[2]) if len(sys.argv) > 2 else 1_000_000)
