"""tracedb.engine.execute: SQL text parsed once per process, run on any connection."""
import pytest

from tracedb import engine as db
from tracedb.engine import duckdb

SCRIPT = """
CREATE TEMP TABLE t (rank INTEGER, v VARCHAR);
INSERT INTO t VALUES ($rank, $v);
"""


def test_runs_every_statement_and_gives_params_to_the_last():
    con = duckdb.connect()
    assert db.execute(con, SCRIPT, {"rank": 3, "v": "a"}) is con
    assert con.execute("SELECT * FROM t").fetchall() == [(3, "a")]


def test_second_use_reuses_the_parsed_statements_on_another_database():
    first, second = duckdb.connect(), duckdb.connect()
    sql = "SELECT $x * 2 AS y, 'parsed once' AS note"
    assert db.execute(first, sql, {"x": 4}).fetchall() == [(8, "parsed once")]
    cached = db._PARSED[sql]
    assert db.execute(second.cursor(), sql, {"x": 21}).fetchall() == [(42, "parsed once")]
    assert db._PARSED[sql] is cached


def test_a_text_without_statements_runs_nothing():
    con = duckdb.connect()
    assert db.execute(con, "-- only a comment\n") is con


def test_a_parse_error_raises_and_is_not_cached():
    con = duckdb.connect()
    sql = "SELEC 1"
    with pytest.raises(duckdb.ParserException):
        db.execute(con, sql)
    assert sql not in db._PARSED


def test_the_cache_is_bounded(monkeypatch):
    monkeypatch.setattr(db, "_PARSED", {})
    monkeypatch.setattr(db, "_PARSED_MAX", 3)
    con = duckdb.connect()
    for i in range(7):
        assert db.execute(con, f"SELECT {i}").fetchone() == (i,)
        assert len(db._PARSED) <= 3
