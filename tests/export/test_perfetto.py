"""tracedb export --perfetto: Chrome trace JSON read back and checked against the tables and views."""
from __future__ import annotations

import json
import shutil
from collections import Counter, defaultdict
from decimal import Decimal

import duckdb
import pytest
from typer.testing import CliRunner

from conftest import LEVEL1, corpus_path, ingest_paths, ingested, rows
from tracedb.cli import app

runner = CliRunner()
KINETO = "kineto/tb_plugin/samples/resnet50_num_workers_0/worker0.pt.trace.json.gz"
KERNEL_CATS = {"kernel", "communication", "copy"}


@pytest.fixture(scope="module")
def ascend_db(tmp_path_factory):
    db = tmp_path_factory.mktemp("pf") / "ascend.duckdb"
    ingested(db, LEVEL1, run="npu")
    return db


@pytest.fixture(scope="module")
def kineto_db(tmp_path_factory):
    db = tmp_path_factory.mktemp("pf") / "kineto.duckdb"
    ingest_paths(db, corpus_path(KINETO), run="gpu")
    return db


def export(db, out, *args) -> dict:
    res = runner.invoke(app, ["export", "--perfetto", str(out), "--db", str(db), *args])
    assert res.exit_code == 0, res.output
    # Decimal keeps the µs text exact: 1736408883704643.212 would lose its ns through a float
    return json.loads(out.read_text(), parse_float=Decimal)


def slices(doc) -> list[dict]:
    return [e for e in doc["traceEvents"] if e["ph"] == "X"]


def thread_names(doc) -> dict[tuple, str]:
    return {(e["pid"], e["tid"]): e["args"]["name"] for e in doc["traceEvents"]
            if e["ph"] == "M" and e["name"] == "thread_name"}


def ns(us: Decimal) -> int:
    assert us.as_tuple().exponent == -3, us      # written with exactly 3 decimals
    v = us * 1000
    assert v == v.to_integral_value()
    return int(v)


def assert_nested_per_track(doc) -> None:
    """On every track, two slices are disjoint or one holds the other (what Perfetto draws)."""
    by_track = defaultdict(list)
    for e in slices(doc):
        by_track[(e["pid"], e["tid"])].append((ns(e["ts"]), ns(e["ts"]) + ns(e["dur"]), e["name"]))
    for track, items in by_track.items():
        stack = []
        for ts, end, name in sorted(items, key=lambda x: (x[0], -x[1])):
            while stack and stack[-1][0] <= ts:
                stack.pop()
            assert not stack or end <= stack[-1][0], (thread_names(doc)[track], name, stack[-1])
            stack.append((end, name))


def kernel_counts(doc) -> Counter:
    return Counter(e["args"].get("stream") for e in slices(doc) if e["cat"] in KERNEL_CATS)


def check_rank(db, doc, run, rank) -> None:
    assert doc["displayTimeUnit"] == "ns"
    assert_nested_per_track(doc)
    # kernel count per stream (over all of a stream's tracks) equals the kernel table's
    want = Counter({s: n for s, n in rows(db, "SELECT k.stream_id, count(*) FROM kernel k JOIN run USING (run_id) "
                                             "WHERE run_name = ? AND rank = ? GROUP BY ALL", [run, rank])})
    assert kernel_counts(doc) == want and sum(want.values()) > 0
    # ts / dur round-trip to the kernel's exact integer ns
    exact = {kid: (ts, dur) for kid, ts, dur in rows(
        db, "SELECT kernel_id, ts_ns, dur_ns FROM kernel JOIN run USING (run_id) WHERE run_name = ? AND rank = ?",
        [run, rank])}
    got = {e["args"]["kernel_id"]: (ns(e["ts"]), ns(e["dur"])) for e in slices(doc) if e["cat"] in KERNEL_CATS}
    assert got == exact
    # the free-time track holds exactly the view's free time (= step_breakdown.free_ns)
    names = thread_names(doc)
    free = [e for e in slices(doc) if names[(e["pid"], e["tid"])] == "Free time (view free_time)"]
    total = rows(db, "SELECT sum(free_ns) FROM step_breakdown WHERE run_name = ? AND rank = ?", [run, rank])[0][0]
    assert sum(ns(e["dur"]) for e in free) == total and total > 0


def test_ascend_rank(ascend_db, tmp_path):
    doc = export(ascend_db, tmp_path / "r0.json", "--run", "npu", "--rank", "0")
    check_rank(ascend_db, doc, "npu", 0)
    # an Ascend start keeps its sub-µs digits: kernel_details "Start Time(us)" 1736408883704643.212 style
    assert any(ns(e["ts"]) % 1000 for e in slices(doc) if e["cat"] == "kernel")
    names = set(thread_names(doc).values())
    assert {"Stream 2", "Stream 3", "Free time (view free_time)",
            "Uncovered communication (view uncovered_communication)"} <= names
    # uncovered communication: the view's ops with uncovered time, one slice each
    unc = [e for e in slices(doc) if e["cat"] == "uncovered_communication"]
    want = rows(ascend_db, "SELECT count(*) FROM uncovered_communication WHERE run_name = 'npu' AND rank = 0 "
                           "AND uncovered_ns > 0")[0][0]
    assert len(unc) == want > 0


def overlap_db(ascend_db, tmp_path, place) -> tuple:
    """A copy of the fixture whose first kernels on rank 0 stream 2 are moved by ``place`` (list of
    (ts, dur) per kernel, from the first kernel's start and the common duration); their ids."""
    db = tmp_path / "overlap.duckdb"
    shutil.copy(ascend_db, db)
    con = duckdb.connect(str(db))
    ks = con.execute("SELECT kernel_id, ts_ns FROM kernel WHERE rank = 0 AND stream_id = '2' AND copy_kind IS NULL "
                     "ORDER BY ts_ns LIMIT ?", [len(place)]).fetchall()
    for (kid, _), (ts, dur) in zip(ks, place):
        con.execute("UPDATE kernel SET ts_ns = ?, dur_ns = ? WHERE rank = 0 AND kernel_id = ?",
                    [ks[0][1] + ts, dur, kid])
    con.close()
    return db, [k[0] for k in ks]


def stream2_tracks(db, tmp_path) -> dict:
    doc = export(db, tmp_path / "r0.json", "--run", "npu", "--rank", "0")
    check_rank(db, doc, "npu", 0)   # nested per track, counts per stream, exact ns
    names = thread_names(doc)
    return {e["args"]["kernel_id"]: names[(e["pid"], e["tid"])] for e in slices(doc) if e["cat"] == "kernel"}


def test_overlapping_kernels_move_to_an_overlap_track(ascend_db, tmp_path):
    """Ascend/pytorch #133: each task starts 100 ns before the one before it ended (a chain):
    two tracks suffice, every other kernel on the overlap track."""
    db, ids = overlap_db(ascend_db, tmp_path, [(i * 900, 1000) for i in range(5)])
    track = stream2_tracks(db, tmp_path)
    assert [track[i] for i in ids] == ["Stream 2", "Stream 2 (overlap 1)", "Stream 2", "Stream 2 (overlap 1)",
                                       "Stream 2"]
    assert list(track.values()).count("Stream 2 (overlap 1)") == 2
    assert not any("overlap 2" in t for t in track.values())


def test_a_long_kernel_over_many(ascend_db, tmp_path):
    """One 10 µs task over eight 1 µs tasks that follow each other: the long one keeps the stream
    track, the eight share one overlap track (not eight tracks)."""
    db, ids = overlap_db(ascend_db, tmp_path, [(0, 10_000)] + [(500 + i * 1000, 1000) for i in range(8)])
    track = stream2_tracks(db, tmp_path)
    assert track[ids[0]] == "Stream 2"
    assert {track[i] for i in ids[1:]} == {"Stream 2 (overlap 1)"}


@pytest.mark.corpus
def test_kineto_rank_and_step(kineto_db, tmp_path):
    doc = export(kineto_db, tmp_path / "all.json")
    check_rank(kineto_db, doc, "gpu", 0)
    part = export(kineto_db, tmp_path / "s7.json", "--step", "7")
    assert_nested_per_track(part)
    assert part["otherData"]["step"] == 7
    h0, h1, d0, d1 = rows(kineto_db, "SELECT host_start_ns, host_end_ns, device_start_ns, device_end_ns "
                                     "FROM step WHERE step = 7")[0]
    k = [e for e in slices(part) if e["cat"] in KERNEL_CATS]
    # every kernel overlaps the step's host or device window, and all such kernels are there
    for e in k:
        ts, end = ns(e["ts"]), ns(e["ts"]) + ns(e["dur"])
        assert (ts <= h1 and end >= h0) or (ts <= d1 and end >= d0)
    want = rows(kineto_db, "SELECT count(*) FROM kernel WHERE (ts_ns <= ? AND ts_ns + dur_ns >= ?) "
                           "OR (ts_ns <= ? AND ts_ns + dur_ns >= ?)", [h1, h0, d1, d0])[0][0]
    assert len(k) == want and 0 < want < len([e for e in slices(doc) if e["cat"] in KERNEL_CATS])
    free = sum(ns(e["dur"]) for e in slices(part) if e["cat"] == "free_time")
    assert free == rows(kineto_db, "SELECT free_ns FROM step_breakdown WHERE step = 7")[0][0]
    assert [e["name"] for e in slices(part) if e["cat"] == "step"] == ["Step 7"]


def test_usage_errors(ascend_db, tmp_path):
    res = runner.invoke(app, ["export", "--db", str(ascend_db)])
    assert res.exit_code == 2 and "exactly one of --parquet" in res.output
    res = runner.invoke(app, ["export", "--db", str(ascend_db), "--parquet", str(tmp_path / "p"),
                              "--perfetto", str(tmp_path / "x.json")])
    assert res.exit_code == 2
    res = runner.invoke(app, ["export", "--db", str(ascend_db), "--perfetto", str(tmp_path / "x.json")])
    assert res.exit_code == 1 and "--rank" in res.output and not (tmp_path / "x.json").exists()
    res = runner.invoke(app, ["export", "--db", str(ascend_db), "--perfetto", str(tmp_path / "x.json"),
                              "--rank", "0", "--step", "3"])
    assert res.exit_code == 1 and "no step 3" in res.output and not (tmp_path / "x.json").exists()
    res = runner.invoke(app, ["export", "--db", str(ascend_db), "--perfetto", str(tmp_path / "no" / "x.json"),
                              "--rank", "0"])
    assert res.exit_code == 1 and f"the folder {tmp_path / 'no'} does not exist" in res.output


@pytest.mark.corpus
def test_corpus_ascend_rank(tmp_path):
    """A corpus Ascend rank (msinsight level2, 2448 kernels on stream 2 plus HCCL ops)."""
    db = tmp_path / "l2.duckdb"
    ingest_paths(db, corpus_path("msinsight/test/st/level2/rank_0_ascend_pt"), run="l2")
    doc = export(db, tmp_path / "l2.json")
    check_rank(db, doc, "l2", 0)


def test_framework_ops_on_host_thread_tracks(ascend_db, tmp_path):
    """op rows (replaced here by two hand-made ones) land on their host thread's
    track with their exact ns, the child inside its parent."""
    db = tmp_path / "ops.duckdb"
    shutil.copy(ascend_db, db)
    con = duckdb.connect(str(db))
    t0 = con.execute("SELECT host_start_ns FROM step WHERE rank = 0").fetchone()[0] + 7
    con.execute("DELETE FROM op")     # the fixture's own ops (derive/110); two known ones instead
    con.execute("INSERT INTO op (run_id, rank, file_id, op_id, step, tid, ts_ns, dur_ns, name, parent_op_id, depth, "
                "source) VALUES (1, 0, 1, 1, 50, '4242', ?, 5001, 'aten::linear', NULL, 0, 'trace_view'), "
                "(1, 0, 1, 2, 50, '4242', ?, 2003, 'aten::addmm', 1, 1, 'trace_view')", [t0, t0 + 1000])
    con.close()
    doc = export(db, tmp_path / "r0.json", "--rank", "0")
    assert_nested_per_track(doc)
    names = thread_names(doc)
    ops = sorted((ns(e["ts"]) - t0, ns(e["dur"]), e["name"], names[(e["pid"], e["tid"])])
                 for e in slices(doc) if e["cat"] == "op")
    assert ops == [(0, 5001, "aten::linear", "Thread 4242"), (1000, 2003, "aten::addmm", "Thread 4242")]
