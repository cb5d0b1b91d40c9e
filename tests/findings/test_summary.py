"""tracedb summary: the findings carry the views' numbers (slow_rank, op_diff), which match the
profiler's own step_trace_time.csv."""
from __future__ import annotations

import re

import json

import pytest
from typer.testing import CliRunner

from conftest import LEVEL1, LEVEL1_2024, ingest_paths, ingested, ingested_runs, rows
from tracedb.cli import app

runner = CliRunner()


@pytest.fixture(scope="module")
def db(tmp_path_factory):
    path = tmp_path_factory.mktemp("sum") / "t.duckdb"
    ingested_runs(path, (LEVEL1, {"role": "baseline"}), (LEVEL1_2024, {"role": "comparison"}))
    return str(path)


def findings(db, *args) -> dict[tuple[str, str], dict]:
    res = runner.invoke(app, ["summary", "--db", db, "--format", "json", *args])
    assert res.exit_code == 0, res.stderr
    return {(f["run_name"], f["topic"]): f for f in json.loads(res.stdout)}


def test_step_split_and_slowest_rank(db):
    got = findings(db, "--run", "level1")
    # step_trace_time.csv, ranks 0 and 1 of step 50 (µs): Stage 136581.0 / 131912.5, Computing
    # 8873.756 / 8878.295, Not Overlapped 101963.203 / 96359.047, Free 25744.050 / 26675.274
    stage = 136581.0 + 131912.5
    split = got[("level1", "step")]["finding"]
    # the shares as the summary words them: whole percent from 10 %, one decimal below
    for word, part, said in (("computing", 8873.756 + 8878.295, "6.6 %"),        # 6.61 %
                             ("exposed communication", 101963.203 + 96359.047, "74 %"),   # 73.87 %
                             ("free", 25744.050 + 26675.274, "20 %")):           # 19.52 %
        share = 100 * part / stage
        assert f"{word} {said}" in split and float(said.split()[0]) == round(share, 1 if share < 10 else 0), split
    assert split.startswith("Step: mean 134.2 ms over 2 ranks × 1 step: ")     # (136581.0 + 131912.5) / 2 µs
    # the slowest rank with slow_rank's own numbers
    (r,) = rows(db, "SELECT rank, step, e2e_ns, behind_fastest_ns, slowest_part, "
                    "communication_not_overlapped_excess_ns FROM slow_rank WHERE behind_fastest_ns > 0")
    assert r[:2] == (0, 50) and abs(r[2] - 136_581_000) <= 500 and abs(r[3] - 4_668_500) <= 500   # step_breakdown_check tolerance
    assert r[4] == "communication_not_overlapped"
    slow = got[("level1", "slow rank")]
    # the cause (issue 39): the rank that arrived last. communication.json's Wait Time per op and rank
    # (comm_op.wait_ns): rank 1 waited less than rank 0 in 3 of the 4 allreduces; slow_rank's own
    # numbers for how long the others waited and rank 1's slowest part
    waits = rows(db, "SELECT op_name, rank, wait_ns FROM comm_op WHERE run_name = 'level1' ORDER BY op_name, rank")
    last = sum(1 for i in range(0, len(waits), 2) if waits[i + 1][2] < waits[i][2])
    ((cause, lateness, part),) = rows(db, "SELECT s.cause_rank, s.cause_lateness_ns, c.slowest_part FROM slow_rank AS s "
                                          "JOIN slow_rank AS c ON c.run_name = s.run_name AND c.step = s.step "
                                          "AND c.rank = s.cause_rank WHERE s.run_name = 'level1' AND s.rank = 0")
    assert (last, cause, part) == (3, 1, "free")
    assert slow["finding"] == (f"Slowest rank: rank 0 in step 50, {r[2] / 1e6:.1f} ms, {r[3] / 1e6:.2f} ms behind the "
                               f"fastest of 2 ranks; its exposed communication is {r[5] / 1e6:.2f} ms above the "
                               f"ranks' median; not slow by msprof-analyze's 5 % rule nor MindInsight's 20 % rule. "
                               f"Rank 0 is the victim: the cause is rank 1, which arrived last at 3 collectives (the "
                               f"others waited up to {lateness / 1e6:.2f} ms for it; its slowest part is free time): "
                               f"look at rank 1 first.")
    assert slow["source"] == "tracedb query slow_rank --run level1 --step 50"
    assert ("level1_2024_rank0_ascend_pt", "step") not in got
    # the free time: msprof-analyze's free_analysis reasons, the longest interval first
    (g,) = rows(db, "SELECT rank, step, dur_ns, prev_kernel, next_kernel FROM free_analysis WHERE run_name = 'level1' "
                    "AND free_order = 1 ORDER BY dur_ns DESC LIMIT 1")
    free = got[("level1", "free time")]["finding"]
    assert free.endswith(f"The longest gap: {g[2] / 1e6:.2f} ms on rank {g[0]}, step {g[1]}, after {g[3]}, "
                         f"before {g[4]}.")
    assert "of it is the framework dispatching nothing (the host was slow to issue work)" in free


def test_top_degraded_op_is_op_diffs(db):
    """The top op is op_diff's first row, in the view's own order."""
    got = findings(db)
    top = rows(db, "SELECT op_type, diff_total_ns, total_ratio FROM op_diff LIMIT 1")
    op = got[("level1 → level1_2024_rank0_ascend_pt", "op diff")]["finding"]
    if not top:     # op_diff by framework op (branch compare) needs the op tree of both runs
        assert op == "Op diff: the two runs have no framework op to compare."
        return
    (top,) = top
    assert op.startswith(f"Top op of op_diff: {top[0]}, ")
    # the per-rank difference as the summary words it: a sign, then ms with 2 decimals below 10 ms,
    # 1 from 10 ms (op_diff's order puts the largest |diff| of the ops both runs have first)
    sign, value = re.search(r"per rank, ([+−])([\d,.]+) ms", op).groups()
    want = top[1] / 1e6
    assert (sign == "−") == (want < 0) and abs(float(value.replace(",", "")) - abs(want)) <= (0.05 if abs(want) >= 10
                                                                                             else 0.005)
    if top[2] is None:
        assert op.endswith(": new in the comparison run.")
    else:
        assert op.endswith(f"({top[2]:.2f}×): " + ("degraded, beyond MindInsight's ±20 %." if top[2] > 1.2
                                                    else "improved, beyond MindInsight's ±20 %." if top[2] < 0.8
                                                    else "within MindInsight's ±20 %."))
    res = runner.invoke(app, ["summary", "--db", db], env={"COLUMNS": "100"})    # wrapped at 100 wherever it runs
    assert res.exit_code == 0 and "comparison level1 → level1_2024_rank0_ascend_pt" in res.stdout
    assert "      → tracedb query op_diff --baseline level1 --comparison level1_2024_rank0_ascend_pt" in res.stdout
    res = runner.invoke(app, ["summary", "--db", db, "--run", "nosuch"])
    assert res.exit_code == 1 and "no run named 'nosuch'" in res.stderr


def test_readme_sample_is_real_output(tmp_path):
    import re

    from conftest import ROOT
    text = (ROOT / "docs/findings.md").read_text()
    sample = re.search(r"```text\n\$ tracedb summary\n(.*?)```", text, re.S).group(1)
    path = tmp_path / "t.duckdb"
    ingested(path, LEVEL1)
    res = runner.invoke(app, ["summary", "--db", str(path)], env={"COLUMNS": "100"})    # wrapped at 100
    assert res.exit_code == 0 and res.stdout == sample


BERT = "tracelens/tests/traces/h100/gaunernst_bert-small-uncased__1016001.json.gz"
RESNET = "kineto/tb_plugin/samples/resnet50_num_workers_0/worker0.1623143089861.pt.trace.json.gz"


@pytest.mark.corpus
def test_memory_peak_against_device_capacity(tmp_path):
    """Kineto deviceProperties → device; memory_peak.capacity_ratio and the summary's sentence.

    By hand from the BERT-small H100 trace: deviceProperties = [{id 0, "NVIDIA H100 80GB HBM3",
    totalGlobalMem 85018279936}]; its [memory] events of Device Type 1 / Device Id 0 reach
    Total Reserved 121634816 and Total Allocated 101305344. The ResNet50 V100 trace lists four
    devices, id 0 with 34084028416 B and ids 1-3 with 34087305216 B; its [memory] events carry no
    totals (PyTorch 1.9), so the capacity is known but the ratio is not."""
    import gzip
    import shutil

    from conftest import corpus_path
    bert, resnet = corpus_path(BERT), corpus_path(RESNET)
    plain = tmp_path / "bert.pt.trace.json"          # the uncompressed file takes the other read path
    with gzip.open(bert) as src, open(plain, "wb") as dst:
        shutil.copyfileobj(src, dst)
    db = tmp_path / "t.duckdb"
    ingest_paths(db, bert, run="gz")
    ingest_paths(db, plain, run="plain")
    ingest_paths(db, resnet, run="resnet")
    ingest_paths(db, LEVEL1, run="npu")
    h100 = (0, "CUDA:0", "NVIDIA H100 80GB HBM3", 85018279936, "kineto_device_properties")
    got = rows(db, "SELECT run_name, rank, device_id, device, device_name, memory_capacity_bytes, source "
                   "FROM device JOIN run USING (run_id) ORDER BY run_name, device_id")
    v100 = "Tesla V100-DGXS-32GB"
    assert got == [("gz", 0, *h100), ("plain", 0, *h100)] + [
        ("resnet", 0, i, f"CUDA:{i}", v100, 34084028416 if i == 0 else 34087305216, "kineto_device_properties")
        for i in range(4)]
    assert rows(db, "SELECT run_name, device, peak_reserved_bytes, capacity_bytes, capacity_ratio FROM memory_peak "
                    "WHERE device LIKE 'CUDA%' ORDER BY run_name") == [
        ("gz", "CUDA:0", 121634816, 85018279936, 121634816 / 85018279936),
        ("plain", "CUDA:0", 121634816, 85018279936, 121634816 / 85018279936),
        ("resnet", "CUDA:0", None, 34084028416, None)]
    assert rows(db, "SELECT count(*) FROM memory_peak WHERE capacity_bytes IS NOT NULL AND device NOT LIKE 'CUDA%'") \
        == [(0,)]                                   # CPU and NPU rows: no capacity in the input
    got = findings(str(db))
    assert got[("gz", "memory")]["finding"] == (
        "Memory peak: 0.11 GiB reserved by PyTorch on rank 0 (CUDA:0), 0.09 GiB allocated; "
        "0.1 % of the device's 79.18 GiB.")                                    # 121634816 / 85018279936 = 0.14 %
    assert got[("npu", "memory")]["finding"].endswith("; the profiler output does not give the device's capacity.")
    assert ("resnet", "memory") not in got          # a PyTorch 1.9 trace has no Total Reserved: no peak
    # the device rows are the file's: removing the run removes them
    assert runner.invoke(app, ["runs", "rm", "gz", "--db", str(db)]).exit_code == 0
    assert rows(db, "SELECT count(*) FROM device WHERE run_id NOT IN (SELECT run_id FROM run)") == [(0,)]


def test_device_properties_that_are_not_devices_are_left_out():
    """deviceProperties is optional metadata: entries without an integer id are skipped, a
    capacity that is not a non-negative JSON integer is NULL, anything but a list gives none."""
    from tracedb.ingestion.metadata import kineto_devices
    props = [{"id": 0, "name": "A", "totalGlobalMem": 5}, {"id": "x"}, "junk", {"name": "no id"},
             {"id": 1, "totalGlobalMem": -3}, {"id": 2, "totalGlobalMem": True}, {"id": "3", "totalGlobalMem": 2.5},
             {"id": -1, "totalGlobalMem": 7}]
    assert kineto_devices({"deviceProperties": props}) == [
        (0, "CUDA:0", "A", 5), (1, "CUDA:1", None, None), (2, "CUDA:2", None, None), (3, "CUDA:3", None, None)]
    assert kineto_devices({"deviceProperties": {"id": 0}}) == [] == kineto_devices({})
