"""Ascend profiler DB (torch_npu export_type=db) against the capture's own numbers.

Every expected value is read here from the SQLite files with Python's sqlite3 module
(independently of the ADBC reader): analysis.db's StepTraceTime / CommAnalyzerTime /
CommAnalyzerBandwidth, and the raw TASK / COMPUTE_TASK_INFO / COMMUNICATION_OP / PYTORCH_API
tables. The rank folders are ingested from a copy without analysis.db, so the views can only
have computed their numbers from the profiler DB.
"""
from __future__ import annotations

import json
import shutil
import sqlite3
import subprocess
import sys
from collections import Counter
from decimal import Decimal
from pathlib import Path

import pytest

from conftest import CORPUS, ingest_paths, rows
from tracedb.errors import InputError

NEW = "msinsight/test/data/pytorch/db/level1"        # 2025-01 capture, 2 ranks
OLD = "msinsight-2024/test/data/pytorch/db/level1"   # 2024-09 capture (older schema generation)
RANK_DIRS = [f"{NEW}/rank0_ascend_pt", f"{NEW}/rank1_ascend_pt", f"{OLD}/rank0_ascend_pt"]
OUT = "ASCEND_PROFILER_OUTPUT"


def corpus_dir(rel: str) -> Path:
    p = CORPUS / rel
    if not p.exists():
        pytest.skip(f"corpus not available: {p}")
    return p


def profiler_db(rank_dir: Path) -> Path:
    return next((rank_dir / OUT).glob("ascend_pytorch_profiler*.db"))


def query(db: Path, sql: str) -> list[tuple]:
    con = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    try:
        return con.execute(sql).fetchall()
    finally:
        con.close()


def ingest_without_analysis(rank_dir: Path, tmp_path: Path) -> Path:
    dst = tmp_path / rank_dir.name
    shutil.copytree(rank_dir, dst, ignore=shutil.ignore_patterns("analysis.db"))
    db = tmp_path / "t.duckdb"
    ingest_paths(db, dst)
    return db


def union_ns(intervals) -> int:
    total, end = 0, None
    for s, e in sorted(intervals):
        if end is None or s > end:
            total += e - s
            end = e
        elif e > end:
            total += e - end
            end = e
    return total


def within(ours: int, ref: Decimal, floor_ns: int = 500, rel: str = "0.0005") -> bool:
    return abs(Decimal(ours) - ref) <= max(Decimal(floor_ns), abs(ref) * Decimal(rel))


STEP_METRICS = {   # StepTraceTime column (µs) → step_breakdown column (ns)
    "computing": "computing_ns", "communication_not_overlapped": "communication_not_overlapped_ns",
    "overlapped": "overlapped_ns", "communication": "communication_ns", "free": "free_ns", "stage": "stage_ns",
    "bubble": "bubble_ns",
    "communication_not_overlapped_and_exclude_receive": "communication_not_overlapped_exclude_receive_ns",
    "preparing": "preparing_ns",
}
# the 2024-09 exporter books communication as the union of the HCCL *task* intervals
# (COMMUNICATION_TASK_INFO ⋈ TASK), not of the op spans (COMMUNICATION_OP) that the 2025 exporter
# and every text step_trace_time.csv use; see test_old_exporter_books_task_union
TASK_UNION_METRICS = {"communication", "communication_not_overlapped", "overlapped", "free",
                      "communication_not_overlapped_and_exclude_receive"}


def step_trace_time(rank_dir: Path) -> dict[int, dict[str, Decimal]]:
    con = sqlite3.connect(f"file:{rank_dir / OUT / 'analysis.db'}?mode=ro", uri=True)
    try:
        cur = con.execute("SELECT * FROM StepTraceTime")
        names = [d[0] for d in cur.description]
        # REAL → its repr: the digits SQLite stores
        return {int(r[0]): {n: Decimal(repr(v)) * 1000 for n, v in zip(names[1:], r[1:]) if v is not None}
                for r in cur.fetchall()}
    finally:
        con.close()


@pytest.mark.corpus
@pytest.mark.parametrize("rel", RANK_DIRS, ids=lambda r: r.split("/")[0] + "/" + r.split("/")[-1])
def test_step_breakdown_matches_analysis_db(rel, tmp_path):
    rank_dir = corpus_dir(rel)
    expected = step_trace_time(rank_dir)
    db = ingest_without_analysis(rank_dir, tmp_path)
    assert rows(db, "SELECT count(*) FROM profiler_step_trace") == [(0,)]
    cols = ", ".join(STEP_METRICS.values())
    got = {r[0]: dict(zip(STEP_METRICS, r[1:])) for r in rows(db, f"SELECT step, {cols} FROM step_breakdown")}
    assert set(got) == set(expected) and got
    old = rel.startswith("msinsight-2024")
    for step, ref in expected.items():
        for metric, value in ref.items():
            if metric not in STEP_METRICS or (old and metric in TASK_UNION_METRICS):
                continue
            assert within(got[step][metric], value), (step, metric, got[step][metric], value)


@pytest.mark.corpus
def test_old_exporter_books_task_union(tmp_path):
    """The 2024 analysis.db communication is the union of the HCCL task intervals; ours is the union
    of the HCCL op spans (the rule of step_trace_time.csv and the 2025 exporter). Both computed
    here from the raw tables; the step span splits the same way otherwise."""
    rank_dir = corpus_dir(f"{OLD}/rank0_ascend_pt")
    pdb = profiler_db(rank_dir)
    tasks = query(pdb, "SELECT t.startNs, t.endNs FROM COMMUNICATION_TASK_INFO c JOIN TASK t USING (globalTaskId)")
    ops = query(pdb, "SELECT startNs, endNs FROM COMMUNICATION_OP")
    ref = step_trace_time(rank_dir)[50]
    assert union_ns(tasks) == ref["communication"]          # exact: the exporter's rule
    assert union_ns(ops) != union_ns(tasks)
    db = ingest_without_analysis(rank_dir, tmp_path)
    comm, span, free, computing, nov = rows(db, "SELECT communication_ns, stage_ns, free_ns, computing_ns, "
                                                "communication_not_overlapped_ns FROM step_breakdown")[0]
    assert comm == union_ns(ops)
    assert computing + nov + free == span
    assert within(computing + nov + free, ref["computing"] + ref["communication_not_overlapped"] + ref["free"])


def _comm_reference(rank_dir: Path):
    adb = rank_dir / OUT / "analysis.db"
    times = query(adb, "SELECT hccl_op_name, elapse_time, transit_time, wait_time, synchronization_time, idle_time "
                       "FROM CommAnalyzerTime WHERE hccl_op_name NOT LIKE 'Total%'")
    bw = query(adb, "SELECT DISTINCT hccl_op_name, transport_type, transit_size, transit_time, bandwidth "
                    "FROM CommAnalyzerBandwidth WHERE hccl_op_name NOT LIKE 'Total%'")
    return times, bw


@pytest.mark.corpus
@pytest.mark.parametrize("rel", RANK_DIRS, ids=lambda r: r.split("/")[0] + "/" + r.split("/")[-1])
def test_comm_op_and_bandwidth_match_comm_analyzer(rel, tmp_path):
    """Tolerances of tests/comm/test_comm_reference.py: max(1 µs, 0.1 %) for times, max(1 B, 0.1 %)
    for sizes, max(0.0001, 0.1 %) for bandwidth."""
    rank_dir = corpus_dir(rel)
    times, bw = _comm_reference(rank_dir)
    db = ingest_without_analysis(rank_dir, tmp_path)
    ours = {r[0]: r[1:] for r in rows(db, "SELECT op_name, elapse_ns, transit_ns, wait_ns, synchronization_ns, "
                                          "idle_ns FROM comm_op")}
    assert set(ours) == {t[0] for t in times} and len(ours) == 4
    for name, *ms in times:
        for got, ref in zip(ours[name], ms):
            assert within(got, Decimal(repr(ref)) * 1_000_000, 1000, "0.001"), (name, got, ref)
    bws = {(r[0], r[1]): r[2:] for r in rows(db, "SELECT op_name, transport_type, transit_size_bytes, transit_ns, "
                                               "bandwidth_gbps FROM comm_bandwidth")}
    assert bw
    for name, transport, size_mb, time_ms, gbps in bw:
        size, ns, band = bws[(name, transport)]
        assert within(size, Decimal(repr(size_mb)) * 1_000_000, 1, "0.001"), (name, transport, size, size_mb)
        assert within(ns, Decimal(repr(time_ms)) * 1_000_000, 1000, "0.001"), (name, transport, ns, time_ms)
        assert abs(band - gbps) <= max(0.0001, abs(gbps) * 0.001), (name, transport, band, gbps)


@pytest.mark.corpus
@pytest.mark.parametrize("rel", RANK_DIRS[1:], ids=lambda r: r.split("/")[0] + "/" + r.split("/")[-1])
def test_kernels_are_the_raw_tasks_exactly(rel, tmp_path):
    rank_dir = corpus_dir(rel)
    pdb = profiler_db(rank_dir)
    compute = query(pdb, "SELECT s.value, t.startNs, t.endNs - t.startNs, t.streamId FROM TASK t "
                         "JOIN COMPUTE_TASK_INFO c USING (globalTaskId) JOIN STRING_IDS s ON s.id = c.name")
    comm = query(pdb, "SELECT s.value, o.startNs, o.endNs - o.startNs, g.value FROM COMMUNICATION_OP o "
                      "JOIN STRING_IDS s ON s.id = o.opName JOIN STRING_IDS g ON g.id = o.groupName")
    copies = query(pdb, "SELECT s.value, t.startNs, t.endNs - t.startNs, t.streamId FROM TASK t "
                        "JOIN STRING_IDS s ON s.id = t.taskType WHERE s.value = 'MEMCPY_ASYNC' "
                        # HCCL's own copies (2024 schema) are part of their op, not copies (issue 39)
                        "AND t.globalTaskId NOT IN (SELECT globalTaskId FROM COMMUNICATION_TASK_INFO)")
    db = ingest_without_analysis(rank_dir, tmp_path)
    got = rows(db, "SELECT name, ts_ns, dur_ns, stream_id, group_name, is_communication, source, copy_kind FROM kernel")
    assert Counter((n, t, d, str(s)) for n, t, d, s, _, c, _, k in got if not c and k is None) == Counter(
        (n, t, d, str(s)) for n, t, d, s in compute)
    assert sorted((n, t, d, g) for n, t, d, _, g, c, _, _ in got if c) == sorted(comm)
    # the copy tasks COMPUTE_TASK_INFO and COMMUNICATION_TASK_INFO do not list (MEMCPY_ASYNC) are copy rows
    assert Counter((n, t, d, str(s)) for n, t, d, s, _, _, _, k in got if k is not None) == Counter(
        (n, t, d, str(s)) for n, t, d, s in copies)
    assert {r[6] for r in got} == {"ascend_db"}
    # kernel_id: 1..n by start
    ids = rows(db, "SELECT kernel_id FROM kernel ORDER BY ts_ns, name")
    assert [i for (i,) in ids] == list(range(1, len(got) + 1))


def _tree(api_rows):
    """(name, tid, depth, parent index) per op by a stack walk in (start, longer first) order."""
    order = sorted(range(len(api_rows)), key=lambda i: (api_rows[i][1], -(api_rows[i][2] - api_rows[i][1]),
                                                        api_rows[i][3], api_rows[i][0]))
    stacks, out = {}, {}
    for i in order:
        name, s, e, tid = api_rows[i]
        st = stacks.setdefault(tid, [])
        while st and api_rows[st[-1]][2] <= s and not (api_rows[st[-1]][1] == s == api_rows[st[-1]][2]):
            st.pop()
        while st and api_rows[st[-1]][2] < e:
            st.pop()
        out[i] = (name, tid, len(st), st[-1] if st else None)
        st.append(i)
    return out


@pytest.mark.corpus
@pytest.mark.parametrize("rel", RANK_DIRS[1:], ids=lambda r: r.split("/")[0] + "/" + r.split("/")[-1])
def test_op_tree_is_the_stack_walk_of_pytorch_api(rel, tmp_path):
    rank_dir = corpus_dir(rel)
    api = query(profiler_db(rank_dir), "SELECT s.value, CAST(p.startNs AS INTEGER), CAST(p.endNs AS INTEGER), "
                                      "CAST(p.globalTid % 4294967296 AS TEXT) FROM PYTORCH_API p "
                                      "JOIN STRING_IDS s ON s.id = p.name WHERE p.type = 50001 "
                                      "AND s.value NOT LIKE 'ProfilerStep#%'")
    tree = _tree(api)
    db = ingest_without_analysis(rank_dir, tmp_path)
    got = rows(db, "SELECT o.name, o.ts_ns, o.ts_ns + o.dur_ns, o.tid, o.depth, p.name, p.ts_ns FROM op o "
                   "LEFT JOIN op p ON p.run_id = o.run_id AND p.rank = o.rank AND p.op_id = o.parent_op_id")
    assert len(got) == len(api) > 500
    want = Counter((n, s, e, tid, d, api[p][0] if p is not None else None, api[p][1] if p is not None else None)
                   for i, (n, s, e, tid) in enumerate(api) for (_, _, d, p) in [tree[i]])
    assert Counter(got) == want
    assert rows(db, "SELECT count(*) FROM op WHERE source <> 'ascend_db' OR depth IS NULL") == [(0,)]


@pytest.mark.corpus
def test_kernel_op_and_launch_follow_the_connection_ids(tmp_path):
    rank_dir = corpus_dir(f"{NEW}/rank0_ascend_pt")
    pdb = profiler_db(rank_dir)
    # (task start, op name, op start) from the raw tables: an op's CONNECTION_IDS hold the task's connectionId
    raw = query(pdb, "SELECT t.startNs, s.value, CAST(p.startNs AS INTEGER) FROM TASK t "
                     "JOIN COMPUTE_TASK_INFO USING (globalTaskId) "
                     "JOIN CONNECTION_IDS c ON c.connectionId = t.connectionId "
                     "JOIN PYTORCH_API p ON p.connectionId = c.id AND p.type = 50001 "
                     "JOIN STRING_IDS s ON s.id = p.name AND s.value NOT LIKE 'ProfilerStep#%'")
    by_task = {}
    for ts, name, start in raw:
        by_task.setdefault(ts, set()).add((name, start))
    db = ingest_without_analysis(rank_dir, tmp_path)
    got = rows(db, "SELECT k.ts_ns, o.name, o.ts_ns, k.launch_name FROM kernel k "
                   "LEFT JOIN op o ON o.run_id = k.run_id AND o.rank = k.rank AND o.op_id = k.op_id "
                   "WHERE NOT k.is_communication")
    linked = [(ts, n, s) for ts, n, s, _ in got if n is not None]
    assert len(linked) == len(by_task) > 100
    assert all((n, s) in by_task[ts] for ts, n, s in linked)
    assert sum(1 for *_, launch in got if launch) > 100
    # op kernel counts add up: every linked kernel (compute and HCCL) counted once at its op and
    # once at its root op
    n = rows(db, "SELECT count(op_id) FROM kernel")[0][0]
    assert n >= len(linked)
    assert rows(db, "SELECT sum(kernel_count) FROM op") == [(n,)]
    assert rows(db, "SELECT sum(kernel_total_count) FROM op WHERE depth = 0") == [(n,)]


@pytest.mark.corpus
def test_memory_rows_are_the_db_tables(tmp_path):
    rank_dir = corpus_dir(f"{NEW}/rank0_ascend_pt")
    pdb = profiler_db(rank_dir)
    n_record, n_op, n_module = (query(pdb, f"SELECT count(*) FROM {t}")[0][0]
                                for t in ("MEMORY_RECORD", "OP_MEMORY", "NPU_MODULE_MEM"))
    conv = query(pdb, "SELECT s.value, o.size, o.allocationTime, o.releaseTime FROM OP_MEMORY o "
                      "JOIN STRING_IDS s ON s.id = o.name WHERE s.value = 'aten::_convolution' ORDER BY 3 LIMIT 1")[0]
    db = ingest_without_analysis(rank_dir, tmp_path)
    assert dict(rows(db, "SELECT kind, count(*) FROM memory GROUP BY kind")) == {
        "record": n_record, "operator": n_op, "module": n_module}
    assert rows(db, "SELECT name, size_bytes, ts_ns, release_ts_ns FROM memory WHERE kind = 'operator' "
                    "AND name = 'aten::_convolution' ORDER BY ts_ns LIMIT 1") == [conv]
    assert rows(db, "SELECT count(*) FROM memory_peak") != [(0,)]


@pytest.mark.corpus
def test_text_and_db_forms_count_the_same_kernels_and_ops(tmp_path):
    """The 2025 text and DB exports are two captures of the same job (PROVENANCE.md: separate runs,
    same step, same model): kernel counts, communication ops and the framework ops per (name,
    depth) agree; the DB op tree is compared with a stack walk over the text trace's cpu_op events."""
    text_dir = corpus_dir("msinsight/test/data/pytorch/text/level1/rank0_ascend_pt")
    db = ingest_without_analysis(corpus_dir(f"{NEW}/rank0_ascend_pt"), tmp_path)
    events = json.loads((text_dir / OUT / "trace_view.json").read_text())
    cpu = [(e["name"], int(Decimal(e["ts"]) * 1000), int((Decimal(e["ts"]) + Decimal(e["dur"])) * 1000), str(e["tid"]))
           for e in events if e.get("ph") == "X" and e.get("cat") == "cpu_op" and not e["name"].startswith("ProfilerStep#")]
    text_tree = Counter((n, d) for n, _, d, _ in _tree(cpu).values())
    db_tree = Counter(rows(db, "SELECT name, depth FROM op"))
    assert sum(db_tree.values()) == len(cpu) == 859     # 860 cpu_op slices, ProfilerStep#50 is the step
    assert db_tree == text_tree
    # backward ops: text = the ops on the thread the fwdbwd flows end on
    bwd_tid = {str(e["tid"]) for e in events if e.get("cat") == "fwdbwd" and e.get("ph") == "f"}
    assert rows(db, "SELECT count_if(is_backward), count(is_backward) FROM op") == [
        (sum(1 for *_, tid in cpu if tid in bwd_tid), 859)]
    # nn.Module python rows (with_stack) name the module of the ops under them
    convs = rows(db, "SELECT module_path FROM op WHERE name = 'aten::conv2d' ORDER BY ts_ns")
    modules = [(int(Decimal(e["ts"]) * 1000), int((Decimal(e["ts"]) + Decimal(e["dur"])) * 1000), str(e["tid"]),
                e["name"][len("nn.Module: "):]) for e in events
               if e.get("cat") == "python_function" and e.get("name", "").startswith("nn.Module: ")]
    text_convs = [("/".join(m for ms, me, mt, m in sorted(modules, key=lambda x: (x[0], -x[1]))
                            if mt == tid and ms <= s < me) or None,)
                  for n, s, e, tid in sorted(cpu, key=lambda c: c[1]) if n == "aten::conv2d"]
    assert len(convs) == 5 and convs == text_convs
    assert convs[0][0] == "DistributedDataParallel_0/AlexNet_0/Sequential_0/Conv2d_0"
    with open(text_dir / OUT / "kernel_details.csv", encoding="utf-8") as f:
        kd = f.read().splitlines()[1:]
    assert rows(db, "SELECT count(*), count_if(is_communication) FROM kernel WHERE copy_kind IS NULL") == [
        (len(kd), sum(1 for line in kd if ",HCCL," in line))]


@pytest.mark.corpus
def test_text_and_db_in_one_folder_read_once_from_the_db(tmp_path):
    """A rank folder with both forms: the DB and analysis.db are read, the text files are not."""
    db_dir = corpus_dir(f"{NEW}/rank0_ascend_pt")
    text_dir = corpus_dir("msinsight/test/data/pytorch/text/level1/rank0_ascend_pt")
    both = tmp_path / "rank0_ascend_pt"
    shutil.copytree(text_dir, both)
    for f in (db_dir / OUT).iterdir():
        shutil.copy(f, both / OUT / f.name)
    db = tmp_path / "t.duckdb"
    report = ingest_paths(db, both)
    assert sorted(Path(p).name for p in report.files_ingested) == [
        "analysis.db", "ascend_pytorch_profiler_0.db", "profiler_info_0.json", "profiler_metadata.json"]
    assert rows(db, "SELECT DISTINCT source FROM kernel") == [("ascend_db",)]
    assert rows(db, "SELECT count(*) FROM event") == [(0,)]


@pytest.mark.corpus
def test_files_in_any_order_give_the_same_rows(tmp_path):
    """analysis.db then the profiler DB in a second command: the derive steps keep every DB row."""
    rank_dir = corpus_dir(f"{NEW}/rank1_ascend_pt")
    one = tmp_path / "one.duckdb"
    ingest_paths(one, rank_dir)
    two = tmp_path / "two.duckdb"
    ingest_paths(two, rank_dir / OUT / "analysis.db", run="level1")
    ingest_paths(two, rank_dir / OUT / "ascend_pytorch_profiler_1.db", run="level1")
    ingest_paths(two, rank_dir / OUT / "analysis.db", run="level1")   # already there: nothing changes
    for sql in ("SELECT * EXCLUDE (run_name) FROM step_breakdown",
                "SELECT count(*), sum(dur_ns), count(op_id) FROM kernel", "SELECT count(*) FROM link",
                "SELECT count(*), sum(kernel_total_count) FROM op", "SELECT count(*) FROM memory",
                "SELECT step, computing_ns FROM profiler_step_trace"):
        assert rows(one, sql) == rows(two, sql), sql


@pytest.mark.corpus
def test_msprof_analyze_output_is_refused_with_what_to_ingest(tmp_path):
    out = tmp_path / "cluster_analysis_output"
    out.mkdir()
    (out / "cluster_analysis.db").write_bytes(b"SQLite format 3\x00")
    for p in (out, out / "cluster_analysis.db"):
        with pytest.raises(InputError) as e:
            ingest_paths(tmp_path / "t.duckdb", p)
        assert "msprof-analyze" in str(e.value) and "_ascend_pt" in str(e.value)
    real = CORPUS / "msprof-analyze/test/resource/advisor/cluster_analysis_output"
    if real.exists():
        with pytest.raises(InputError, match="msprof-analyze"):
            ingest_paths(tmp_path / "t.duckdb", real)


def test_not_sqlite_is_refused_and_nothing_written(tmp_path):
    rank = tmp_path / "rank0_ascend_pt" / OUT
    rank.mkdir(parents=True)
    (rank / "ascend_pytorch_profiler_0.db").write_text("not a database")
    db = tmp_path / "t.duckdb"
    with pytest.raises(InputError) as e:
        ingest_paths(db, rank.parent)
    assert "ascend_pytorch_profiler_0.db" in str(e.value) and "SQLite" in str(e.value)
    other = tmp_path / "x" / "ascend_pytorch_profiler_3.db"
    other.parent.mkdir()
    con = sqlite3.connect(other)
    con.execute("CREATE TABLE foo (a INTEGER)")
    con.commit()
    con.close()
    with pytest.raises(InputError, match="not a torch_npu profiler DB"):
        ingest_paths(db, other)
    assert not db.exists() or rows(db, "SELECT count(*) FROM duckdb_tables() WHERE table_name = 'kernel'") == [(0,)]


@pytest.mark.corpus
def test_text_then_db_form_of_a_rank_is_a_second_capture(tmp_path):
    """A rank ingested from its text files refuses the DB form in a later command (and the
    reverse); --replace swaps one form for the other, leaving no row of the old one."""
    text_dir = corpus_dir("msinsight/test/data/pytorch/text/level1/rank0_ascend_pt")
    pdb = profiler_db(corpus_dir(f"{NEW}/rank0_ascend_pt"))
    db = tmp_path / "t.duckdb"
    ingest_paths(db, text_dir, run="r")
    with pytest.raises(InputError, match="another capture"):
        ingest_paths(db, pdb, run="r")
    ingest_paths(db, pdb, run="r", replace=True)
    alone = tmp_path / "alone.duckdb"
    ingest_paths(alone, pdb, run="r")
    for sql in ("SELECT source, count(*), sum(dur_ns) FROM kernel GROUP BY ALL ORDER BY 1",
                "SELECT count(*) FROM event", "SELECT count(*), sum(dur_ns) FROM link",
                "SELECT kind, count(*) FROM memory GROUP BY ALL ORDER BY 1", "SELECT count(*) FROM op",
                "SELECT * EXCLUDE (run_name) FROM step_breakdown", "SELECT format FROM source_file WHERE format NOT LIKE 'profiler_%' ORDER BY 1"):
        assert rows(db, sql) == rows(alone, sql), sql
    with pytest.raises(InputError, match="another capture"):
        ingest_paths(alone, text_dir / OUT / "kernel_details.csv", run="r")


@pytest.mark.corpus
def test_replacing_a_db_replaces_its_op_step_and_meta_rows(tmp_path):
    new = profiler_db(corpus_dir(f"{NEW}/rank0_ascend_pt"))
    old = profiler_db(corpus_dir(f"{OLD}/rank0_ascend_pt"))
    db, alone = tmp_path / "t.duckdb", tmp_path / "alone.duckdb"
    ingest_paths(db, new, run="r")
    ingest_paths(db, old, run="r", replace=True)
    ingest_paths(alone, old, run="r")
    for table in ("kernel", "op", "link", "memory", "ascend_db_step", "profiler_db_meta", "step"):
        assert rows(db, f"SELECT count(*) FROM {table}") == rows(alone, f"SELECT count(*) FROM {table}"), table


@pytest.mark.corpus
def test_every_view_works_on_a_db_only_ingest(tmp_path):
    """Both ranks of the 2025 capture from their DBs alone: every public view runs and has rows
    (op_diff needs a baseline and a comparison run; check_finding finds nothing to report)."""
    src = corpus_dir(NEW)
    for d in ("rank0_ascend_pt", "rank1_ascend_pt"):
        shutil.copytree(src / d, tmp_path / "job" / d, ignore=shutil.ignore_patterns("analysis.db"))
    db = tmp_path / "t.duckdb"
    ingest_paths(db, tmp_path / "job")
    views = [n for (n,) in rows(db, "SELECT name FROM tracedb_object WHERE kind = 'view' AND schema_name = 'main'")]
    assert "step_breakdown" in views and "slow_rank" in views
    # views with nothing to show on this capture: a comparison needs a baseline and a comparison
    # run; check views list only problems; the others read inputs a torch_npu DB does not have
    pair = {n for (n,) in rows(db, "SELECT name FROM tracedb_object WHERE topic = 'compare' "
                                   "OR name LIKE '%comparison%'")}
    empty_here = {"check_finding", "step_breakdown_check", "comm_op_check",
                  "data_pipeline_wait",   # MindSpore dataset pipeline files
                  "cluster_step_stage",   # stages need profiler_metadata.json's parallel groups
                  "host_wait",            # host-thread events: a DB capture fills no event rows
                  "host_thread_state",    # OS runtime / scheduler / runtime events: Nsight and Kineto only
                  "range_time",           # annotated ranges: this capture has no MSTX_EVENTS rows
                  "sync_copy",            # no synchronous copy or synchronisation call recorded
                  "cpu_utilization",      # MindSpore minddata_cpu_utilization files
                  "idle_time_hta"}        # HTA's rules read the GPU events of a Kineto trace
    empty = [v for v in views if rows(db, f"SELECT count(*) FROM {v}")[0][0] == 0]
    assert set(empty) <= pair | empty_here, sorted(set(empty) - pair - empty_here)
    assert rows(db, "SELECT count(*) FROM check_finding WHERE severity = 'error'") == [(0,)]
    assert rows(db, "SELECT count(DISTINCT rank) FROM slow_rank") == [(2,)]


@pytest.mark.corpus
@pytest.mark.parametrize("rel", RANK_DIRS, ids=lambda r: r.split("/")[0] + "/" + r.split("/")[-1])
def test_comm_matrix_sums_equal_comm_analyzer_matrix_totals(rel, tmp_path):
    """comm_matrix summed per (op type, link) against CommAnalyzerMatrix's "<type>-total" rows
    (decimal MB, ms), with tests/comm/test_comm_reference.py's tolerances."""
    rank_dir = corpus_dir(rel)
    expected = {(name[:-len("-total")], f"{src}-{dst}"): (size, t, transport)
                for name, src, dst, transport, size, t in query(
                    rank_dir / OUT / "analysis.db", "SELECT hccl_op_name, src_rank, dst_rank, transport_type, "
                    "transit_size, transit_time FROM CommAnalyzerMatrix WHERE hccl_op_name LIKE '%-total'")}
    assert expected
    db = ingest_without_analysis(rank_dir, tmp_path)
    sums: dict = {}
    for op_type, src, dst, transport, size, t in rows(db, """
            SELECT op_type, src_rank, dst_rank, transport_type, transit_size_bytes, transit_ns
            FROM comm_matrix ORDER BY op_start_ns"""):
        s = sums.setdefault((op_type, f"{src}-{dst}"), [0, 0, None])
        s[0] += size
        s[1] += t
        s[2] = transport
    assert set(sums) == set(expected)
    for key, (size_mb, t_ms, transport) in expected.items():
        size, t, ours = sums[key]
        assert within(size, Decimal(repr(size_mb)) * 1_000_000, 1, "0.001"), (key, size, size_mb)
        assert within(t, Decimal(repr(t_ms)) * 1_000_000, 1000, "0.001"), (key, t, t_ms)
        assert ours == transport, key


@pytest.mark.corpus
def test_a_db_file_alone_takes_its_rank_from_its_name(tmp_path):
    src = profiler_db(corpus_dir(f"{NEW}/rank1_ascend_pt"))
    alone = tmp_path / "copies" / src.name
    alone.parent.mkdir()
    shutil.copy(src, alone)
    db = tmp_path / "t.duckdb"
    ingest_paths(db, alone)
    assert rows(db, "SELECT rank, rank_source, device_id FROM rank") == [(1, "file_name", 1)]
    assert rows(db, "SELECT value FROM profiler_db_meta WHERE name IN ('rank_id', 'device_id') ORDER BY name") == [
        ("1",), ("1",)]


@pytest.mark.corpus
def test_a_time_that_is_not_an_integer_is_refused_with_table_column_and_row(tmp_path):
    rank = tmp_path / "rank0_ascend_pt"
    shutil.copytree(corpus_dir(f"{NEW}/rank0_ascend_pt"), rank, ignore=shutil.ignore_patterns("analysis.db"))
    pdb = profiler_db(rank)
    con = sqlite3.connect(pdb)
    con.execute("UPDATE TASK SET startNs = 'n/a' WHERE rowid = 7")
    con.commit()
    con.close()
    db = tmp_path / "t.duckdb"
    with pytest.raises(InputError) as e:
        ingest_paths(db, rank)
    msg = str(e.value)
    assert "TASK.startNs" in msg and "rowid 7" in msg and pdb.name in msg
    assert not db.exists() or rows(db, "SELECT count(*) FROM duckdb_tables() WHERE table_name = 'kernel'") == [(0,)]


@pytest.mark.corpus
def test_text_columns_null_in_a_whole_first_batch(tmp_path, monkeypatch):
    """The driver types a column from its first Arrow batch; a text column whose first batch is all
    NULL must still read its later strings (batches of 4 rows here)."""
    from tracedb.ingestion.readers import ascend_db
    monkeypatch.setattr(ascend_db, "BATCH_ROWS", 4)
    rank = tmp_path / "rank0_ascend_pt"
    shutil.copytree(corpus_dir(f"{NEW}/rank0_ascend_pt"), rank, ignore=shutil.ignore_patterns("analysis.db"))
    pdb = profiler_db(rank)
    con = sqlite3.connect(pdb)
    con.execute("UPDATE MEMORY_RECORD SET streamPtr = NULL WHERE rowid <= 10")
    con.execute("UPDATE META_DATA SET value = NULL WHERE rowid <= 4")
    con.commit()
    expected = con.execute("SELECT count(streamPtr), count(*) FROM MEMORY_RECORD").fetchone()
    con.close()
    db = tmp_path / "t.duckdb"
    ingest_paths(db, rank)
    assert rows(db, "SELECT count(stream_ptr), count(*) FROM memory WHERE kind = 'record'") == [expected]
    assert rows(db, "SELECT count(*) FROM kernel") == [(191 + 24,)]     # + the 24 MEMCPY_ASYNC copy rows
    assert rows(db, "SELECT value FROM profiler_db_meta WHERE name = 'SCHEMA_VERSION'") == [(None,)]
    assert rows(db, "SELECT count(*) FROM profiler_db_meta WHERE name = 'ENV_VARIABLES' AND value LIKE '{%'") == [(1,)]


@pytest.mark.corpus
@pytest.mark.parametrize("rowid", [1, 9])
def test_a_real_among_integers_is_refused_not_rounded(tmp_path, rowid):
    """A REAL in an INTEGER column (first row: the driver would type the column double; later:
    its type check) is refused with its place, never rounded into the int64 column."""
    rank = tmp_path / "rank0_ascend_pt"
    shutil.copytree(corpus_dir(f"{NEW}/rank0_ascend_pt"), rank, ignore=shutil.ignore_patterns("analysis.db"))
    pdb = profiler_db(rank)
    con = sqlite3.connect(pdb)
    con.execute(f"UPDATE COMMUNICATION_TASK_INFO SET size = 2.5 WHERE rowid = {rowid}")
    con.commit()
    con.close()
    with pytest.raises(InputError) as e:
        ingest_paths(tmp_path / "t.duckdb", rank)
    assert "COMMUNICATION_TASK_INFO.size" in str(e.value) and f"rowid {rowid}" in str(e.value)


@pytest.mark.process
@pytest.mark.corpus
def test_the_cli_reads_a_profiler_db_in_its_own_process(tmp_path):
    """`tracedb ingest` as users run it: a fresh interpreter, where tracedb has loaded DuckDB's
    engine module without the duckdb package. DuckDB 2.0 scans the reader's Arrow batches only
    after the package is imported, and this test process imports it (conftest), which hid a
    failure of every CLI ingest of a profiler DB. Counts from sqlite3: 187 compute tasks, 4
    communication ops, 24 MEMCPY_ASYNC copies."""
    rank_dir = corpus_dir(f"{NEW}/rank0_ascend_pt")
    pdb = profiler_db(rank_dir)
    n_compute = query(pdb, "SELECT count(*) FROM TASK JOIN COMPUTE_TASK_INFO USING (globalTaskId)")[0][0]
    n_comm = query(pdb, "SELECT count(*) FROM COMMUNICATION_OP")[0][0]
    n_copy = query(pdb, "SELECT count(*) FROM TASK t JOIN STRING_IDS s ON s.id = t.taskType "
                        "WHERE s.value = 'MEMCPY_ASYNC'")[0][0]
    assert (n_compute, n_comm, n_copy) == (187, 4, 24)
    db = tmp_path / "t.duckdb"
    res = subprocess.run([sys.executable, "-m", "tracedb.cli", "-q", "ingest", "--db", str(db), str(rank_dir)],
                         capture_output=True, text=True, timeout=300)
    assert res.returncode == 0, res.stderr
    assert rows(db, "SELECT count(*) - count(copy_kind) - count_if(is_communication), count_if(is_communication), "
                    "count(copy_kind) FROM kernel") == [(n_compute, n_comm, n_copy)]
