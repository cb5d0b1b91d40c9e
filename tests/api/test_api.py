"""The Python / notebook API: tracedb.open, Result.df / _repr_html_, and the docstring examples
(run in a folder holding the repository's fixtures, as the README tells a user to)."""
from __future__ import annotations

import doctest

import pytest

import tracedb
from conftest import FIXTURES, LEVEL1, ingested
from tracedb.errors import QueryError, TracedbError


def test_docstring_examples_run(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "fixtures").symlink_to(FIXTURES)
    from tracedb import api
    from tracedb.query import result as query_result      # Result's examples (were in api.py)
    results = [doctest.testmod(m, optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
               for m in (api, query_result)]
    result = doctest.TestResults(sum(r.failed for r in results), sum(r.attempted for r in results))
    assert result.attempted >= 8 and result.failed == 0, result


def test_database_keeps_one_connection(tmp_path):
    path = tmp_path / "t.duckdb"
    ingested(path, LEVEL1)
    with tracedb.open(path) as db:
        con = db.con
        # level1 rank 1: step_trace_time.csv Computing 8878.295 µs (README: within 23 ns)
        df = db.df("step_breakdown", rank=1)
        (computing,) = df["computing_ns"].tolist()
        assert abs(computing - 8_878_295) <= 50 and str(df["computing_ns"].dtype) == "int64"
        assert db.query("kernel", rank=1, limit=3).columns[:2] == ["run_id", "rank"]
        header, cols = db.describe("comm_op")
        assert "Grain:" in header and cols.rows[0][0] == "run_name"
        assert db.con is con
        html = db.query("comm_op")._repr_html_()
        assert "<th style=\"text-align: right\">elapse_ms</th>" in html and "<td style=\"text-align: right\">79.090</td>" in html
        with pytest.raises(QueryError, match="did you mean slow_rank"):
            db.query("slowrank")
        with pytest.raises(QueryError, match="Candidate bindings"):
            db.query("SELECT free_ns FROM free_time")
        with pytest.raises(QueryError, match="DELETE statements do not run"):
            db.query("DELETE FROM run")
    with pytest.raises(TracedbError):
        tracedb.open(tmp_path / "missing.duckdb")
