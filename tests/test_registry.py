"""The view library: documented, portable, installed in dependency order."""
from __future__ import annotations

import re

from tracedb.registry import load_library
from tracedb.schema import sql_dir

FORBIDDEN = re.compile(r"\b(json_\w+|countif|make_timestamp_ns|nanosecond|weighted_avg|if)\s*\(|GROUP\s+BY\s+ALL|->>|"
                       r"\bx\s*->", re.I)


def test_every_file_declares_its_object_with_a_header():
    objs = load_library()
    assert objs, "no views found"
    for o in objs:
        assert o.header.startswith(f"{o.name} — "), o.path
        for field in ("Grain", "Source", "Units"):
            assert o.header_field(field), f"{o.path}: header lacks {field}:"


def test_no_extension_or_new_functions_in_views():
    for path in sql_dir("queries").glob("*/*.sql"):
        code = "\n".join(line.split("--")[0] for line in path.read_text().splitlines())
        m = FORBIDDEN.search(code)
        assert m is None, f"{path}: {m.group(0)}"


def test_public_views_documented_and_exact_types(empty_db):
    con = empty_db
    views = [o for o in load_library() if o.kind == "view" and o.schema == "main"]
    for o in views:
        comment = con.execute("SELECT comment FROM duckdb_views() WHERE view_name = ?", [o.name]).fetchone()[0]
        assert comment and comment.startswith(o.name), o.name
        cols = con.execute("SELECT column_name, data_type, comment FROM duckdb_columns() WHERE table_name = ?",
                           [o.name]).fetchall()
        for name, dtype, ccomment in cols:
            assert ccomment, f"{o.name}.{name} has no comment"
            assert "HUGEINT" not in dtype and "DECIMAL" not in dtype, f"{o.name}.{name} is {dtype}"
            if name.endswith("_ns") or name.endswith("_bytes"):
                assert dtype == "BIGINT", f"{o.name}.{name} is {dtype}"


def test_every_table_and_column_commented(empty_db):
    cols = empty_db.execute("""SELECT table_name, column_name FROM duckdb_columns()
                               WHERE schema_name = 'main' AND comment IS NULL
                                 AND table_name IN (SELECT table_name FROM duckdb_tables())""").fetchall()
    assert cols == []
    assert empty_db.execute("SELECT count(*) FROM duckdb_tables() WHERE comment IS NULL").fetchone()[0] == 0


def test_catalogue_lists_macros_and_internal_helpers(empty_db):
    got = dict(empty_db.execute("SELECT name, kind || ':' || schema_name FROM tracedb_object").fetchall())
    assert got["op_diff_between"] == "table_macro:main"
    assert got["step_breakdown"] == "view:main"
    assert got["compute_island"] == "view:tracedb_internal"


def test_storage_version_recorded(empty_db):
    assert empty_db.execute("SELECT value FROM tracedb_meta WHERE key = 'storage_version'").fetchone() == ("v1.0.0",)
