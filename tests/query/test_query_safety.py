"""`tracedb query` without --write writes, creates and deletes no file, installs, loads and
downloads nothing and changes no setting (issue 19 F4); empty queries are clear errors (F13)."""
from __future__ import annotations

import hashlib
import json
import os

import pytest
from typer.testing import CliRunner

from conftest import LEVEL1, api_ingested
from tracedb import api
from tracedb.cli import app
from tracedb.errors import QueryError

runner = CliRunner()


@pytest.fixture(scope="module")
def level1(tmp_path_factory):
    d = tmp_path_factory.mktemp("q")
    db = d / "t.duckdb"
    api_ingested([LEVEL1], db)
    return db


def _snapshot(folder):
    """Every file below ``folder`` with the SHA-256 of its content."""
    out = {}
    for root, dirs, files in os.walk(folder):
        for f in files:
            p = os.path.join(root, f)
            out[p] = hashlib.sha256(open(p, "rb").read()).hexdigest()
        for d in dirs:
            out[os.path.join(root, d)] = "dir"
    return out


HOSTILE = [
    "COPY (SELECT 'x') TO '{db}' (FORMAT csv)",                  # overwrote the database itself
    "COPY (SELECT 'x') TO '{dir}/out.csv' (FORMAT csv)",
    "COPY kernel TO '{dir}/k.parquet' (FORMAT parquet)",
    "EXPORT DATABASE '{dir}/exported'",
    "ATTACH '{dir}/new.duckdb' AS n",
    "ATTACH '{dir}/new2.duckdb' AS n (READ_WRITE)",
    "INSTALL httpfs",
    "LOAD httpfs",
    "FORCE INSTALL json",
    "SET threads = 1",
    "SET enable_external_access = true",
    "RESET threads",
    "PRAGMA threads = 1",
    "PRAGMA enable_profiling",
    "SET profiling_output = '{dir}/profile.json'",
    "CREATE PERSISTENT SECRET s (TYPE s3, KEY_ID 'k', SECRET 's')",
    "FORCE CHECKPOINT",
    "CALL pragma_version()",
    "EXPLAIN ANALYZE COPY (SELECT 1) TO '{dir}/explained.csv'",
    "EXPLAIN (FORMAT json) COPY (SELECT 1) TO '{dir}/explained2.csv'",
    "SELECT 1; COPY (SELECT 2) TO '{dir}/second.csv'",
    "DROP TABLE kernel",
    "DELETE FROM run",
]


@pytest.mark.parametrize("sql", HOSTILE)
def test_query_refuses_statements_that_write_load_or_configure(level1, tmp_path, sql):
    folder = level1.parent
    sql = sql.format(db=level1, dir=tmp_path)
    before, before_tmp = _snapshot(folder), _snapshot(tmp_path)
    cwd = os.getcwd()
    os.chdir(tmp_path)
    try:
        res = runner.invoke(app, ["query", sql, "--db", str(level1)])
    finally:
        os.chdir(cwd)
    assert res.exit_code == 1, (sql, res.output)
    err = res.stderr.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("tracedb: error: ") and "--write" in err[0], err
    assert "Traceback" not in res.stderr and res.stdout == ""
    assert _snapshot(folder) == before and _snapshot(tmp_path) == before_tmp
    with pytest.raises(QueryError, match="read-only query connection"):
        api.query(sql, db=level1)


def test_the_locked_connection_cannot_load_or_reconfigure(level1):
    """Defence in depth behind the statement check: even SELECT-shaped SQL cannot reach a
    remote file, and the settings are frozen."""
    with pytest.raises(QueryError):
        api.query("SELECT * FROM 'https://example.com/x.csv'", db=level1)
    res = api.query("SELECT current_setting('lock_configuration') AS l, "
                    "current_setting('autoinstall_known_extensions') AS i, "
                    "current_setting('autoload_known_extensions') AS a", db=level1)
    assert res.rows == [(True, False, False)]
    for sql in ("SELECT * FROM enable_profiling()", "SELECT * FROM enable_logging()"):
        with pytest.raises(QueryError, match="locked"):      # SELECT-shaped, stopped by the lock
            api.query(sql, db=level1)


def test_local_files_can_still_be_read(level1, tmp_path):
    csv = tmp_path / "labels.csv"
    csv.write_text("rank,label\n0,first\n1,second\n")
    res = runner.invoke(app, ["query", f"SELECT s.rank, l.label FROM step_breakdown s "
                                       f"JOIN read_csv('{csv}') l USING (rank) ORDER BY s.rank",
                              "--db", str(level1), "--format", "csv"])
    assert res.exit_code == 0, res.output
    assert res.stdout == "rank,label\n0,first\n1,second\n"


def test_select_forms_still_run(level1):
    for sql, expected in (("FROM run SELECT run_name", [("level1",)]),
                          ("WITH r AS (SELECT run_name FROM run) SELECT * FROM r", [("level1",)]),
                          ("VALUES (1, 'a')", [(1, "a")]),
                          ("SELECT 1 AS a; SELECT 2 AS b", [(2,)])):
        assert api.query(sql, db=level1).rows == expected, sql
    assert api.query("DESCRIBE run", db=level1).rows[0][:2] == ("run_id", "INTEGER")
    plan = api.query("EXPLAIN SELECT * FROM kernel", db=level1).rows
    assert plan[0][0] == "physical_plan" and "kernel" in plan[0][1]


def test_write_keeps_todays_behaviour(level1, tmp_path):
    out = tmp_path / "runs.csv"
    res = runner.invoke(app, ["query", f"COPY (SELECT run_name FROM run) TO '{out}' (FORMAT csv, HEADER)",
                              "--db", str(level1), "--write"])
    assert res.exit_code == 0, res.output
    assert out.read_text() == "run_name\nlevel1\n"


@pytest.mark.slow     # a campaign over every view (10-20 s): CI runs it; the default set stays ~3 min
def test_every_view_runs_on_the_locked_connection(level1):
    res = runner.invoke(app, ["views", "--db", str(level1), "--format", "json"])
    listed = json.loads(res.stdout)
    views = [v["name"] for v in listed if v["kind"] == "view"]
    assert len(views) >= 15 and "step_breakdown" in views
    paired = {v["name"][:-len("_between")] for v in listed if v["name"].endswith("_between")}
    for name in views:
        if name in paired:   # a comparison view needs roles; checked through its macro below
            continue
        out = runner.invoke(app, ["query", name, "--db", str(level1), "--format", "json"])
        assert out.exit_code == 0, (name, out.output)
        json.loads(out.stdout)
    from tracedb.store.library import load_library
    for o in load_library():                   # internal helper views too
        if o.kind == "view":
            assert api.query(f"SELECT count(*) FROM {o.qualified}", db=level1).rows[0][0] >= 0, o.qualified
    rows = api.query("SELECT * FROM kernel_diff_between('level1', 'level1')", db=level1).rows
    assert rows and all(r[-1] == 0 or r[-1] is None or isinstance(r[-1], (int, float)) for r in rows)
    assert runner.invoke(app, ["describe", "step_breakdown", "--db", str(level1)]).exit_code == 0
    assert runner.invoke(app, ["check", "--db", str(level1)]).exit_code in (0, 1)
    assert runner.invoke(app, ["runs", "--db", str(level1)]).exit_code == 0


@pytest.mark.parametrize("text", ["", "   ", ";", " ; ", "/* only a comment */"])
def test_empty_query_is_a_clear_error(level1, text):
    res = runner.invoke(app, ["query", text, "--db", str(level1)])
    assert res.exit_code == 1, res.output
    assert res.stderr.startswith("tracedb: error: ") and "empty query" in res.stderr, res.stderr
    assert "Traceback" not in res.stderr and "AttributeError" not in res.stderr


def test_empty_query_with_write_is_a_clear_error_too(level1):
    with pytest.raises(QueryError, match="empty query"):
        api.query("-- nothing\n", db=level1, write=True)
