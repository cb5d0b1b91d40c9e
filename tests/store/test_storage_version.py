"""Storage version of the database file: the default, ``tracedb ingest --storage-version``, and
F7 (issue 19): a ``.wal`` of another tracedb database is refused, not replayed."""
from __future__ import annotations

import os
import shutil

import duckdb
from typer.testing import CliRunner

from conftest import LEVEL0, rows
from tracedb.store import db as tdb
from tracedb.cli import app

RANK = LEVEL0
runner = CliRunner()


def _tag(path) -> str:
    return rows(path, "SELECT tags['storage_version'] FROM duckdb_databases() "
                      "WHERE database_name = current_database()")[0][0]


def test_default_and_flag(tmp_path):
    a, b = tmp_path / "a.duckdb", tmp_path / "b.duckdb"
    assert runner.invoke(app, ["ingest", str(RANK), "--db", str(a)]).exit_code == 0
    assert _tag(a) == tdb.STORAGE_VERSION + "+"
    assert rows(a, "SELECT value FROM tracedb_meta WHERE key = 'storage_version'") == [(tdb.STORAGE_VERSION,)]
    res = runner.invoke(app, ["ingest", str(RANK), "--db", str(b), "--storage-version", "v1.0.0"])
    assert res.exit_code == 0, res.output
    assert _tag(b) == "v1.0.0+"
    assert rows(b, "SELECT value FROM tracedb_meta WHERE key = 'storage_version'") == [("v1.0.0",)]
    assert rows(b, "SELECT count(*) FROM kernel") == rows(a, "SELECT count(*) FROM kernel") != [(0,)]
    # an existing file keeps the version it was created with
    res = runner.invoke(app, ["ingest", str(RANK), "--db", str(b), "--run", "again", "--storage-version", "latest"])
    assert res.exit_code == 0, res.output
    assert _tag(b) == "v1.0.0+"


def test_unknown_storage_version_is_refused(tmp_path):
    db = tmp_path / "t.duckdb"
    res = runner.invoke(app, ["ingest", str(RANK), "--db", str(db), "--storage-version", "1.0"])
    assert res.exit_code == 1
    assert "unknown storage version '1.0'" in res.stderr and "Hint:" in res.stderr
    assert not db.exists()


def test_foreign_wal_is_refused(tmp_path):
    """F7: at the default storage version DuckDB writes the database's id into its WAL; the
    .wal of another tracedb database (same tables) is refused with a message naming it."""
    ours, other = tmp_path / "ours.duckdb", tmp_path / "other.duckdb"
    for path in (ours, other):
        assert runner.invoke(app, ["ingest", str(RANK), "--db", str(path)]).exit_code == 0
    con = duckdb.connect(str(other))
    con.execute("SET checkpoint_threshold = '1TB'")
    con.execute("PRAGMA disable_checkpoint_on_shutdown")
    con.execute("UPDATE run SET run_name = 'from_the_other_database'")
    con.close()
    assert (tmp_path / "other.duckdb.wal").exists()     # left behind as by a killed process
    shutil.copy(tmp_path / "other.duckdb.wal", tmp_path / "ours.duckdb.wal")
    before = ours.read_bytes()
    for args in (["runs"], ["ingest", str(RANK)]):
        res = runner.invoke(app, [*args, "--db", str(ours)])
        assert res.exit_code == 1, (args, res.output)
        assert "ours.duckdb.wal" in res.stderr and "another database" in res.stderr, res.stderr
    assert ours.read_bytes() == before
    os.remove(tmp_path / "ours.duckdb.wal")             # the hint's remedy
    assert [r[0] for r in rows(ours, "SELECT run_name FROM run")] != ["from_the_other_database"]
