"""``tracedb query … --format csv`` has DuckDB make each row's csv line in SQL (Python only writes
the lines): the bytes are those of the csv module's path (output.write_stream) for every type
it takes, and every other type still goes through the csv module."""
from __future__ import annotations

import io
import os
import random
import signal
import struct
import subprocess
import sys
import time

import duckdb
import pyarrow
import pytest
from typer.testing import CliRunner

from conftest import LEVEL1, ROOT, corpus_path, ingest_paths, ingested
from tracedb import api
from tracedb.cli import app
from tracedb.render.machine import csv_cells_sql, csv_line_sql, render, write_stream

runner = CliRunner()

STRINGS = ["", " ", "plain", " lead", "trail ", "a,b", 'say "hi"', '"', '""', "line\nbreak", "cr\rret", "crlf\r\n",
           "tab\tx", "#hash", "é ü 中文 🚀", "NULL", "'single'", ",", "\n", "a;b", "trailing,", "x\x85y\u2028z"]
DOUBLES = [0.0, -0.0, 1e16, 1e-5, 123.0, float("nan"), float("inf"), float("-inf"), 1.7976931348623157e308,
           5e-324, 2.2250738585072014e-308, 1e10, 9999999999.5, 9999999999.4, 1234567890.5, 0.1 + 0.2, 1 / 3,
           -2.5e-7, 123456789012345678.0, 1e100, 4.35, 0.0001, 99999.999995, -1.0, 1e22]
FLOATS = [0.1, -0.0, float("nan"), float("-inf"), 3.4028234663852886e38, 1e-45, 16777217.0, 1 / 3, 1e-5, 2.5]


def _table(con):
    """One column per type DuckDB makes lines of, every nasty value, and NULL in every column."""
    n = max(len(STRINGS), len(DOUBLES))
    con.execute("""CREATE TABLE t (s VARCHAR, d DOUBLE, f FLOAT, b BOOLEAN, i8 TINYINT, i16 SMALLINT, i32 INTEGER,
                   i64 BIGINT, i128 HUGEINT, u8 UTINYINT, u16 USMALLINT, u32 UINTEGER, u64 UBIGINT, u128 UHUGEINT,
                   dec1 DECIMAL(4,1), dec6 DECIMAL(18,6), dec0 DECIMAL(38,0), dec2 DECIMAL(38,2))""")
    ints = [(-128, -32768, -2**31, -2**63, -2**127, 0, 0, 0, 0, 0),
            (127, 32767, 2**31 - 1, 2**63 - 1, 2**127 - 1, 255, 65535, 2**32 - 1, 2**64 - 1, 2**128 - 1)]
    decs = [("-999.9", "-999999999999.999999", "-" + "9" * 38, "-" + "9" * 36 + ".99"),
            ("0.0", "0.000000", "0", "0.00"), ("1.5", "0.000001", "12", "-0.05"), ("-0.1", "-0.100000", "-1", "1.50")]
    for k in range(n):      # integers and decimals as text: older DuckDB binds a 128-bit int as a double
        con.execute("INSERT INTO t VALUES (?, ?, ?, ?, " + ", ".join("CAST(? AS VARCHAR)" for _ in range(14)) + ")",
                    [STRINGS[k % len(STRINGS)], DOUBLES[k % len(DOUBLES)], FLOATS[k % len(FLOATS)],
                     k % 2 == 0, *map(str, ints[k % 2]), *decs[k % len(decs)]])
    con.execute("INSERT INTO t SELECT NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, "
                "NULL, NULL, NULL, NULL, NULL")
    con.execute("INSERT INTO t (s) VALUES ('')")        # a row whose other fields are NULL


def _python_csv(con, sql: str) -> str:
    """The csv of the Python path: rows fetched in batches, written by output.write_stream."""
    rows = api.Rows(con, sql, [], False)
    out = io.StringIO()
    write_stream(out, rows.columns, rows.batches(3), "csv")
    return out.getvalue()


def _duckdb_csv(con, sql: str, tmp_path) -> str:
    """The csv of DuckDB's lines, written to a real file (the path must have been taken)."""
    path = tmp_path / "lines.csv"
    with open(path, "w", encoding="utf-8") as f:
        assert api.Rows(con, sql, [], False).write_csv(f), sql
    return path.read_bytes().decode("utf-8")


@pytest.fixture
def con():
    c = duckdb.connect()
    _table(c)
    yield c
    c.close()


def test_duckdb_lines_equal_python_bytes_for_every_type(con, tmp_path):
    want = _python_csv(con, "SELECT * FROM t")
    assert _duckdb_csv(con, "SELECT * FROM t", tmp_path) == want
    lines = want.split("\n")
    # the values as Python writes them (so the comparison above is of the right text)
    assert lines[0] == "s,d,f,b,i8,i16,i32,i64,i128,u8,u16,u32,u64,u128,dec1,dec6,dec0,dec2"
    assert lines[1] == (",0,0.1000000015,True,-128,-32768,-2147483648,-9223372036854775808,"
                        "-170141183460469231731687303715884105728,0,0,0,0,0,-999.9,-999999999999.999999,"
                        "-" + "9" * 38 + ",-" + "9" * 36 + ".99")
    assert lines[2].startswith(" ,-0,-0,False,127,32767,2147483647,9223372036854775807,"
                               "170141183460469231731687303715884105727,255,65535,4294967295,18446744073709551615,"
                               "340282366920938463463374607431768211455,0.0,0.000000,0,0.00")
    for cell in ('"a,b",', '"say ""hi""",', '"line\nbreak",', "1e+16,", "1e-05,", "-inf,", "1.797693135e+308,",
                 "4.940656458e-324,", "9999999999,", "1e+10,", "0.3333333333,", "1.23456789e+17,", "1.50\n",
                 "-0.05\n", "0.000001,"):
        assert cell in want, cell
    assert "\n,,,,,,,,,,,,,,,,,\n" in want              # the row of NULLs: empty fields


@pytest.mark.parametrize("column", ["s", "d", "f", "b", "i64", "u128", "dec6"])
def test_duckdb_lines_single_column(con, tmp_path, column):
    """A row whose one field is empty (NULL or '') is written '""' by the csv module."""
    sql = f"SELECT {column} FROM t"
    want = _python_csv(con, sql)
    assert _duckdb_csv(con, sql, tmp_path) == want
    assert '\n""\n' in want


def test_duckdb_floats_round_as_python(tmp_path):
    """format(v, '.10g') for random bit patterns, values halfway at the 10th digit, and FLOAT
    (which Python sees widened to double)."""
    rnd = random.Random(7)
    values = [struct.unpack("d", struct.pack("Q", rnd.getrandbits(64)))[0] for _ in range(20000)]
    values += [float(f"{rnd.randint(10**8, 10**9 - 1)}5e{rnd.randint(-320, 300)}") for _ in range(20000)]
    c = duckdb.connect()
    c.execute("CREATE TABLE f (d DOUBLE, f FLOAT)")
    # the rows executemany("INSERT INTO f VALUES (?, ?)") wrote (the same bits, in order) in 0.2 s
    # of CPU instead of 17: the DOUBLE parameter cast to FLOAT on insert is this CAST
    values_table = pyarrow.table({"d": pyarrow.array(values, pyarrow.float64()),
                                  "f": pyarrow.array([v if abs(v) < 3e38 else None for v in values], pyarrow.float64())})
    c.register("values_table", values_table)
    c.execute("INSERT INTO f SELECT d, CAST(f AS FLOAT) FROM values_table")
    sql = "SELECT d, f FROM f"
    assert _duckdb_csv(c, sql, tmp_path) == _python_csv(c, sql)


@pytest.mark.parametrize("sql", [
    "SELECT TIMESTAMP '2024-01-02 03:04:05' AS ts, 1 AS a",
    "SELECT [1, 2] AS l, 'a,b' AS s",
    "SELECT {'x': 1} AS st",
    "SELECT 0.0000001::DECIMAL(18,10) AS d",          # str(Decimal) writes 1E-7
    "SELECT 0.5::DECIMAL(3,3) AS d",                   # DuckDB writes .500
    "SELECT 'a'::BLOB AS b",
    "SELECT DATE '2024-01-02' AS d",
])
def test_other_types_go_through_python(sql, tmp_path):
    c = duckdb.connect()
    assert api.Rows(c, sql, [], False).write_csv(io.StringIO()) is False
    out = io.StringIO()
    rows = api.Rows(c, sql, [], False)
    write_stream(out, rows.columns, rows.batches(), "csv")
    res = c.execute(sql)
    assert out.getvalue() == render([d[0] for d in res.description], res.fetchall(), "csv")


def test_cells_sql_refuses_unknown_types():
    assert csv_cells_sql(["a", "b"], ["BIGINT", "TIMESTAMP WITH TIME ZONE"]) is None
    assert csv_cells_sql(["a"], ["VARCHAR[]"]) is None
    assert csv_cells_sql(["a"], ["DECIMAL(18,7)"]) is None
    assert csv_cells_sql(["a"], ["DECIMAL(18,6)"]) is not None
    assert csv_line_sql(["a", "b"], ["DATE", "BIGINT"]) is None


def _python_path(monkeypatch):
    monkeypatch.setattr(api.Rows, "write_csv", lambda self, out: False)


@pytest.fixture(scope="module")
def level1_db(tmp_path_factory):
    db = tmp_path_factory.mktemp("lines") / "t.duckdb"
    ingested(db, LEVEL1)
    return str(db)


def test_cli_fallback_text_unchanged(level1_db, monkeypatch):
    """A timestamp column: the CLI writes the same text as the Python path (it is the Python path)."""
    sql = "SELECT rank, TIMESTAMP '2024-01-02 03:04:05' + INTERVAL (rank) SECOND AS t FROM rank ORDER BY rank"
    used = []
    write_csv = api.Rows.write_csv
    monkeypatch.setattr(api.Rows, "write_csv", lambda self, out: used.append(write_csv(self, out)) or used[-1])
    res = runner.invoke(app, ["query", sql, "--db", level1_db, "--format", "csv"])
    assert res.exit_code == 0, res.output
    assert used == [False]
    assert res.stdout == "rank,t\n0,2024-01-02 03:04:05\n1,2024-01-02 03:04:06\n"


def _views(db):
    return [r[0] for r in api.views(db).rows if r[1] == "view"]


def _both_paths(db, view, monkeypatch):
    used = []
    write_csv = api.Rows.write_csv
    monkeypatch.setattr(api.Rows, "write_csv", lambda self, out: used.append(write_csv(self, out)) or used[-1])
    new = runner.invoke(app, ["query", view, "--db", db, "--format", "csv"])
    _python_path(monkeypatch)
    old = runner.invoke(app, ["query", view, "--db", db, "--format", "csv"])
    monkeypatch.undo()
    return new, old, used


def _check_views(db, monkeypatch) -> int:
    copied = 0
    for view in _views(db):
        new, old, used = _both_paths(db, view, monkeypatch)
        assert (new.exit_code, new.stderr) == (old.exit_code, old.stderr), view
        assert new.stdout == old.stdout, view
        copied += used == [True] and new.stdout.count("\n") > 1
    return copied


@pytest.mark.slow     # a campaign over every view (10-20 s): CI runs it; the default set stays ~3 min
def test_every_view_same_bytes_fixture(level1_db, monkeypatch):
    """Every public view of the level1 fixture (two Ascend ranks): the same bytes both ways, and
    most of them had DuckDB make the lines (their columns are BIGINT, INTEGER, DOUBLE, BOOLEAN,
    VARCHAR)."""
    assert _check_views(level1_db, monkeypatch) >= 20


@pytest.mark.corpus
def test_every_view_same_bytes_corpus(tmp_path, monkeypatch):
    """The same on a corpus capture (msinsight level2, profiler level 2 with memory data)."""
    db = tmp_path / "l2.duckdb"
    ingest_paths(db, corpus_path("msinsight/test/st/level2"))
    assert _check_views(str(db), monkeypatch) >= 20


def _cli(args, **kw):
    return subprocess.Popen([sys.executable, "-m", "tracedb.cli", *args], cwd=ROOT,
                            env={**os.environ, "PYTHONPATH": str(ROOT)}, **kw)


@pytest.mark.process
def test_append_keeps_earlier_content(level1_db, tmp_path, monkeypatch):
    """``>> file``: what the file held stays, the csv follows it."""
    path = tmp_path / "out.csv"
    path.write_text("earlier line\n")
    for _ in range(2):
        with open(path, "a") as f:
            assert _cli(["query", "free_time", "--db", level1_db, "--format", "csv"], stdout=f).wait(120) == 0
    _python_path(monkeypatch)
    want = runner.invoke(app, ["query", "free_time", "--db", level1_db, "--format", "csv"]).stdout
    assert want.count("\n") == 181
    assert path.read_text() == "earlier line\n" + want + want


@pytest.mark.process
def test_closed_pipe_after_first_line(level1_db):
    """``| head -1`` on DuckDB's lines: the header, then exit 141 and no message."""
    proc = _cli(["query", "SELECT range AS a, range * 0.5 AS b FROM range(30000000)", "--format", "csv",
                 "--db", level1_db], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    assert proc.stdout.readline() == b"a,b\n"
    proc.stdout.close()
    assert proc.wait(timeout=120) == 141
    assert proc.stderr.read() == b""


@pytest.mark.process
def test_sigterm_stops_the_lines(level1_db, tmp_path):
    """SIGTERM (as Ctrl-C) while the lines are written: exit 130, 'tracedb: interrupted', at once."""
    path = tmp_path / "big.csv"
    with open(path, "w") as f:
        proc = _cli(["query", "SELECT range AS a, 'x,y' AS s FROM range(2000000000)", "--format", "csv",
                     "--db", level1_db], stdout=f, stderr=subprocess.PIPE)
        deadline = time.time() + 60
        while path.stat().st_size < 1_000_000 and time.time() < deadline:
            time.sleep(0.05)
        assert path.stat().st_size >= 1_000_000
        proc.send_signal(signal.SIGTERM)
        try:
            assert proc.wait(timeout=20) == 130
        finally:
            proc.kill()
    assert proc.stderr.read().decode().strip().splitlines()[-1] == "tracedb: interrupted"
    assert path.read_text()[:8] == "a,s\n0,\"x"
