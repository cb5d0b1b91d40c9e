"""The schema, defined once in ``schema/*.sql``, applied in file order.

Files only declare (CREATE TABLE IF NOT EXISTS + COMMENT ON), so applying them to an
existing database is a no-op apart from refreshing the comments.
"""
from __future__ import annotations

from pathlib import Path

import duckdb

from . import __version__
from .db import STORAGE_VERSION

SCHEMA_VERSION = "1"


def sql_dir(name: str) -> Path:
    """Folder of the SQL library: ``schema`` or ``queries`` (repository checkout or installed copy)."""
    here = Path(__file__).resolve().parent
    installed = here / f"_{name}"
    return installed if installed.is_dir() else here.parent / name


def apply_schema(con: duckdb.DuckDBPyConnection) -> None:
    """Create every table of ``schema/*.sql`` that is missing and (re)write its comments."""
    for path in sorted(sql_dir("schema").glob("*.sql")):
        con.execute(path.read_text())   # DuckDB runs a whole multi-statement file in one call
    for key, value in (("schema_version", SCHEMA_VERSION), ("storage_version", STORAGE_VERSION),
                       ("tracedb_version", __version__)):
        con.execute("INSERT OR REPLACE INTO tracedb_meta VALUES (?, ?)", [key, value])
