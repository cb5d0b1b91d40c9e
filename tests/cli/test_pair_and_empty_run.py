"""Issue 40, point 7: ``summary`` and ``report`` refuse the same run as baseline and comparison
(on main they compared a run with itself: "no op takes longer in the comparison run"), and
``summary`` says that a run is empty (on main, ``summary --run R`` of an empty run said only "no
consistency finding")."""
from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from conftest import ingest_paths
from tracedb.cli import app

runner = CliRunner()


@pytest.fixture(scope="module")
def db(tmp_path_factory):
    """One run whose only file, a Kineto trace with no event, held nothing."""
    folder = tmp_path_factory.mktemp("empty")
    trace = folder / "host.pt.trace.json"
    trace.write_text(json.dumps({"traceEvents": []}))
    path = folder / "t.duckdb"
    ingest_paths(path, trace, run="hollow")
    return path


@pytest.mark.parametrize("command", [["summary"], ["report", "-o", "{tmp}/r.html"]])
def test_same_run_as_baseline_and_comparison_is_refused(db, tmp_path, command):
    args = [a.replace("{tmp}", str(tmp_path)) for a in command]
    res = runner.invoke(app, [*args, "--db", str(db), "--baseline", "hollow", "--comparison", "hollow"])
    assert res.exit_code == 1
    assert res.stderr.startswith(f"tracedb: error: {db}: --baseline and --comparison name the same run (hollow).")
    assert not (tmp_path / "r.html").exists()


@pytest.mark.parametrize("args", [["--run", "hollow"], []])
def test_summary_says_the_run_is_empty(db, args):
    res = runner.invoke(app, ["summary", "--db", str(db), *args])
    assert res.exit_code == 0, res.output
    lines = res.stdout.splitlines()
    assert lines[:2] == ["run hollow", "  empty run: its 1 file(s) held no event, kernel, step or other row "
                                       "tracedb reads"]
    res = runner.invoke(app, ["summary", "--db", str(db), *args, "--format", "csv"])
    # csv: run_name, topic, cause, finding, ... (the summary's machine columns)
    assert "\nhollow,empty run,step,\"empty run: its 1 file(s) held no event" in res.stdout
