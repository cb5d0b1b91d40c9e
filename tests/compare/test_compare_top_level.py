"""``tracedb compare --top-level msprof``: msprof-analyze's top-level ops (one tree over every host
thread) beside tracedb's per-thread ones (issue 39, point 3).

On HTA's ns-resolution trace the main thread wraps each step's backward pass in a
``## backward ##`` annotation and the autograd thread runs inside it. msprof-analyze's
OperatorCompare of the trace against itself has 20 framework-op rows (Optimizer.zero_grad,
## forward ##, ## backward ##, ## optimizer ## per step, 5 steps; its 6 other rows are CUDA
runtime calls, not framework ops in tracedb), all matched; per thread, tracedb has 3 340
top-level ops (tests/compare/test_msprof_rules_corpus.py)."""
from __future__ import annotations

import pytest
from typer.testing import CliRunner

from conftest import corpus_path, ingest_paths, ingested, rows
from tracedb.cli import app
from tracedb.compare.command import run_compare

pytestmark = pytest.mark.corpus

NS_TRACE = "hta/tests/data/ns_resolution_trace/rank-0.Apr_03_18_51_38.1102.pt.trace.json.gz"


@pytest.fixture
def db(tmp_path):
    path = tmp_path / "t.duckdb"
    trace = corpus_path(NS_TRACE)
    ingested(path, trace, run="a")
    ingest_paths(path, trace, run="b")
    return path


def test_msprof_top_level_aligns_the_annotations_as_msprof_analyze_does(db):
    report = run_compare("a", "b", db, top_level="msprof")
    assert (report.pairs, report.matched) == (20, 20)
    assert [r[0] for r in rows(db, "SELECT baseline_op_name FROM op_alignment ORDER BY order_id")] == [
        "Optimizer.zero_grad#SGD.zero_grad", "## forward ##", "## backward ##", "## optimizer ##"] * 5
    report = run_compare("a", "b", db)             # tracedb's own rule stays the default
    assert (report.pairs, report.matched) == (3340, 3340)


def test_the_cli_flag(db):
    res = CliRunner().invoke(app, ["compare", "a", "b", "--db", str(db), "--top-level", "msprof", "-f", "csv"])
    assert res.exit_code == 0, res.output
    assert "20 aligned op rows, 20 matched pairs" in res.stderr
