"""A new database copied from the cached template equals one built in place; a damaged or
missing cache never fails an ingest."""
from __future__ import annotations

import os

import duckdb
import pytest
from typer.testing import CliRunner

from tracedb.store import template
from tracedb.cli import app

from conftest import RANK0

runner = CliRunner()
RANK = RANK0

CATALOGUE = {
    "views": "SELECT schema_name, view_name, comment, sql FROM duckdb_views() WHERE NOT internal",
    "tables": "SELECT schema_name, table_name, comment, sql FROM duckdb_tables()",
    "columns": "SELECT schema_name, table_name, column_name, comment, data_type, column_default, is_nullable "
               "FROM duckdb_columns()",
    "macros": "SELECT schema_name, function_name, function_type, comment, macro_definition, parameters "
              "FROM duckdb_functions() WHERE NOT internal",
    "constraints": "SELECT schema_name, table_name, constraint_type, constraint_text, constraint_column_names "
                   "FROM duckdb_constraints()",
    "schemas": "SELECT schema_name, comment FROM duckdb_schemas()",
    "meta": "SELECT * FROM tracedb_meta",
    "objects": "SELECT * FROM tracedb_object",
    "rules": "SELECT * FROM kernel_class_rule",
    "runs": "SELECT run_name, role, platform FROM run",
    "kernels": "SELECT count(*), sum(dur_ns) FROM kernel",
    # every table a reader or derive step writes: a first ingest into a copied file keeps them
    "rows": "SELECT (SELECT count(*) FROM event), (SELECT count(*) FROM op), (SELECT count(*) FROM link), "
            "(SELECT count(*) FROM step), (SELECT count(*) FROM memory), (SELECT count(*) FROM source_file), "
            "(SELECT count(*) FROM kernel WHERE op_id IS NOT NULL)",
}


def _catalogue(path) -> dict:
    con = duckdb.connect(str(path), read_only=True)
    try:
        return {k: sorted(con.execute(sql).fetchall(), key=repr) for k, sql in CATALOGUE.items()}
    finally:
        con.close()


def _ingest(db, cache, monkeypatch) -> None:
    monkeypatch.setenv("TRACEDB_CACHE_DIR", str(cache))
    res = runner.invoke(app, ["ingest", str(RANK), "--db", str(db)])
    assert res.exit_code == 0, res.output


@pytest.fixture(scope="module")
def built_in_place(tmp_path_factory) -> dict:
    """The catalogue of a database built in place (TRACEDB_CACHE_DIR=off: no template), once
    for the module's tests: each in-place build installs the schema and the view library."""
    db = tmp_path_factory.mktemp("in_place") / "built.duckdb"
    with pytest.MonkeyPatch.context() as mp:
        _ingest(db, "off", mp)
    return _catalogue(db)


def test_copied_database_equals_one_built_in_place(tmp_path, monkeypatch, built_in_place):
    cache = tmp_path / "cache"
    built = built_in_place                                      # ingested with the cache off
    assert not cache.exists()
    _ingest(tmp_path / "first.duckdb", cache, monkeypatch)      # builds the template
    [made] = list(cache.glob("template-*.duckdb"))
    _ingest(tmp_path / "copied.duckdb", cache, monkeypatch)     # copies it
    assert built["kernels"][0][0] > 0 and len(built["views"]) > 40 and len(built["rules"]) > 40
    assert all(n > 0 for n in built["rows"][0]), built["rows"]
    for name in ("first.duckdb", "copied.duckdb"):
        got = _catalogue(tmp_path / name)
        for key in CATALOGUE:
            assert got[key] == built[key], (name, key)
    assert list(cache.glob("template-*.duckdb")) == [made]
    assert not list(cache.glob(".*"))                          # no temporary file left behind


def test_damaged_template_falls_back(tmp_path, monkeypatch, built_in_place):
    cache = tmp_path / "cache"
    monkeypatch.setenv("TRACEDB_CACHE_DIR", str(cache))
    con = duckdb.connect(str(tmp_path / "probe.duckdb"), config={"storage_compatibility_version": "v1.4.0"})
    path = template.template_path("v1.4.0")
    con.close()
    path.parent.mkdir(parents=True)
    path.write_bytes(b"not a database" * 1000)
    _ingest(tmp_path / "t.duckdb", cache, monkeypatch)
    assert _catalogue(tmp_path / "t.duckdb")["kernels"] == built_in_place["kernels"]


def test_unwritable_cache_falls_back(tmp_path, monkeypatch, built_in_place):
    blocker = tmp_path / "file"
    blocker.write_text("a file where the cache folder would be")
    _ingest(tmp_path / "t.duckdb", blocker / "cache", monkeypatch)
    assert _catalogue(tmp_path / "t.duckdb")["views"] == built_in_place["views"]


def test_existing_database_is_not_seeded(tmp_path, monkeypatch):
    """A DuckDB file of the user's own with a table gets tracedb's tables added in place."""
    db = tmp_path / "mine.duckdb"
    con = duckdb.connect(str(db))
    con.execute("CREATE TABLE notes AS SELECT 42 AS answer")
    con.close()
    _ingest(db, tmp_path / "cache", monkeypatch)
    assert not (tmp_path / "cache").exists()
    con = duckdb.connect(str(db), read_only=True)
    assert con.execute("SELECT answer FROM notes").fetchall() == [(42,)]
    assert con.execute("SELECT count(*) FROM kernel").fetchone()[0] > 0
    con.close()


def test_cache_dir_setting(monkeypatch, tmp_path):
    monkeypatch.setenv("TRACEDB_CACHE_DIR", "off")
    assert template.cache_dir() is None
    monkeypatch.delenv("TRACEDB_CACHE_DIR")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    assert template.cache_dir() == tmp_path / "tracedb"
    assert template.template_path("v1.0.0") is None          # compression hints: built in place
    assert os.fspath(template.template_path("v1.4.0")).startswith(str(tmp_path / "tracedb"))
