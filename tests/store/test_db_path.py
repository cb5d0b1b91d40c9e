"""--db must be a DuckDB file or not exist (issue 19 F6, F11); a stray .wal is not replayed
silently (F7, as far as it can be told apart)."""
from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import sys

import duckdb
import pytest
from typer.testing import CliRunner

from conftest import RANK0, ROOT, api_ingested, rows
from tracedb.cli import app

runner = CliRunner()


def digest(folder):
    out = {}
    for p in sorted(folder.iterdir()):
        out[p.name] = "dir" if p.is_dir() else ("fifo" if p.is_fifo() else
                                                hashlib.sha256(p.read_bytes()).hexdigest())
    return out


def cli(*args, timeout=60):
    """The CLI in a subprocess, so that a hang fails the test instead of blocking it."""
    return subprocess.run([sys.executable, "-m", "tracedb.cli", *map(str, args)], capture_output=True,
                          text=True, timeout=timeout, cwd=ROOT)


def make_targets(tmp_path):
    (tmp_path / "results.csv").write_text("a,b\n1,2\n")
    con = duckdb.connect()
    con.execute(f"COPY (SELECT 1 AS a) TO '{tmp_path / 'x.parquet'}' (FORMAT parquet)")
    con.close()
    (tmp_path / "folder").mkdir()
    os.mkfifo(tmp_path / "pipe")
    (tmp_path / "empty.duckdb").write_bytes(b"")
    (tmp_path / "short.duckdb").write_bytes(b"DUCK")
    return {"results.csv": "not a DuckDB database", "x.parquet": "not a DuckDB database",
            "folder": "it is a folder", "pipe": "not a regular file", "empty.duckdb": "the file is empty",
            "short.duckdb": "not a DuckDB database"}


@pytest.mark.process
@pytest.mark.parametrize("command", ["ingest", "query"])
def test_db_that_is_not_a_duckdb_file_is_refused(tmp_path, command):
    targets = make_targets(tmp_path)
    before = digest(tmp_path)
    for name, expected in list(targets.items()) + [(":memory:", "not a database file"),
                                                   ("new_results.csv", "not a DuckDB database"
                                                    if command == "ingest" else "does not exist")]:
        db = tmp_path / name if name != ":memory:" else name
        args = ["ingest", RANK0] if command == "ingest" else ["query", "SELECT count(*) FROM run"]
        res = cli(*args, "--db", db)
        assert res.returncode == 1, (name, res.stdout, res.stderr)
        err = res.stderr.strip().splitlines()
        assert err[-1].startswith("tracedb: error: ") and expected in err[-1] and "Hint:" in err[-1], (name, err)
        assert "Traceback" not in res.stderr and res.stdout == ""
    assert digest(tmp_path) == before                   # nothing written, nothing created


def test_wal_without_its_database_is_not_replayed(tmp_path):
    db = tmp_path / "t.duckdb"
    assert runner.invoke(app, ["ingest", str(RANK0), "--db", str(db)]).exit_code == 0
    other = tmp_path / "other.duckdb"
    con = duckdb.connect(str(other), config={"storage_compatibility_version": "v1.0.0"})
    con.execute("SET checkpoint_threshold = '1TB'")
    con.execute("CREATE TABLE t (a INTEGER)")
    con.execute("CHECKPOINT")
    con.execute("INSERT INTO t VALUES (1)")
    # leave other.duckdb.wal behind as a killed process would
    wal = tmp_path / "other.duckdb.wal"
    assert wal.exists()
    shutil.copy(wal, tmp_path / "saved.wal")
    con.close()
    os.remove(other)
    shutil.copy(tmp_path / "saved.wal", wal)
    res = runner.invoke(app, ["ingest", str(RANK0), "--db", str(other)])
    assert res.exit_code == 1, res.output
    assert "other.duckdb.wal exists without its database file" in res.stderr and "Hint:" in res.stderr
    assert not other.exists() and wal.exists()          # nothing replayed, the .wal left for the user


def test_wal_that_does_not_fit_the_database_is_named(tmp_path):
    db = tmp_path / "t.duckdb"
    assert runner.invoke(app, ["ingest", str(RANK0), "--db", str(db)]).exit_code == 0
    before = rows(db, "SELECT count(*) FROM event")
    other = tmp_path / "o.duckdb"
    con = duckdb.connect(str(other), config={"storage_compatibility_version": "v1.0.0"})
    con.execute("SET checkpoint_threshold = '1TB'")
    con.execute("CREATE TABLE not_in_tracedb (a INTEGER)")
    con.execute("CHECKPOINT")
    con.execute("INSERT INTO not_in_tracedb VALUES (1)")
    shutil.copy(tmp_path / "o.duckdb.wal", tmp_path / "t.duckdb.wal")
    con.close()
    res = runner.invoke(app, ["query", "SELECT count(*) FROM event", "--db", str(db)])
    assert res.exit_code == 1
    assert "replaying t.duckdb.wal failed" in res.stderr and "belong to another database" in res.stderr
    os.remove(tmp_path / "t.duckdb.wal")
    assert rows(db, "SELECT count(*) FROM event") == before


@pytest.mark.slow           # a campaign: every 256 KiB block damaged in turn, four queries each (8 s of CPU)
def test_a_damaged_block_is_named_with_the_database_file(tmp_path):
    """Overwrite 64 bytes in each 256 KiB block in turn: every query either works or fails with
    one line naming the database file (DuckDB's checksum message names no file)."""
    from tracedb import api
    from tracedb.errors import TracedbError
    base = tmp_path / "base.duckdb"
    api_ingested([RANK0], base)
    db = tmp_path / "t.duckdb"
    failures = 0
    for off in range(3 * 4096 + 100, base.stat().st_size, 256 * 1024):
        shutil.copy(base, db)
        with open(db, "r+b") as f:
            f.seek(off)
            f.write(b"\x5a" * 64)
        for q in ("SELECT * FROM event", "SELECT * FROM kernel", "step_breakdown", "runs"):
            try:
                api.runs(db=db) if q == "runs" else api.query(q, db=db)
            except TracedbError as e:
                failures += 1
                assert str(e).startswith(f"{db}: ") and "\n" not in str(e), (off, q, str(e))
    assert failures > 0
