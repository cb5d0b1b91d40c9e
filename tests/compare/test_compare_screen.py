"""``tracedb compare`` at 120 columns on real corpus pairs (issue 43's "done when"): no line longer
than the terminal, the comparison number of every overall row on screen, one op column, the
autograd spelling of two PyTorch versions matched without a user map, and op_diff in one order
(ops both runs have first, then |diff|) in the CLI and in the view the summary and report read.

Pairs: GPU↔NPU = the Kineto resnet50 trace (PyTorch 1.8: ``torch::autograd::AccumulateGrad``)
against the msinsight level1 rank 0 (torch_npu, PyTorch 2: ``autograd::engine::evaluate_function:
torch::autograd::AccumulateGrad``); NPU↔NPU = msinsight-2024 level1 rank 0 against the same rank.
"""
from __future__ import annotations

import pytest
from typer.testing import CliRunner

from conftest import corpus_path, ingest_paths, rows
from tracedb.cli import app
from tracedb.render.table import fixed

pytestmark = pytest.mark.corpus
runner = CliRunner()
L1 = "msinsight/test/data/pytorch/text/level1/rank0_ascend_pt"
OLD = "msinsight-2024/test/data/pytorch/text/level1/rank0_ascend_pt"
GPU = "kineto/tb_plugin/samples/resnet50_num_workers_0/worker0.pt.trace.json.gz"


@pytest.fixture(scope="module")
def corpus_db(tmp_path_factory):
    db = tmp_path_factory.mktemp("screen") / "t.duckdb"
    ingest_paths(db, corpus_path(GPU), run="gpu")
    ingest_paths(db, corpus_path(L1), run="npu")
    ingest_paths(db, corpus_path(OLD), run="npu_2024")
    return db


def _compare(db, base, comp):
    res = runner.invoke(app, ["compare", base, comp, "--db", str(db)], env={"COLUMNS": "120"})
    assert res.exit_code == 0, res.output
    return res


@pytest.mark.parametrize("base", ["gpu", "npu_2024"])
def test_every_overall_row_fits_120_columns_with_its_comparison_number(corpus_db, base):
    out = _compare(corpus_db, base, "npu").stdout
    assert max(len(line) for line in out.splitlines()) <= 120
    overall = out[out.index("overall_comparison"):out.index("op_diff —")]
    lines = overall.splitlines()
    for metric, dur, size, gbps in rows(corpus_db, "SELECT metric, comparison_dur_ns, comparison_size_bytes, "
                                                   "comparison_bandwidth_gbps FROM overall_comparison_between(?, ?)",
                                        [base, "npu"]):
        shown = (fixed(dur, 10 ** 6, 3) if dur is not None else fixed(size, 2 ** 30, 2) if size is not None
                 else fixed(gbps, 1, 2) if gbps is not None else None)
        if shown is None:
            continue
        found = [line for line in lines if line.strip().startswith(metric + "  ")]
        assert found, (metric, overall)
        line = found[0] if len(found) == 1 else next(x for x in found if f" {shown} " in f"{x} ")
        assert f" {shown} " in f"{line} ", (metric, shown, line)
    ops = out[out.index("op_diff —"):]
    header = ops.splitlines()[2]
    assert "op_name" in header and "op_type" not in ops and base not in header     # one op column, runs in titles


def test_autograd_spellings_match_without_a_user_map_and_one_order_everywhere(corpus_db):
    res = _compare(corpus_db, "gpu", "npu")
    got = rows(corpus_db, "SELECT op_name, baseline_calls, comparison_calls, diff_total_ns FROM "
                          "op_diff_between('gpu', 'npu')")
    accumulate = [r for r in got if r[0] == "torch::autograd::AccumulateGrad"]
    # the Kineto trace's 966 AccumulateGrad ops (6 steps) against the NPU capture's 16 (1 step)
    assert accumulate and accumulate[0][1:3] == (966.0, 16.0)
    # one order: ops both runs have first, then |diff| descending (the view the summary and the
    # report read is in that order, and the CLI prints its first rows)
    both = [r[1] > 0 and r[2] > 0 for r in got]
    assert both == sorted(both, reverse=True)
    for group in (True, False):
        diffs = [abs(r[3]) for r, b in zip(got, both) if b == group]
        assert diffs == sorted(diffs, reverse=True)
    printed = res.stdout[res.stdout.index("op_diff —"):].splitlines()[4:]
    assert [line.split("  ")[0] for line in printed[:5]] == [r[0] for r in got[:5]]
    # the captures hold 6 and 1 steps: said, and compared per step as well
    assert "note: the captures hold different numbers of steps: gpu 6, npu 1." in res.stderr
    assert "step_comparison — one step, per rank: gpu mean of 6 steps, npu mean of 1 step" in res.stdout
