"""Issue 40, point 5: ``tracedb export --parquet`` writes into ``DIR.tmp-<pid>`` and renames it to
DIR at the end, so a failure leaves DIR as it was; a run name too long for a folder name
(``run_name=<name>``, 255 bytes) is refused before anything is written. On main a run name of
250 bytes failed with DuckDB's "File name too long" after the tables before it were written,
and the partial folder refused the retry ("not empty")."""
from __future__ import annotations

import duckdb
import pytest
from typer.testing import CliRunner

from conftest import FIXTURES, ingested
from tracedb.cli import app

runner = CliRunner()
LONG = "r" * 250          # 'run_name=' + 250 bytes = 259 > 255


@pytest.fixture(scope="module")
def long_named(tmp_path_factory):
    db = tmp_path_factory.mktemp("long") / "t.duckdb"
    ingested(db, FIXTURES / "ascend/level1/rank0_ascend_pt")
    con = duckdb.connect(str(db))
    con.execute("UPDATE run SET run_name = ?", [LONG])
    con.close()
    return db


def test_too_long_run_name_is_refused_before_writing(long_named, tmp_path):
    out = tmp_path / "out"
    out.mkdir()
    (out / "keep.txt").write_text("the earlier export")
    res = runner.invoke(app, ["export", "--parquet", str(out), "--db", str(long_named), "--overwrite"])
    assert res.exit_code == 1
    assert res.stderr.startswith(f"tracedb: error: run name '{'r' * 40}'… is too long for a Parquet partition folder")
    assert "259 bytes" in res.stderr and "tracedb runs rename" in res.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out"]              # no out.tmp-<pid>
    assert [p.name for p in out.iterdir()] == ["keep.txt"]                    # --overwrite kept it: nothing written


@pytest.mark.slow          # a whole export (tests/test_export.py has one in the default run)
def test_export_replaces_the_folder_in_one_rename(long_named, tmp_path):
    """A name of 246 bytes fits (255 with 'run_name='); the empty folder becomes the export."""
    db = tmp_path / "fits.duckdb"
    db.write_bytes(long_named.read_bytes())
    con = duckdb.connect(str(db))
    con.execute("UPDATE run SET run_name = ?", ["r" * 246])
    con.close()
    out = tmp_path / "out"
    out.mkdir()
    res = runner.invoke(app, ["export", "--parquet", str(out), "--db", str(db)])
    assert res.exit_code == 0, res.output
    assert (out / "event" / f"run_name={'r' * 246}").is_dir() and (out / "views.sql").is_file()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["fits.duckdb", "out"]
