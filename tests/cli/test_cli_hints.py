"""What a person sees from the command line, round 2 (issue 43) and names from traces that reach
the terminal (issue 40 #6), through the CLI: help at the terminal's width with a question →
command map, describe in user words first, views one line each, the hints (empty --rank filter,
lock holder by its mode, reference-only files, one line for a re-ingest), escapes and
--excel-safe."""
from __future__ import annotations

import csv
import io
import re
import subprocess
import sys

import pytest
from typer.testing import CliRunner

from conftest import FIXTURES, LEVEL1, ingested
from tracedb.cli import app

runner = CliRunner()


@pytest.fixture(scope="module")
def level1(tmp_path_factory):
    db = tmp_path_factory.mktemp("hints") / "t.duckdb"
    ingested(db, LEVEL1)
    return str(db)


def _help(columns: int) -> str:
    """``tracedb --help`` in a child process (click's test runner forces 80 columns)."""
    res = subprocess.run([sys.executable, "-m", "tracedb.cli", "--help"], capture_output=True, text=True,
                         env={**__import__("os").environ, "COLUMNS": str(columns)})
    assert res.returncode == 0, res.stderr
    return res.stdout


@pytest.mark.process
def test_help_fills_the_terminal_and_maps_questions_to_commands():
    out = _help(150)
    lines = out.splitlines()
    assert 100 < max(map(len, lines)) <= 150                                   # wider than click's 80
    commands = out[out.index("Commands:"):]
    assert "..." not in commands                                               # whole summaries
    assert "Run a named view or SQL on a read-only connection and print the result." in commands
    assert "Which command answers which question:" in out
    assert re.search(r"Which rank is slow, and why\?\s+tracedb query slow_rank", out)
    assert max(map(len, _help(70).splitlines())) <= 80


def test_describe_speaks_to_users_first(level1):
    res = runner.invoke(app, ["describe", "step_breakdown", "--db", level1], env={"COLUMNS": "110"})
    assert res.exit_code == 0, res.output
    out = res.stdout
    first = out[:out.index("column ")]
    assert first.startswith("step_breakdown — how each step of each rank splits into computing")
    assert "Reference:  torch_npu step_trace_time.csv\n" in first and "Units:" in first
    assert "Try:        tracedb query step_breakdown --limit 10" in first
    assert "|U(" not in first and "tracedb_internal" not in first            # the derivation comes after
    assert out.index("How it is computed:") > out.index("computing_ns")
    assert "analyses.md" not in out                                           # a file users do not have
    assert max(map(len, out.splitlines())) <= 110


def test_views_one_line_each(level1):
    listed = runner.invoke(app, ["views", "--db", level1, "--format", "json"])
    n = len(__import__("json").loads(listed.stdout))
    res = runner.invoke(app, ["views", "--db", level1], env={"COLUMNS": "120"})
    lines = res.stdout.splitlines()
    assert len(lines) == n + 2 and max(map(len, lines)) <= 120
    assert re.search(r"^step_breakdown\s+view\s+step\s+how each step of each rank splits into computing, "
                     r"communication and free t…$", res.stdout, re.M)                 # cut at its end: prose
    wide = runner.invoke(app, ["views", "--db", level1], env={"COLUMNS": "160"}).stdout
    assert re.search(r"^step_breakdown\s+view\s+step\s+how each step of each rank splits into computing, "
                     r"communication and free time$", wide, re.M)
    assert re.search(r"^op_diff_between\s+macro\s+compare\s+", res.stdout, re.M)


def test_an_empty_rank_filter_says_which_ranks_the_run_has(level1):
    res = runner.invoke(app, ["query", "idle_time", "--rank", "3", "--db", level1])
    assert res.exit_code == 0 and "0 rows" in res.stdout
    assert "hint: no rank 3: run level1 has ranks 0-1." in res.stderr
    res = runner.invoke(app, ["query", "step_breakdown", "--step", "7", "--run", "level1", "--db", level1])
    assert "hint: no step 7: run level1 has step 50." in res.stderr
    res = runner.invoke(app, ["query", "step_breakdown", "--rank", "1", "--db", level1])   # rows: no hint
    assert "hint" not in res.stderr


def test_reference_only_files_are_named_for_what_they_are(tmp_path):
    rank = tmp_path / "job" / "rank0"
    (rank / "mindstudio_profiler_output").mkdir(parents=True)
    (rank / "analysis.db").write_bytes(b"SQLite format 3\x00")
    (rank / "mindstudio_profiler_output" / "msprof_20250109.db").write_bytes(b"SQLite format 3\x00")
    res = runner.invoke(app, ["ingest", str(tmp_path / "job"), "--db", str(tmp_path / "t.duckdb")])
    assert res.exit_code == 1
    msg = " ".join(res.stderr.split())
    assert "nothing recognisable" in msg
    assert "rank0/analysis.db, torch_npu's analysis.db" in msg and "beside ascend_pytorch_profiler_{rank}.db" in msg
    assert "rank0/mindstudio_profiler_output/msprof_20250109.db, CANN msprof's database export" in msg
    assert not (tmp_path / "t.duckdb").exists()


def test_reingest_says_one_line(tmp_path):
    db = tmp_path / "t.duckdb"
    ingested(db, LEVEL1)                                   # the session's copy of LEVEL1 ingested once
    res = runner.invoke(app, ["ingest", str(LEVEL1), "--db", str(db)])
    assert res.exit_code == 0
    assert not [line for line in res.stderr.splitlines() if line.startswith("skip ")]
    (line,) = [line for line in res.stderr.splitlines() if line.startswith("ingested")]
    assert re.match(r"ingested 0 file\(s\), skipped \d+ already in the database: no new rows", line), line


# a name as a trace could carry it: screen clear, window title, OSC 52 (clipboard), a bidi override,
# and a spreadsheet formula
HOSTILE = ("SELECT 'MatMul' || chr(27) || '[2J' || chr(27) || ']0;pwned' || chr(7) || chr(27) || ']52;c;Y2FsYw=='"
           " || chr(7) || chr(8238) || 'gnp.exe' AS name, '=cmd|'' /C calc''!A0' AS formula, -1 AS n")


def test_names_cannot_drive_the_terminal_or_a_spreadsheet(level1):
    """Issue 40 #6 through the CLI: table and markdown show the controls as escapes; csv keeps the
    values unless --excel-safe, which puts a ' before a formula."""
    for fmt in ("table", "markdown"):
        res = runner.invoke(app, ["query", HOSTILE, "--db", level1, "--format", fmt])
        assert res.exit_code == 0, res.output
        assert not any(c in res.stdout for c in "\x1b\x07\u202e"), fmt
        assert "MatMul\\x1b[2J\\x1b]0;pwned\\x07\\x1b]52;c;Y2FsYw==\\x07\\u202egnp.exe" in res.stdout, fmt
    md = runner.invoke(app, ["query", HOSTILE, "--db", level1, "--format", "markdown"]).stdout
    assert "=cmd\\|' /C calc'!A0" in md                                   # the pipe does not split the cell
    raw = list(csv.reader(io.StringIO(runner.invoke(app, ["query", HOSTILE, "--db", level1, "--format",
                                                          "csv"]).stdout)))
    assert raw[1][1] == "=cmd|' /C calc'!A0"
    safe = list(csv.reader(io.StringIO(runner.invoke(app, ["query", HOSTILE, "--db", level1, "--format", "csv",
                                                           "--excel-safe"]).stdout)))
    assert safe[1][1:] == ["'=cmd|' /C calc'!A0", "-1"]


@pytest.mark.process
def test_a_reader_holding_the_file_is_named_as_a_reader(tmp_path, level1):
    """The holder is read-only: the message says so and does not ask to open it read-only."""
    import shutil
    db = tmp_path / "t.duckdb"
    shutil.copyfile(level1, db)
    holder = subprocess.Popen([sys.executable, "-c", "import duckdb, time; "
                               f"c = duckdb.connect({str(db)!r}, read_only=True); print('ok', flush=True); "
                               "time.sleep(30)"], stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout.readline().strip() == "ok"
        res = runner.invoke(app, ["ingest", str(FIXTURES / "mindspore/profiler"), "--db", str(db)])
        assert res.exit_code == 3
        msg = " ".join(res.stderr.split())
        assert f"open read-only in " in msg and f"(PID {holder.pid})" in msg
        assert "open it read-only" not in msg and "close that program's connection" in msg
    finally:
        holder.kill()
        holder.wait()
