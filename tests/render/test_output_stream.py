"""tracedb query prints large results without holding them: csv / json / ndjson a batch of rows
at a time, the table its first rows and a count (the note: comm_op_check at 128 ranks took 4.2 GB
RSS when the CLI rendered whole results). The text is the same as rendering every row at once."""
from __future__ import annotations

import decimal
import io
import itertools

import pytest
from typer.testing import CliRunner

from conftest import LEVEL1, RANK0, ingested, rows
from tracedb import api
from tracedb.cli import app
from tracedb.render.machine import render, write_stream

runner = CliRunner()
from tracedb.cli import base as cli_base                  # the module where tracedb query renders its table


@pytest.fixture(scope="module")
def level1_db(tmp_path_factory):
    db = tmp_path_factory.mktemp("stream") / "t.duckdb"
    ingested(db, LEVEL1)
    return str(db)


VALUES = [None, 1736408883704643212, -5, 3.25, float("nan"), float("inf"), 'a"b,\nc é\t', decimal.Decimal("1.50"),
          decimal.Decimal("7"), [1, {"x": None}], True, ""]


@pytest.mark.parametrize("fmt", ["csv", "json", "ndjson"])
def test_stream_text_equals_render_for_any_batching(fmt):
    """Every way of cutting the rows into batches gives render()'s text, byte for byte (json's
    one-space indent, csv quoting, floats as %.10g, NaN as null)."""
    for ncols in range(4):
        columns = [f"c{i}" for i in range(ncols)]
        cycle = itertools.cycle(VALUES)
        table = [tuple(next(cycle) for _ in columns) for _ in range(7)]
        for n in range(len(table) + 1):
            want = render(columns, table[:n], fmt)
            for cut in range(n + 1):
                out = io.StringIO()
                write_stream(out, columns, [table[:cut], [], table[cut:n]], fmt)
                assert out.getvalue() == want, (fmt, columns, n, cut)
    assert render([], [], "json") == "[]\n"


class _Spy:
    """Counts the rows each fetch brings into Python."""

    def __init__(self, monkeypatch, batch):
        self.fetched: list[int] = []
        fetch = api.Rows._fetch

        def spy(rows_self, n):
            got = fetch(rows_self, n)
            self.fetched.append(len(got))
            return got

        monkeypatch.setattr(api.Rows, "_fetch", spy)
        monkeypatch.setattr(api.Rows, "BATCH", batch)


@pytest.mark.parametrize("fmt", ["csv", "json", "ndjson"])
def test_query_streams_raw_formats_in_batches(level1_db, monkeypatch, fmt):
    """free_time (180 rows on level1) in batches of 7: the same text as the whole result rendered
    at once, and no fetch brought more than 7 rows into Python (csv: its Python path, for types
    DuckDB's csv cannot write as Python does; tests/test_csv_lines.py)."""
    want = render(*_all(level1_db, "free_time"), fmt)
    if fmt == "csv":
        monkeypatch.setattr(api.Rows, "write_csv", lambda self, out: False)
    spy = _Spy(monkeypatch, 7)
    res = runner.invoke(app, ["query", "free_time", "--db", level1_db, "--format", fmt])
    assert res.exit_code == 0, res.output
    assert res.stdout == want
    assert max(spy.fetched) == 7 and sum(spy.fetched) == 180


def test_csv_brings_no_row_into_python(level1_db, monkeypatch):
    """csv of a view whose every type DuckDB can write as Python does: the same text, and no
    batch of rows fetched (DuckDB makes the lines)."""
    want = render(*_all(level1_db, "free_time"), "csv")
    spy = _Spy(monkeypatch, 7)
    res = runner.invoke(app, ["query", "free_time", "--db", level1_db, "--format", "csv"])
    assert res.exit_code == 0, res.output
    assert res.stdout == want and want.count("\n") == 181
    assert spy.fetched == []


def _all(db, view):
    res = api.query(view, db=db)
    return res.columns, res.rows


def test_table_fetches_only_the_rows_it_shows(level1_db, monkeypatch):
    """The table of free_time runs the view once into a DuckDB temporary table, reads the 40 rows
    it shows into Python and has DuckDB count the rest: the same text as rendering every row."""
    (n,) = rows(level1_db, "SELECT count(*) FROM free_time")[0]
    assert n == 180
    seen = []
    render_table = cli_base.render_table
    monkeypatch.setattr(cli_base, "render_table", lambda columns, head, **kw: seen.append(len(head))
                        or render_table(columns, head, **kw))
    spy = _Spy(monkeypatch, 7)
    res = runner.invoke(app, ["query", "free_time", "--db", level1_db], env={"COLUMNS": "120"})
    assert res.exit_code == 0, res.output
    assert "180 rows (40 shown): --limit N or --all for more" in res.stdout
    assert spy.fetched == [] and seen == [40]          # no streamed fetch; 40 rows reached Python
    monkeypatch.undo()
    columns, table = _all(level1_db, "free_time")
    assert res.stdout == render_table(columns, table, width=120)


def test_table_keeps_duplicate_column_names(level1_db):
    """A result with two columns named alike (which a DuckDB table would rename a, a_1) prints
    its own names."""
    res = runner.invoke(app, ["query", "SELECT range AS a, range * 2 AS a FROM range(45)", "--db", level1_db],
                        env={"COLUMNS": "120"})
    assert res.exit_code == 0, res.output
    assert res.stdout.splitlines()[0].split() == ["a", "a"] and "45 rows (40 shown)" in res.stdout


@pytest.mark.parametrize("sql, write", [
    ("SELECT 1 AS a; SELECT range AS a FROM range(55)", False),   # two statements: not wrapped in count(*)
    ("SELECT range AS a FROM range(55)", True),                    # --write: never run twice, rows counted
])
def test_table_count_without_a_count_query(level1_db, sql, write):
    res = runner.invoke(app, ["query", sql, "--db", level1_db, *(["--write"] if write else [])],
                        env={"COLUMNS": "120"})
    assert res.exit_code == 0, res.output
    assert "55 rows (40 shown)" in res.stdout
    assert res.stdout.splitlines()[2].strip() == "0"


def test_write_sql_runs_once_in_table_mode(tmp_path):
    """An INSERT … RETURNING with more rows than the table shows inserts its rows once."""
    db = tmp_path / "t.duckdb"
    ingested(db, RANK0)
    runner.invoke(app, ["query", "CREATE TABLE t (a INT)", "--db", str(db), "--write"])
    res = runner.invoke(app, ["query", "INSERT INTO t SELECT range FROM range(60) RETURNING a", "--db", str(db),
                              "--write"], env={"COLUMNS": "120"})
    assert res.exit_code == 0, res.output
    assert "60 rows (40 shown)" in res.stdout
    assert rows(db, "SELECT count(*) FROM t") == [(60,)]


def test_error_while_streaming_is_one_line(level1_db):
    """A DuckDB error raised while rows are fetched is the usual one-line query error."""
    res = runner.invoke(app, ["query", "SELECT CAST('x' || range AS INT) AS v FROM range(5000)", "--db", level1_db,
                              "--format", "csv"])
    assert res.exit_code == 1
    assert res.stderr.startswith("tracedb: error: query failed: Conversion Error")


@pytest.mark.process
def test_closed_pipe_stops_quietly_with_141(level1_db):
    """``tracedb query ... --format csv | head -2``: the reader goes away mid-stream; tracedb stops
    with exit 141 (as a command killed by SIGPIPE) and prints no error."""
    import subprocess
    import sys

    from conftest import ROOT
    proc = subprocess.Popen([sys.executable, "-m", "tracedb.cli", "query", "SELECT * FROM range(3000000)",
                             "--format", "csv", "--db", level1_db], cwd=ROOT, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE)
    assert proc.stdout.readline() == b"range\n" and proc.stdout.readline() == b"0\n"
    proc.stdout.close()
    assert proc.wait(timeout=120) == 141
    assert proc.stderr.read() == b""
