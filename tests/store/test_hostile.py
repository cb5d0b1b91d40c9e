"""Hostile strings and concurrent holders never change or corrupt the database."""
from __future__ import annotations

import subprocess
import sys
import time

import pytest
from typer.testing import CliRunner

from conftest import FIXTURES, rows
from tracedb.cli import app

runner = CliRunner()


def fingerprint(db):
    return rows(db, "SELECT (SELECT count(*) FROM event), (SELECT count(*) FROM kernel), "
                    "(SELECT count(*) FROM run), (SELECT count(*) FROM duckdb_tables())")


def test_injection_in_names_and_write_sql_change_nothing(tmp_path):
    db = tmp_path / "t.duckdb"
    assert runner.invoke(app, ["ingest", str(FIXTURES / "ascend/level1"), "--db", str(db)]).exit_code == 0
    before = fingerprint(db)
    res = runner.invoke(app, ["query", "op_diff", "--db", str(db), "--baseline", "x'; DROP TABLE event; --",
                              "--comparison", "level1"])
    assert res.exit_code == 1 and "no run named" in res.stderr
    res = runner.invoke(app, ["query", "DROP TABLE kernel", "--db", str(db)])
    assert res.exit_code == 1 and "read-only" in res.stderr
    res = runner.invoke(app, ["query", "step_breakdown", "--db", str(db), "--run", "level1' OR '1'='1",
                              "--format", "csv"])
    # a run name is a bound value, never SQL: no run has this name, and the run filter says so
    # (issue 39: an unknown run is refused, not answered with 0 rows)
    assert res.exit_code == 1 and "no run named" in res.stderr and res.stdout == ""
    res = runner.invoke(app, ["ingest", str(FIXTURES / "ascend/level1/rank0_ascend_pt"), "--db", str(db),
                              "--run", "r'); DROP TABLE kernel; --"])
    assert res.exit_code == 0
    assert rows(db, "SELECT run_name FROM run ORDER BY run_id") == [("level1",), ("r'); DROP TABLE kernel; --",)]
    assert fingerprint(db)[0][3] == before[0][3]           # every table still there
    # --write is the explicit way to change data
    res = runner.invoke(app, ["query", "DELETE FROM run WHERE run_name LIKE 'r''%'", "--db", str(db), "--write"])
    assert res.exit_code == 0
    assert rows(db, "SELECT run_name FROM run") == [("level1",)]


@pytest.mark.process
def test_ingest_while_a_reader_holds_the_file_names_the_holder(tmp_path):
    db = tmp_path / "t.duckdb"
    assert runner.invoke(app, ["ingest", str(FIXTURES / "ascend/level1/rank0_ascend_pt"), "--db", str(db)]).exit_code == 0
    before = fingerprint(db)
    holder = subprocess.Popen([sys.executable, "-c", "import duckdb, sys, time; "
                               f"c = duckdb.connect({str(db)!r}, read_only=True); print('ok', flush=True); "
                               "time.sleep(30)"], stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout.readline().strip() == "ok"
        res = subprocess.run([sys.executable, "-m", "tracedb.cli", "ingest", "--db", str(db),
                              str(FIXTURES / "ascend/level1/rank1_ascend_pt")], capture_output=True, text=True)
        assert res.returncode == 3, res.stderr
        assert f"PID {holder.pid}" in res.stderr and "read-only" in res.stderr and "Traceback" not in res.stderr
        # readers may share the file meanwhile
        res = subprocess.run([sys.executable, "-m", "tracedb.cli", "query", "--db", str(db), "--format", "csv",
                              "SELECT count(*) AS n FROM rank"], capture_output=True, text=True)
        assert res.returncode == 0 and res.stdout == "n\n1\n"
    finally:
        holder.kill()
        holder.wait()
    assert fingerprint(db) == before
    time.sleep(0.1)
    assert runner.invoke(app, ["ingest", str(FIXTURES / "ascend/level1/rank1_ascend_pt"), "--db", str(db)]).exit_code == 0
