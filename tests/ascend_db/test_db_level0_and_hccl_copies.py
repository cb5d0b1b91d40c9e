"""torch_npu DB exports (issue 39, points 3 and 4): Level0 files, whose CANN "none" values
(UINT32_MAX, 4294967295) sit in COMMUNICATION_TASK_INFO.planeId / srcRank / dstRank and TASK
contextId / modelId, are read; HCCL's own MEMCPY_ASYNC tasks (listed in COMMUNICATION_TASK_INFO,
as the 2024 schema types them) are part of their op, never also copy rows.

No Level0 DB export is in the corpus: the micro tests write the few tables the reader takes
(tracedb/ingestion/fieldmaps/ascend_db.py) by hand with sqlite3; the corpus test sets the columns
of the 2024 Level1 export to the sentinel, as a Level0 export writes them.
"""
from __future__ import annotations

import shutil
import sqlite3

import pytest

from conftest import corpus_path, ingest_paths, rows
from tracedb.errors import InputError

NONE = 4294967295
STRINGS = {1: "MEMCPY_ASYNC", 2: "KERNEL_AICORE", 3: "hcom_allReduce__1_0_1", 4: "12345", 5: "Memcpy",
           6: "Notify_Wait", 7: "MatMul", 8: "AI_CORE", 9: "hcom_allReduce_", 10: "NOTIFY_WAIT"}


def write_db(folder, *, plane=0, src=0, dst=1, context=NONE):
    """A rank folder with a hand-made ascend_pytorch_profiler_0.db: one MatMul (1000-1500 ns,
    stream 2), one user copy (MEMCPY_ASYNC 1600-1700, stream 2), one allreduce (2000-2600) whose
    Memcpy (MEMCPY_ASYNC 2000-2400, stream 3, 1 MiB) and Notify_Wait (2400-2500) tasks are listed
    in COMMUNICATION_TASK_INFO."""
    out = folder / "rank0_ascend_pt" / "ASCEND_PROFILER_OUTPUT"
    out.mkdir(parents=True)
    path = out / "ascend_pytorch_profiler_0.db"
    con = sqlite3.connect(path)
    con.execute("CREATE TABLE STRING_IDS (id INTEGER, value TEXT)")
    con.executemany("INSERT INTO STRING_IDS VALUES (?, ?)", STRINGS.items())
    con.execute("CREATE TABLE TASK (startNs INTEGER, endNs INTEGER, deviceId INTEGER, connectionId INTEGER, "
                "globalTaskId INTEGER, globalPid INTEGER, taskType INTEGER, contextId INTEGER, streamId INTEGER, "
                "taskId INTEGER, modelId INTEGER)")
    con.executemany("INSERT INTO TASK VALUES (?, ?, 0, ?, ?, 7, ?, ?, ?, ?, ?)", [
        (1000, 1500, 10, 1, 2, context, 2, 1, NONE),
        (1600, 1700, 11, 2, 1, context, 2, 2, NONE),
        (2000, 2400, NONE, 3, 1, context, 3, 3, NONE),
        (2400, 2500, NONE, 4, 10, context, 3, 4, NONE),
    ])
    con.execute("CREATE TABLE COMPUTE_TASK_INFO (name INTEGER, globalTaskId INTEGER, blockDim INTEGER, "
                "mixBlockDim INTEGER, taskType INTEGER, opType INTEGER)")
    con.execute("INSERT INTO COMPUTE_TASK_INFO VALUES (7, 1, 20, 0, 8, 7)")
    con.execute("CREATE TABLE COMMUNICATION_OP (opName INTEGER, startNs INTEGER, endNs INTEGER, "
                "connectionId INTEGER, groupName INTEGER, opId INTEGER, opType INTEGER)")
    con.execute("INSERT INTO COMMUNICATION_OP VALUES (3, 2000, 2600, 12, 4, 1, 9)")
    con.execute("CREATE TABLE COMMUNICATION_TASK_INFO (name INTEGER, globalTaskId INTEGER, taskType INTEGER, "
                "planeId INTEGER, groupName INTEGER, notifyId INTEGER, rdmaType INTEGER, srcRank INTEGER, "
                "dstRank INTEGER, transportType INTEGER, size INTEGER, linkType INTEGER, opId INTEGER)")
    con.executemany("INSERT INTO COMMUNICATION_TASK_INFO VALUES (3, ?, ?, ?, 4, NULL, NULL, ?, ?, NULL, ?, NULL, 1)",
                    [(3, 5, plane, src, dst, 1 << 20), (4, 6, plane, src, dst, 0)])
    con.commit()
    con.close()
    return folder / "rank0_ascend_pt", path


def test_hccl_memcpy_tasks_are_not_copies(tmp_path):
    """Only the user copy is a copy row; the allreduce's Memcpy task stays inside the op (its link
    row). On the code before issue 39 the Memcpy task was a second copy row: 400 ns twice."""
    rank, _ = write_db(tmp_path)
    db = tmp_path / "t.duckdb"
    ingest_paths(db, rank)
    assert rows(db, "SELECT ts_ns, dur_ns, stream_id FROM kernel WHERE copy_kind IS NOT NULL") == [(1600, 100, "2")]
    assert rows(db, "SELECT name, ts_ns, dur_ns FROM kernel WHERE copy_kind IS NULL ORDER BY ts_ns") == [
        ("MatMul", 1000, 500), ("hcom_allReduce__1_0_1", 2000, 600)]
    assert rows(db, "SELECT task_name, ts_ns, size_bytes FROM link ORDER BY ts_ns") == [
        ("Memcpy", 2000, 1 << 20), ("Notify_Wait", 2400, 0)]
    # the whole capture: 500 computing, 600 communication, 100 copy; nothing booked twice
    assert rows(db, "SELECT count(*) FROM tracedb_internal.kernel_class WHERE is_copy") == [(1,)]


def test_level0_sentinels_read_as_none(tmp_path):
    """planeId / srcRank / contextId / modelId 4294967295 are NULL; dstRank keeps it (local /
    on-chip, as the text export's "dst rank"). The capture reads and its views run."""
    rank, _ = write_db(tmp_path, plane=NONE, src=NONE, dst=NONE)
    db = tmp_path / "t.duckdb"
    ingest_paths(db, rank)
    assert rows(db, "SELECT task_name, plane_id, src_rank, dst_rank, op_name FROM link ORDER BY ts_ns") == [
        ("Memcpy", None, None, NONE, "hcom_allReduce__1_0_1"), ("Notify_Wait", None, None, NONE, "hcom_allReduce__1_0_1")]
    assert rows(db, "SELECT count(*) FROM kernel") == [(3,)]
    # no valid source rank: no transfer in comm_matrix (CANN's matrix parser skips them too)
    assert rows(db, "SELECT count(*) FROM comm_matrix") == [(0,)]
    assert rows(db, "SELECT op_name FROM comm_op") == [("hcom_allReduce__1_0_1",)]
    assert rows(db, "SELECT computing_ns, communication_ns FROM capture_breakdown") == [(500, 600)]
    assert rows(db, "SELECT count(*) FROM check_finding WHERE severity = 'error'") == [(0,)]


def test_a_value_out_of_range_names_the_file_without_a_truncation_hint(tmp_path):
    """A plane id beyond INTEGER (not CANN's sentinel) is refused, naming the file; the file is
    whole, so the message does not say it may be truncated."""
    rank, path = write_db(tmp_path, plane=1 << 40)
    db = tmp_path / "t.duckdb"
    with pytest.raises(InputError) as e:
        ingest_paths(db, rank)
    msg = str(e.value)
    assert path.name in msg and "cannot convert" in msg and "truncated" not in msg


@pytest.mark.corpus
def test_2024_export_as_level0_reads_and_counts_copies_once(tmp_path):
    """The 2024 Level1 export with its COMMUNICATION_TASK_INFO planeId / srcRank / dstRank and TASK
    contextId / modelId set to 4294967295 (what a Level0 export writes) reads, with the same
    kernels as the file as written. Its 57 MEMCPY_ASYNC tasks (11.647792 ms, sqlite3 on the file):
    40 are the allreduce's Memcpy tasks (COMMUNICATION_TASK_INFO, 7.942294 ms), counted once, in
    the op; 17 are copies (3.705498 ms). Before issue 39 all 57 were copy rows."""
    src = corpus_path("msinsight-2024/test/data/pytorch/db/level1/rank0_ascend_pt")
    orig = tmp_path / "a" / src.name
    shutil.copytree(src, orig, ignore=shutil.ignore_patterns("analysis.db"))
    level0 = tmp_path / "b" / src.name
    shutil.copytree(orig, level0)
    pdb = level0 / "ASCEND_PROFILER_OUTPUT" / "ascend_pytorch_profiler_0.db"
    pdb.chmod(0o644)
    con = sqlite3.connect(pdb)
    con.execute(f"UPDATE COMMUNICATION_TASK_INFO SET planeId = {NONE}, srcRank = {NONE}, dstRank = {NONE}")
    con.execute(f"UPDATE TASK SET contextId = {NONE}, modelId = {NONE}")
    con.commit()
    copies = con.execute(
        "SELECT count(*), sum(t.endNs - t.startNs), "
        "sum(CASE WHEN c.globalTaskId IS NULL THEN 1 ELSE 0 END), "
        "sum(CASE WHEN c.globalTaskId IS NULL THEN t.endNs - t.startNs ELSE 0 END) "
        "FROM TASK t JOIN STRING_IDS s ON s.id = t.taskType "
        "LEFT JOIN (SELECT DISTINCT globalTaskId FROM COMMUNICATION_TASK_INFO) c ON c.globalTaskId = t.globalTaskId "
        "WHERE s.value = 'MEMCPY_ASYNC'").fetchone()
    con.close()
    n_all, ns_all, n_user, ns_user = copies
    assert (n_all, n_user) == (57, 17)
    a, b = tmp_path / "a.duckdb", tmp_path / "b.duckdb"
    ingest_paths(a, orig)
    ingest_paths(b, level0)
    q = "SELECT name, ts_ns, dur_ns, stream_id, is_communication, copy_kind FROM kernel ORDER BY ALL"
    assert rows(a, q) == rows(b, q)
    assert rows(b, "SELECT count(*), sum(dur_ns) FROM kernel WHERE copy_kind IS NOT NULL") == [(17, ns_user)]
    assert rows(b, "SELECT count(*), count(plane_id), count(src_rank) FROM link") == [(372, 0, 0)]
    assert (ns_all, ns_user) == (11_647_792, 3_705_498)
