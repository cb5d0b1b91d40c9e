"""MindSpore flat profiler/ output: step_trace_raw → step/step_breakdown, hccl_raw and HCCL .trace → link.

Expected values are read from the files in the test (csv / json modules), never from tracedb.
"""
from __future__ import annotations

import csv
import json
import shutil
from pathlib import Path

import pytest

from conftest import CORPUS, MINDSPORE, corpus_path, ingest_paths, ingested, rows
from tracedb.errors import InputError

MS = MINDSPORE


def step_rows(path: Path) -> list[dict]:
    with open(path, newline="") as f:
        return [r for r in csv.DictReader(f) if r["step_num"].strip().isdigit() and int(r["step_num"]) > 0]


def step_trace_raw_files() -> list:
    """The fixture's step_trace_raw, and every corpus one (marked corpus: CI runs them)."""
    corpus = sorted(CORPUS.rglob("step_trace_raw_*_detail_time.csv")) if CORPUS.is_dir() else []
    return ([MS / "step_trace_raw_6_detail_time.csv"]
            + [pytest.param(p, marks=pytest.mark.corpus, id=str(p.relative_to(CORPUS))) for p in corpus])


@pytest.mark.parametrize("path", step_trace_raw_files(), ids=lambda p: p.name)
def test_points_times_ten(path, tmp_path):
    """iteration_interval_ns, fp_and_bp_ns, tail_ns = the point columns of each row × 10 ns, exactly;
    and equal to the file's own iteration_interval / fp_and_bp / tail columns × 10."""
    want = {}
    for r in step_rows(path):
        s, e, fp, bp = (int(r[k]) for k in ("start_point", "end_point", "fp_point", "bp_point"))
        want[int(r["step_num"])] = ((fp - s) * 10, (bp - fp) * 10, (e - bp) * 10, (e - s) * 10)
        assert want[int(r["step_num"])][:3] == tuple(int(r[k]) * 10 for k in ("iteration_interval", "fp_and_bp", "tail"))
    db = tmp_path / "t.duckdb"
    ingest_paths(db, path, run="ms")
    got = {r[0]: r[1:] for r in rows(db, "SELECT step, iteration_interval_ns, fp_and_bp_ns, tail_ns, e2e_ns "
                                         "FROM step_breakdown")}
    assert got == want and len(want) >= 1


def test_fixture_folder_by_hand(tmp_path):
    db = tmp_path / "t.duckdb"
    ingested(db, MS)
    # a profiler/ folder is named after the job folder that holds it
    assert rows(db, "SELECT run_name, platform FROM run") == [("mindspore", "npu")]
    assert rows(db, "SELECT rank, rank_source FROM rank") == [(6, "file_name")]
    # step_trace_raw_6 row 1: 61688106196804 .. 61688109551051 ticks; AllReduce 61688109006157 .. 61688109460237
    assert rows(db, "SELECT step, step_start_ns, step_end_ns, communication_ns, computing_ns, free_ns "
                    "FROM step_breakdown ORDER BY step")[0] == (1, 616881061968040, 616881095510510, 4540800, None, None)
    assert rows(db, "SELECT name, op_type, ts_ns, dur_ns, is_communication FROM kernel WHERE step = 1") == [
        ("stream_24_0_AllReduce-op3143", "AllReduce", 616881090061570, 4540800, True)]
    # hccl_raw_6 step 1, op stream_24_0_AllReduce-op3143, link 1-0 SDMA: [4.36566 ms, 94356.992 KB, ...]
    assert rows(db, "SELECT dur_ns, size_bytes FROM link WHERE task_name = 'hccl_raw' AND step = 1 "
                    "AND src_rank = 1 AND dst_rank = 0") == [(4365660, 94356992)]
    # .trace: allReduce_1_1_dev6/iter1.trace is the same execution as allReduce_1_1/iter1.trace
    # (hex instead of int sizes): ingested once, from the first file; iter2 (hex sizes) is kept:
    # its Reduce Inline has size "0x2cfe300" = 47178496 bytes and lies in step 2
    assert rows(db, "SELECT op_name, task_name, size_bytes, ts_ns, dur_ns, plane_id, step FROM link "
                    "WHERE task_name = 'Reduce_Inline' ORDER BY ts_ns") == [
        ("allReduce_1_1", "Reduce_Inline", 47178496, 616881090072550, 2183310, 2, 1),
        ("allReduce_1_1_dev6", "Reduce_Inline", 47178496, 616881123727720, 2186190, 2, 2)]
    n = len(json.loads((MS / "hccl_info/allReduce_1_1/iter1.trace").read_text())["traceEvents"]) + \
        len(json.loads((MS / "hccl_info/allReduce_1_1_dev6/iter2.trace").read_text())["traceEvents"])
    assert rows(db, "SELECT count(*) FROM link WHERE task_name <> 'hccl_raw'") == [(n,)] and n == 38
    assert rows(db, "SELECT count(*) FROM source_file WHERE format = 'hccl_trace'") == [(2,)]
    # MindSpore's communication_cost is the transit time of the op's main stream: comm_op's
    # transit of the execution in step 1 and 2 equals hccl_raw's communication_cost (ms)
    with open(MS / "hccl_raw_6.csv", newline="") as f:
        cost = {int(r["step_num"]): float(r["communication_cost"]) for r in csv.DictReader(f) if r["step_num"].isdigit()}
    got = dict(rows(db, "SELECT step, transit_ns FROM comm_op"))
    assert got.keys() == cost.keys() and all(abs(got[s] - cost[s] * 1e6) < 1 for s in cost)


@pytest.mark.corpus
def test_cluster_folder_is_one_run_and_a_missing_rank_is_reported(tmp_path):
    src = corpus_path("mindinsight/tests/utils/resource/cluster_propose")
    db = tmp_path / "t.duckdb"
    ingest_paths(db, src, run="cluster")
    assert rows(db, "SELECT rank FROM rank ORDER BY rank") == [(0,), (1,), (2,)]
    assert rows(db, "SELECT count(DISTINCT run_id) FROM step") == [(1,)]
    # drop rank 1: ranks 0 and 2 remain, and tracedb check reports the gap (no crash)
    d = tmp_path / "cluster_no_rank1"
    shutil.copytree(src, d, ignore=shutil.ignore_patterns("*_1.csv", "*_1_detail_time.csv"))
    db2 = tmp_path / "t2.duckdb"
    ingest_paths(db2, d, run="gap")
    assert rows(db2, "SELECT rank FROM rank ORDER BY rank") == [(0,), (2,)]
    assert rows(db2, "SELECT check_name, message FROM check_finding WHERE check_name = 'missing_ranks'") == [
        ("missing_ranks", "run has 2 ranks but 3 are expected (world_size or the highest rank number)")]


def test_bad_mindspore_files(tmp_path):
    d = tmp_path / "profiler"
    shutil.copytree(MS, d)
    (d / "step_trace_raw_6_detail_time.csv").write_text("step_num,end_point\n1,5\n")
    with pytest.raises(InputError) as e:
        ingest_paths(tmp_path / "t.duckdb", d)
    assert "step_trace_raw_6_detail_time.csv" in str(e.value) and "start_point" in str(e.value)
    shutil.copy(MS / "step_trace_raw_6_detail_time.csv", d)
    trace = d / "hccl_info" / "allReduce_1_1" / "iter1.trace"
    trace.write_text(trace.read_text()[:3000])
    with pytest.raises(InputError) as e:
        ingest_paths(tmp_path / "t.duckdb", d)
    assert "iter1.trace" in str(e.value)
    # nothing written: a new file is removed again (tracedb ingest), or holds no link table
    assert not (tmp_path / "t.duckdb").exists() or \
        rows(tmp_path / "t.duckdb", "SELECT count(*) FROM duckdb_tables() WHERE table_name = 'link'") == [(0,)]


@pytest.mark.corpus
def test_cann_timeline_slices(tmp_path):
    """PROF_*/device_*/timeline: the combined msprof_*.json and step_trace_*.json are read (the
    hccl_*/task_time_* slices are subsets of msprof_*.json and are skipped); HCCL plane tasks
    become link rows and a comm_op."""
    src = corpus_path("mindinsight/tests/utils/resource/profiler")
    tl = next(src.glob("PROF_*/device_0/timeline"))
    want = sum(len(json.loads((tl / n).read_text())) for n in ("msprof_0_2_1.json", "step_trace_0_2_1.json"))
    hccl_x = sum(1 for e in json.loads((tl / "hccl_0_2_1.json").read_text()) if e.get("ph") == "X")
    db = tmp_path / "t.duckdb"
    ingest_paths(db, src, run="ms")
    assert rows(db, "SELECT count(*) FROM event WHERE rank = 0") == [(want,)]
    assert rows(db, "SELECT count(*) FROM link WHERE rank = 0") == [(hccl_x - 1,)]   # all but the op slice
    assert rows(db, "SELECT op_name, op_type FROM comm_op") == [("Default/AllReduce-op534_0", "allreduce")]


@pytest.mark.corpus
def test_pipeline_receive_is_bubble(tmp_path):
    """cluster_propose rank 0 (pipeline stage 2): Bubble = Σ of its Receive-op durations × 10 ns
    per step, Stage = total × 10 − Bubble."""
    path = corpus_path("mindinsight/tests/utils/resource/cluster_propose/step_trace_raw_0_detail_time.csv")
    want = {}
    for r in step_rows(path):
        bubble = sum(int(v) for k, v in r.items() if "Receive-op" in k and not k.endswith(("_start_point", "_end_point")))
        want[int(r["step_num"])] = (bubble * 10, int(r["total"]) * 10 - bubble * 10)
    db = tmp_path / "t.duckdb"
    ingest_paths(db, path, run="pp")
    got = {r[0]: r[1:] for r in rows(db, "SELECT step, bubble_ns, stage_ns FROM step_breakdown")}
    assert got == want and all(b > 0 for b, _ in want.values())
