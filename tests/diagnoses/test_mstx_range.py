"""mstx ranges of an Ascend profiler DB (MSTX_EVENTS) in range_time. The corpus DBs were captured
without mstx, so MSTX_EVENTS rows are added here to a copy of one (MindStudio Insight's Level1
capture): a range on the training thread over its first half, and a mark. torch_npu launches from
its task-queue thread, so the range holds the kernels whose framework op lies within it on its
thread."""
from __future__ import annotations

import shutil
import sqlite3

import pytest

from conftest import corpus_path, ingest_paths, rows

pytestmark = pytest.mark.corpus

RANK = "msinsight/test/data/pytorch/db/level1/rank0_ascend_pt"


def test_mstx_range_holds_the_kernels_of_its_ops(tmp_path):
    src = corpus_path(RANK)
    rank = tmp_path / "rank0_ascend_pt"
    shutil.copytree(src, rank, ignore=shutil.ignore_patterns("analysis.db"))
    path = rank / "ASCEND_PROFILER_OUTPUT" / "ascend_pytorch_profiler_0.db"
    con = sqlite3.connect(path)
    try:
        # the thread with the most framework ops, and its first half
        gtid, lo, hi = con.execute("SELECT globalTid, min(CAST(startNs AS INTEGER)), max(CAST(endNs AS INTEGER)) "
                                   "FROM PYTORCH_API GROUP BY globalTid ORDER BY count(*) DESC LIMIT 1").fetchone()
        mid = lo + (hi - lo) // 2
        sid = con.execute("SELECT max(id) + 1 FROM STRING_IDS").fetchone()[0]
        con.executemany("INSERT INTO STRING_IDS VALUES (?, ?)", [(sid, "train_first_half"), (sid + 1, "a mark")])
        con.execute("CREATE TABLE MSTX_EVENTS (startNs INTEGER, endNs INTEGER, eventType INTEGER, rangeId INTEGER, "
                    "category INTEGER, message INTEGER, globalTid INTEGER, endGlobalTid INTEGER, domainId INTEGER, "
                    "connectionId INTEGER)")
        con.executemany("INSERT INTO MSTX_EVENTS VALUES (?, ?, ?, 1, 0, ?, ?, ?, 65535, 4000000001)",
                        [(lo - 1, mid, 2, sid, gtid, gtid), (mid, mid, 0, sid + 1, gtid, gtid)])
        con.commit()
    finally:
        con.close()
    db = tmp_path / "t.duckdb"
    ingest_paths(db, rank, run="mstx")
    tid = str(gtid % 2 ** 32)
    assert rows(db, "SELECT ph, name, tid, ts_ns, dur_ns FROM event WHERE cat = 'mstx' ORDER BY ts_ns") == [
        ("X", "train_first_half", tid, lo - 1, mid - lo + 1), ("i", "a mark", tid, mid, None)]
    # kernels whose framework op runs on the range's thread within [lo - 1, mid]
    kernels = rows(db, "SELECT k.kernel_id, k.ts_ns, k.ts_ns + k.dur_ns, k.copy_kind IS NULL, o.tid, o.ts_ns, "
                       "o.ts_ns + o.dur_ns FROM kernel AS k JOIN op AS o USING (run_id, rank, op_id)")
    inside = [(s, e, is_kernel) for _, s, e, is_kernel, t, os, oe in kernels if t == tid and lo - 1 <= os and oe <= mid]
    assert inside
    got = rows(db, "SELECT kind, name, depth, gpu_op_count, kernel_count, gpu_start_ns, gpu_proj_ns, gpu_sum_ns "
                   "FROM range_time")
    assert got == [("mstx", "train_first_half", 0, len(inside), sum(k for *_, k in inside), min(s for s, *_ in inside),
                    max(e for _, e, _ in inside) - min(s for s, *_ in inside), sum(e - s for s, e, _ in inside))]
