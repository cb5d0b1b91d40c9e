"""CLI: formats, exit codes, one-line errors, stdout = results only."""
from __future__ import annotations

import json

from typer.testing import CliRunner

from conftest import FIXTURES, LEVEL1, rows
from tracedb.cli import app

runner = CliRunner()
LEVEL1 = str(LEVEL1)


def run(*args, env=None):
    return runner.invoke(app, list(args), env=env)


def test_ingest_then_query_formats(tmp_path):
    db = str(tmp_path / "t.duckdb")
    res = run("ingest", LEVEL1, "--db", db)
    assert res.exit_code == 0, res.output
    res = run("query", "step_breakdown", "--db", db, "--format", "json")
    assert res.exit_code == 0
    data = json.loads(res.stdout)
    assert [(d["rank"], d["step"]) for d in data] == [(0, 50), (1, 50)]
    # JSON keeps 19-digit ns integers exact
    assert data[0]["step_start_ns"] == 1736408883704643212
    res = run("query", "step_breakdown", "--db", db, "--format", "csv", "--rank", "1")
    lines = res.stdout.strip().splitlines()
    assert lines[0].startswith("run_name,rank,step,") and len(lines) == 2 and lines[1].startswith("level1,1,50,")
    res = run("query", "step_breakdown", "--db", db, "--format", "ndjson", "--step", "50", "--run", "level1")
    assert len(res.stdout.strip().splitlines()) == 2
    res = run("query", "free_time", "--db", db, "--format", "markdown", "--limit", "3")
    assert res.stdout.splitlines()[0].startswith("| run_name") and len(res.stdout.strip().splitlines()) == 5
    res = run("query", "SELECT 1 AS one", "--db", db, "--format", "csv")
    assert res.stdout == "one\n1\n"


def test_env_var_db_and_runs_views_describe(tmp_path):
    db = str(tmp_path / "env.duckdb")
    assert run("ingest", LEVEL1, env={"TRACEDB_DB": db}).exit_code == 0
    res = run("runs", "--format", "json", env={"TRACEDB_DB": db})
    (r,) = json.loads(res.stdout)
    assert (r["run_name"], r["ranks"], r["steps"], r["kernels"]) == ("level1", 2, 2, 382 + 48)   # kernel_details rows + the trace's copy tasks
    res = run("views", "--db", db, "--format", "csv")
    names = {line.split(",")[0] for line in res.stdout.splitlines()[1:]}
    assert {"step_breakdown", "free_time", "uncovered_communication", "op_diff", "op_diff_between",
            "step_breakdown_check"} <= names
    res = run("describe", "step_breakdown", "--db", db)
    assert res.exit_code == 0 and "Grain:" in res.stdout and "computing_ns" in res.stdout
    res = run("describe", "kernel", "--db", db, "--format", "csv")
    assert "ts_ns,BIGINT," in res.stdout


def test_compare_views_by_role_and_by_flags(tmp_path):
    db = str(tmp_path / "t.duckdb")
    run("ingest", str(FIXTURES / "ascend/level1/rank0_ascend_pt"), "--db", db, "--run", "a", "--role", "baseline")
    run("ingest", str(FIXTURES / "ascend/level1_2024_rank0_ascend_pt"), "--db", db, "--run", "b",
        "--role", "comparison")
    by_role = json.loads(run("query", "kernel_diff", "--db", db, "--format", "json").stdout)
    by_flag = json.loads(run("query", "kernel_diff", "--db", db, "--baseline", "a", "--comparison", "b",
                             "--format", "json").stdout)
    assert by_role == by_flag and by_role[0]["baseline_run"] == "a"
    swapped = json.loads(run("query", "kernel_diff", "--db", db, "--baseline", "b", "--comparison", "a",
                             "--format", "json").stdout)
    assert swapped[-1]["diff_total_ns"] == -by_role[0]["diff_total_ns"]
    res = run("query", "op_diff", "--db", db, "--baseline", "nope", "--comparison", "a")
    assert res.exit_code == 1 and "no run named 'nope'" in res.stderr


def test_errors_are_one_line_with_exit_1_and_no_traceback(tmp_path):
    db = str(tmp_path / "t.duckdb")
    run("ingest", LEVEL1, "--db", db)
    before = rows(tmp_path / "t.duckdb", "SELECT count(*) FROM event")
    bad = tmp_path / "bad_ascend_pt" / "ASCEND_PROFILER_OUTPUT"
    bad.mkdir(parents=True)
    text = (FIXTURES / "ascend/level1/rank0_ascend_pt/ASCEND_PROFILER_OUTPUT/trace_view.json").read_text()
    (bad / "trace_view.json").write_text(text[: len(text) // 2])
    res = run("ingest", str(bad.parent), "--db", db)
    assert res.exit_code == 1, res.output
    err = res.stderr.strip().splitlines()
    assert len(err) >= 1 and "Traceback" not in res.stderr
    assert str(bad / "trace_view.json") in err[-1] and "byte" in err[-1]
    assert rows(tmp_path / "t.duckdb", "SELECT count(*) FROM event") == before
    res = run("query", "no_such_view", "--db", db)
    assert res.exit_code == 1 and "unknown view" in res.stderr and res.stdout == ""
    res = run("query", "free_time", "--db", db, "--baseline", "x")
    assert res.exit_code == 1
    res = run("query", "step_breakdown", "--db", str(tmp_path / "missing.duckdb"))
    assert res.exit_code == 1 and "does not exist" in res.stderr
    res = run("ingest", str(tmp_path / "nothing_here"), "--db", db)
    assert res.exit_code == 1 and "no such file" in res.stderr
    res = run("query")
    assert res.exit_code == 2


def test_every_command_has_help_with_an_example():
    for cmd in ("ingest", "query", "views", "describe", "runs", "export", "check", "runs rm", "runs rename",
                "runs set-role"):
        res = run(*cmd.split(), "--help")
        assert res.exit_code == 0 and "Example" in res.stdout, cmd


def test_interrupt_inside_duckdb_is_exit_130_not_a_runtime_error(monkeypatch, tmp_path):
    """Ctrl-C during a statement: DuckDB raises RuntimeError('Query interrupted') (issue 19 F10)."""
    from tracedb import api

    def interrupted(*a, **kw):
        raise RuntimeError("Query interrupted")

    monkeypatch.setattr(api, "query_rows", interrupted)     # what tracedb query calls
    res = run("query", "step_breakdown", "--db", str(tmp_path / "t.duckdb"))
    assert res.exit_code == 130 and res.stderr == "tracedb: interrupted\n"

    def ctrl_c(*a, **kw):
        raise KeyboardInterrupt

    monkeypatch.setattr(api, "ingest", ctrl_c)
    res = run("ingest", LEVEL1, "--db", str(tmp_path / "t.duckdb"))
    assert res.exit_code == 130 and res.stderr == "tracedb: interrupted\n"


def test_progress_bar_reports_percentages(tmp_path):
    from tracedb import api
    seen = []
    api.ingest([FIXTURES / "ascend/level1/rank0_ascend_pt"], db=tmp_path / "t.duckdb",
               bar=lambda label, pct: seen.append((label, pct)))
    # the bar is closed (None) once per parsed trace; percentages, when sampled, lie in 0..100
    assert [s for s in seen if s[1] is None] == [("trace_view.json", None)]
    assert all(0 <= p <= 100 for _, p in seen if p is not None)


def test_a_command_line_builds_only_the_command_it_names(tmp_path):
    """main() hands typer an app holding only the named command (typer builds every registered
    command at each start); anything else gets the whole app and its messages."""
    from tracedb.cli import app_for as _app_for
    names = lambda a: [c.callback.__name__ for c in a.registered_commands]   # noqa: E731
    assert names(_app_for(["-q", "compare", "a", "b", "--db", "x"])) == ["compare"]
    assert names(_app_for(["query", "--debug", "step_breakdown"])) == ["query"]
    for args in ([], ["--help"], ["--version"], ["runs", "rm", "x"], ["comprae", "a"]):
        assert _app_for(args) is app, args
    # the one-command app parses and runs as the whole app does: global flags on either side
    one = _app_for(["ingest"])
    db = str(tmp_path / "t.duckdb")
    res = runner.invoke(one, ["ingest", "-q", LEVEL1, "--db", db])
    assert res.exit_code == 0, res.output
    assert rows(db, "SELECT count(*) FROM rank") == [(2,)]
    res = runner.invoke(_app_for(["query"]), ["query", "--db", db, "SELECT 1 + 1 AS x", "--format", "csv"])
    assert (res.exit_code, res.stdout) == (0, "x\n2\n")
