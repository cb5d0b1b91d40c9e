"""The schema, defined once in ``schema/*.sql``, applied in file order.

Files only declare (CREATE TABLE IF NOT EXISTS + COMMENT ON), so applying them to an
existing database is a no-op apart from refreshing the comments.
"""
from __future__ import annotations

import re
from pathlib import Path

import duckdb

from . import __version__
from .db import STORAGE_VERSION

SCHEMA_VERSION = "2"


def sql_dir(name: str) -> Path:
    """Folder of the SQL library: ``schema`` or ``queries`` (repository checkout or installed copy)."""
    here = Path(__file__).resolve().parent
    installed = here / f"_{name}"
    return installed if installed.is_dir() else here.parent / name


def _storage_version(con: duckdb.DuckDBPyConnection) -> str | None:
    """The storage version of the open database file (``v1.0.0+``), None where DuckDB does not say."""
    try:
        row = con.execute("SELECT tags['storage_version'] FROM duckdb_databases() "
                          "WHERE database_name = current_database()").fetchone()
    except duckdb.Error:
        return None
    return row[0] if row else None


def apply_schema(con: duckdb.DuckDBPyConnection) -> None:
    """Create every table of ``schema/*.sql`` that is missing and (re)write its comments.

    The ``USING COMPRESSION dictionary`` hints apply to files at tracedb's storage version; a
    file that plain DuckDB created with a newer one (where that compression is read-only) gets
    the tables without the hint."""
    version = _storage_version(con)
    hints = version is None or version.rstrip("+") == STORAGE_VERSION
    for path in sorted(sql_dir("schema").glob("*.sql")):
        sql = path.read_text()
        if not hints:
            sql = re.sub(r"\s+USING\s+COMPRESSION\s+\w+", "", sql, flags=re.I)
        con.execute(sql)   # DuckDB runs a whole multi-statement file in one call
    for key, value in (("schema_version", SCHEMA_VERSION), ("storage_version", STORAGE_VERSION),
                       ("tracedb_version", __version__)):
        con.execute("INSERT OR REPLACE INTO tracedb_meta VALUES (?, ?)", [key, value])
