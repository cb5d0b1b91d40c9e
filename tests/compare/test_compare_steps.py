"""``tracedb compare`` is honest about steps (issue 39 #6) and reads like the query tables (issue 43),
on two hand-built runs whose numbers are worked out by hand below.

    gpu (baseline, 2 steps)                    npu (comparison, 1 step: 7)
    step 1: kernel [0, 100 ms)                  step 7: kernel [0, 150 ms), HCCL op [150, 250 ms)
    step 2: kernel [200, 500 ms)
    ops (device time of their kernels):         ops:
      step 1  torch::autograd::AccumulateGrad 10 ms   autograd::engine::evaluate_function:
              AddmmBackward 20 ms                        torch::autograd::AccumulateGrad 50 ms
      step 2  torch::autograd::AccumulateGrad 30 ms   autograd::engine::evaluate_function:
                                                         AddmmBackward0 5 ms

Before issue 39 #6 the first table was the whole capture whatever --baseline-step said (E2E 500 ms
for the gpu run against 250 ms), and nothing said that the runs hold 2 and 1 steps.
"""
from __future__ import annotations

import re

import pytest
from typer.testing import CliRunner

from tracedb.cli import app
from tracedb.compare.command import run_compare

MS = 1_000_000
runner = CliRunner()


def _op(con, run_id, op_id, step, name, ts, dur, parent, device):
    con.execute("INSERT INTO op (run_id, rank, file_id, op_id, step, tid, ts_ns, dur_ns, name, parent_op_id, depth, "
                "kernel_count, kernel_total_count, device_self_ns, device_total_ns, source) "
                "VALUES (?, 0, 1, ?, ?, 'main', ?, ?, ?, ?, ?, 1, 1, ?, ?, 'trace_view')",
                [run_id, op_id, step, ts, dur, name, parent, 0 if parent is None else 1, device, device])


def _kernel(con, run_id, kernel_id, step, name, ts, dur, comm=False):
    con.execute("INSERT INTO kernel (run_id, rank, file_id, kernel_id, step, name, ts_ns, dur_ns, is_communication, "
                "source) VALUES (?, 0, 1, ?, ?, ?, ?, ?, ?, 'case')", [run_id, kernel_id, step, name, ts, dur, comm])


@pytest.fixture(scope="module")
def pair(tmp_path_factory):
    from tracedb.store.db import connect
    from tracedb.store.library import install
    from tracedb.store.schema import apply_schema
    from tracedb.store import template
    db = tmp_path_factory.mktemp("steps") / "t.duckdb"
    con = connect(db)
    if not template.seed(con):
        apply_schema(con)
        install(con)
    con.execute("INSERT INTO run (run_id, run_name, platform) VALUES (1, 'gpu', 'gpu'), (2, 'npu', 'npu')")
    con.execute("INSERT INTO rank (run_id, rank) VALUES (1, 0), (2, 0)")
    con.execute("INSERT INTO step (run_id, rank, step, host_start_ns, host_end_ns) VALUES "
                f"(1, 0, 1, 0, {100 * MS}), (1, 0, 2, {200 * MS}, {500 * MS}), (2, 0, 7, 0, {250 * MS})")
    _kernel(con, 1, 1, 1, "k1", 0, 100 * MS)
    _kernel(con, 1, 2, 2, "k2", 200 * MS, 300 * MS)
    _kernel(con, 2, 1, 7, "k3", 0, 150 * MS)
    _kernel(con, 2, 2, 7, "hcom_allReduce__1_0_1", 150 * MS, 100 * MS, comm=True)
    _op(con, 1, 1, 1, "ProfilerStep#1", 0, 100 * MS, None, 30 * MS)
    _op(con, 1, 2, 1, "torch::autograd::AccumulateGrad", 1, 10, 1, 10 * MS)
    _op(con, 1, 3, 1, "AddmmBackward", 20, 10, 1, 20 * MS)
    _op(con, 1, 4, 2, "ProfilerStep#2", 200 * MS, 300 * MS, None, 30 * MS)
    _op(con, 1, 5, 2, "torch::autograd::AccumulateGrad", 200 * MS + 1, 10, 4, 30 * MS)
    _op(con, 2, 1, 7, "ProfilerStep#7", 0, 250 * MS, None, 55 * MS)
    _op(con, 2, 2, 7, "autograd::engine::evaluate_function: torch::autograd::AccumulateGrad", 1, 10, 1, 50 * MS)
    _op(con, 2, 3, 7, "autograd::engine::evaluate_function: AddmmBackward0", 20, 10, 1, 5 * MS)
    con.close()
    return db


def _section(report, view):
    return next((cols, rows) for v, cols, rows in report.sections if v == view)


def _by_metric(cols, rows, *names):
    return {r[0]: tuple(r[cols.index(n)] for n in names) for r in rows}


def test_a_chosen_step_is_what_the_first_table_compares(pair):
    rep = run_compare("gpu", "npu", pair, baseline_step=2, comparison_step=7)
    assert [s[0] for s in rep.sections] == ["step_comparison", "op_diff"]
    cols, rows = _section(rep, "step_comparison")
    got = _by_metric(cols, rows, "baseline_dur_ns", "comparison_dur_ns", "diff_ns", "change_pct",
                     "baseline_step_count", "comparison_step_count")
    # step 2 alone: E2E 300 ms, all of it computing; step 7: 150 ms computing + 100 ms HCCL
    assert got["E2E Time"] == (300 * MS, 250 * MS, -50 * MS, pytest.approx(-50 / 300 * 100), 1, 1)
    assert got["Computing Time"][:3] == (300 * MS, 150 * MS, -150 * MS)
    assert got["Uncovered Communication Time"][:4] == (0, 100 * MS, 100 * MS, None)
    assert rep.notes == [] or not any("numbers of steps" in n for n in rep.notes)
    # op_diff of the chosen steps only: AccumulateGrad 30 ms of step 2 against 50 ms
    cols, rows = _section(rep, "op_diff")
    top = dict(zip(cols, rows[0]))
    assert (top["op_name"], top["baseline_total_ns"], top["comparison_total_ns"]) == \
        ("torch::autograd::AccumulateGrad", 30 * MS, 50 * MS)


def test_different_step_counts_are_said_and_compared_per_step(pair):
    rep = run_compare("gpu", "npu", pair)
    assert [s[0] for s in rep.sections] == ["overall_comparison", "step_comparison", "op_diff"]
    assert rep.steps == (2, 1)
    (warning,) = [n for n in rep.notes if "numbers of steps" in n]
    assert "gpu 2, npu 1" in warning and "--baseline-step N --comparison-step M" in warning
    # whole capture: 0 .. 500 ms against 0 .. 250 ms; the step counts say what each side adds up
    cols, rows = _section(rep, "overall_comparison")
    got = _by_metric(cols, rows, "baseline_dur_ns", "comparison_dur_ns", "ratio", "change_pct",
                     "baseline_step_count", "comparison_step_count")
    assert got["E2E Time"] == (500 * MS, 250 * MS, 0.5, -50.0, 2, 1)
    assert got["Computing Time"][:4] == (400 * MS, 150 * MS, 150 / 400, pytest.approx((150 - 400) / 400 * 100))
    # the mean step: gpu (100 + 300) / 2 = 200 ms against npu's 250 ms
    cols, rows = _section(rep, "step_comparison")
    got = _by_metric(cols, rows, "baseline_dur_ns", "comparison_dur_ns", "diff_ns", "change_pct", "ratio",
                     "baseline_step_count", "comparison_step_count")
    assert got["E2E Time"] == (200 * MS, 250 * MS, 50 * MS, 25.0, 1.25, 2, 1)
    assert got["Computing Time"] == (200 * MS, 150 * MS, -50 * MS, -25.0, 0.75, 2, 1)
    assert [r[0] for r in rows] == ["Computing Time", "Uncovered Communication Time", "Free Time", "E2E Time"]


def test_op_diff_matched_first_shipped_name_row_and_the_name_map_hint(pair):
    rep = run_compare("gpu", "npu", pair)
    cols, rows = _section(rep, "op_diff")
    order = [(r[cols.index("op_name")], r[cols.index("diff_total_ns")]) for r in rows]
    # AccumulateGrad is one op across the two PyTorch spellings (schema/027's shipped row), matched:
    # first; then the one-sided ops by |diff|: AddmmBackward 20 ms before the NPU spelling's 5 ms
    assert order == [("torch::autograd::AccumulateGrad", 50 * MS - 40 * MS), ("AddmmBackward", -20 * MS),
                     ("autograd::engine::evaluate_function: AddmmBackward0", 5 * MS)]
    top = dict(zip(cols, rows[0]))
    assert (top["baseline_calls"], top["comparison_calls"], top["change_pct"]) == (2.0, 1.0, 25.0)
    (hint,) = [n for n in rep.notes if "--op-name-map" in n]
    assert "--op-name-map 'AddmmBackward=autograd::engine::evaluate_function: AddmmBackward0'" in hint


def test_the_cli_prints_titled_tables_that_honour_the_step(pair):
    res = runner.invoke(app, ["compare", "gpu", "npu", "--db", str(pair), "--baseline-step", "2",
                              "--comparison-step", "7"], env={"COLUMNS": "100"})
    assert res.exit_code == 0, res.output
    out = res.stdout
    assert out.startswith("gpu (baseline) → npu (comparison)\n")
    assert "step_comparison — one step, per rank: gpu step 2, npu step 7" in out
    assert re.search(r"^E2E Time\s+300\.000\s+250\.000\s+-50\.000\s+-16\.7$", out, re.M), out
    assert "overall_comparison" not in out                   # the whole capture cannot honour a step
    assert re.search(r"^torch::autograd::AccumulateGrad\s+30\.000\s+50\.000\s+20\.000\s+66\.7\s+1\s+1$", out, re.M), out
    assert max(len(line) for line in out.splitlines()) <= 100
    res = runner.invoke(app, ["compare", "gpu", "npu", "--db", str(pair)], env={"COLUMNS": "100"})
    assert "overall_comparison — whole capture, per rank: gpu 2 steps, npu 1 step" in res.stdout
    assert "step_comparison — one step, per rank: gpu mean of 2 steps, npu mean of 1 step" in res.stdout
    assert "note: the captures hold different numbers of steps: gpu 2, npu 1." in res.stderr
