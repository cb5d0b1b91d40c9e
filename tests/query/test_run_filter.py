"""A run name the database does not hold is refused, with the runs it does hold, wherever a run is
named: ``tracedb query VIEW --run``, a table by name, the compare views' --baseline/--comparison,
and ``Database.query(run=…)`` (issue 39: these printed 0 rows and exited 0)."""
from __future__ import annotations

import pytest
from typer.testing import CliRunner

import tracedb
from conftest import RANK0, ingested
from tracedb.cli import app
from tracedb.errors import QueryError

runner = CliRunner()


@pytest.fixture(scope="module")
def db(tmp_path_factory):
    path = tmp_path_factory.mktemp("runs") / "t.duckdb"
    ingested(path, RANK0, run="npu_run")
    return path


@pytest.mark.parametrize("args", [["step_breakdown", "--run", "nope"], ["kernel", "--run", "nope"],
                                  ["op_diff", "--baseline", "nope", "--comparison", "npu_run"]])
def test_cli_refuses_an_unknown_run_and_lists_the_runs(db, args):
    res = runner.invoke(app, ["query", *args, "--db", str(db)])
    assert res.exit_code == 1, res.stdout
    assert "no run named 'nope'" in res.stderr and "runs in this database: npu_run" in res.stderr
    assert res.stdout == ""


def test_notebook_query_refuses_an_unknown_run(db):
    with tracedb.open(db) as d:
        with pytest.raises(QueryError, match="no run named 'nope'"):
            d.query("step_breakdown", run="nope")
        assert d.query("step_breakdown", run="npu_run").rows      # the run it holds still answers
