"""Issue 40, point 5: a database file with a damaged block (bytes overwritten inside a data
block, as a bad sector leaves them), through the CLI.

* ``tracedb check`` reads every block and fails naming the file and the table (on main it
  exited 0: its views never read the damaged column);
* an ingest whose COMMIT reads the damaged block fails with one line naming the file, saying it is
  damaged and that nothing was written (on main: ``FatalException: … Failed to rollback``), every
  table as before;
* ``export --parquet`` of it fails with that line and leaves no folder behind, so nothing blocks
  the retry (on main it left the tables written before the damaged one).
"""
from __future__ import annotations

import shutil

import pytest
from typer.testing import CliRunner

from conftest import FIXTURES, ingested
from fault_tools import damage_block, error_lines, fingerprint
from tracedb.cli import app

runner = CliRunner()
RANK0 = FIXTURES / "ascend/level1/rank0_ascend_pt"
RANK1 = FIXTURES / "ascend/level1/rank1_ascend_pt"


@pytest.fixture(scope="module")
def good(tmp_path_factory):
    db = tmp_path_factory.mktemp("good") / "good.duckdb"
    ingested(db, RANK0)
    return db


def _damaged(good, tmp_path, table, column=None):
    db = tmp_path / "damaged.duckdb"
    shutil.copyfile(good, db)
    damage_block(db, table, column)
    return db


def test_check_reads_every_block(good, tmp_path):
    assert runner.invoke(app, ["check", "--db", str(good)]).exit_code == 0
    db = _damaged(good, tmp_path, "event", "args")          # a column no check view reads
    res = runner.invoke(app, ["check", "--db", str(db)])
    assert res.exit_code == 1
    [line] = error_lines(res.stderr)
    assert line.startswith(f"tracedb: error: {db} (table event): the database file is damaged (Corrupt database file")


def test_ingest_into_a_damaged_database_writes_nothing(good, tmp_path):
    db = _damaged(good, tmp_path, "source_file")             # read by the COMMIT of a new file's row
    res = runner.invoke(app, ["ingest", str(RANK1), "--db", str(db)])
    assert res.exit_code == 1
    [line] = error_lines(res.stderr)
    assert line.startswith(f"tracedb: error: {db}: the database file is damaged (")
    assert "nothing was written" in line and "Exception" not in line
    # every table but the damaged one (which cannot be read) as in the good file
    assert fingerprint(db, skip=("source_file",)) == fingerprint(good, skip=("source_file",))


def test_export_of_a_damaged_database_leaves_no_folder(good, tmp_path):
    db = _damaged(good, tmp_path, "event", "args")
    out = tmp_path / "out"
    res = runner.invoke(app, ["export", "--parquet", str(out), "--db", str(db)])
    assert res.exit_code == 1
    [line] = error_lines(res.stderr)
    assert f"{db}: the database file is damaged" in line
    assert list(tmp_path.iterdir()) == [db]       # neither out nor out.tmp-<pid>: nothing blocks the retry
