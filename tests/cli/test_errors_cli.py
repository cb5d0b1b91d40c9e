"""What the CLI says when something is wrong, and the flags a user types anywhere (ux-review F7, F9,
F10, F13, F14)."""
from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from conftest import KINETO, LEVEL1, RANK0, ingested_runs
from tracedb import __version__
from tracedb.cli import app

runner = CliRunner()


@pytest.fixture(scope="module")
def db(tmp_path_factory):
    path = tmp_path_factory.mktemp("err") / "t.duckdb"
    ingested_runs(path, (LEVEL1, {}), (KINETO, {}))
    return str(path)


def test_duckdb_message_is_passed_whole(db):
    res = runner.invoke(app, ["query", "SELECT rank, sum(free_ns) FROM free_time GROUP BY rank", "--db", db])
    assert res.exit_code == 1
    lines = res.stderr.splitlines()
    assert lines[0] == 'tracedb: error: query failed: Binder Error: Referenced column "free_ns" not found in FROM clause!'
    assert lines[1].startswith('Candidate bindings: "dur_ns"')
    assert lines[2] == "LINE 1: SELECT rank, sum(free_ns) FROM free_time GROUP BY rank"
    assert lines[3] == " " * len("LINE 1: SELECT rank, sum(") + "^" * len("free_ns")


def test_did_you_mean(db):
    res = runner.invoke(app, ["query", "step_breakdwon", "--db", db])
    assert res.exit_code == 1 and "did you mean step_breakdown" in res.stderr
    res = runner.invoke(app, ["describe", "slow_rnk", "--db", db])
    assert res.exit_code == 1 and "did you mean slow_rank" in res.stderr
    res = runner.invoke(app, ["query", "zzzz", "--db", db])
    assert res.exit_code == 1 and "did you mean" not in res.stderr


def test_query_a_table_by_name(db):
    res = runner.invoke(app, ["query", "kernel", "--db", db, "--run", "level1", "--rank", "1", "--format", "json"])
    assert res.exit_code == 0, res.stderr
    got = json.loads(res.stdout)
    # level1 has 382 kernel_details rows and 48 copy tasks, 2 ranks
    assert len(got) == 191 + 24 and {(r["run_id"], r["rank"]) for r in got} == {(1, 1)}
    res = runner.invoke(app, ["query", "run", "--db", db, "--format", "csv"])
    assert res.stdout.splitlines()[0].startswith("run_id,run_name")
    res = runner.invoke(app, ["query", "run", "--db", db, "--rank", "0"])
    assert res.exit_code == 1 and "--rank does not apply: run has no rank column" in res.stderr


def test_op_diff_without_roles_names_the_commands(db):
    res = runner.invoke(app, ["query", "op_diff", "--db", db])
    assert res.exit_code == 1
    assert "tracedb compare BASELINE COMPARISON" in res.stderr and "tracedb runs set-role" in res.stderr


def test_version_and_global_flags_after_the_command(db, tmp_path):
    res = runner.invoke(app, ["--version"])
    assert res.exit_code == 0 and res.stdout == f"tracedb {__version__}\n"
    new = str(tmp_path / "q.duckdb")
    res = runner.invoke(app, ["ingest", str(RANK0), "--db", new, "-q"])
    assert res.exit_code == 0 and res.stderr == ""
    res = runner.invoke(app, ["runs", "rm", "rank0_ascend_pt", "--db", new, "--quiet"])
    assert res.exit_code == 0 and res.stderr == ""
    res = runner.invoke(app, ["query", "SELECT 1/0 AS x FROM nosuch", "--db", db, "--debug"])
    assert res.exit_code == 1 and "Traceback" in res.stderr
