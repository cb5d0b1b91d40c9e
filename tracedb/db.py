"""Opening the database file: storage version, read-only mode, lock errors, settings.

Every read-write open passes ``storage_compatibility_version = v1.0.0`` so that DuckDB 1.x
shells and BI drivers can open files written by newer DuckDB (style.md §3.1, measured).
"""
from __future__ import annotations

import os
import re
from pathlib import Path

import duckdb

from .errors import DatabaseLockedError, TracedbError

DEFAULT_DB = "tracedb.duckdb"
DB_ENV = "TRACEDB_DB"
STORAGE_VERSION = "v1.0.0"


def resolve_db_path(db: str | os.PathLike | None) -> Path:
    """The database path: ``db`` if given, else $TRACEDB_DB, else ./tracedb.duckdb."""
    if db:
        return Path(db)
    env = os.environ.get(DB_ENV)
    return Path(env) if env else Path(DEFAULT_DB)


def _settings(read_only: bool, threads: int | None, memory_limit: str | None) -> dict:
    config = {}
    if not read_only:
        config["storage_compatibility_version"] = STORAGE_VERSION
    if threads:
        config["threads"] = threads
    if memory_limit:
        config["memory_limit"] = memory_limit
    return config


def connect(db: str | os.PathLike | None = None, *, read_only: bool = False,
            threads: int | None = None, memory_limit: str | None = None,
            must_exist: bool = False) -> duckdb.DuckDBPyConnection:
    """Open the tracedb database.

    Args:
        db: database path (default: $TRACEDB_DB or ./tracedb.duckdb).
        read_only: open read-only (many readers may share the file).
        threads, memory_limit: DuckDB settings for this connection.
        must_exist: fail if the file does not exist (query commands).

    Returns:
        A DuckDB connection.

    Raises:
        DatabaseLockedError: another process holds the file (the message names it).
        TracedbError: the file is missing (must_exist) or is not a DuckDB database.
    """
    path = resolve_db_path(db)
    if (must_exist or read_only) and not path.exists():
        raise TracedbError("database file does not exist.", file=str(path),
                           hint="run 'tracedb ingest PATH' first, or pass --db / set TRACEDB_DB.")
    try:
        con = duckdb.connect(str(path), read_only=read_only,
                             config=_settings(read_only, threads, memory_limit))
        con.execute("SET enable_progress_bar = false")
        return con
    except duckdb.IOException as e:
        msg = str(e)
        if "lock" in msg.lower():
            holder = re.search(r"held in (.+?) \(PID (\d+)\)", msg)
            who = f" by {holder.group(1)} (PID {holder.group(2)})" if holder else ""
            raise DatabaseLockedError(
                f"database is locked{who}.", file=str(path),
                hint="close the other program or open it read-only (DuckDB shell: duckdb -readonly; "
                     "BI tools: set the connection read-only) and retry.") from e
        raise TracedbError(f"cannot open database: {msg.splitlines()[0]}", file=str(path)) from e
    except duckdb.Error as e:
        raise TracedbError(f"cannot open database: {str(e).splitlines()[0]}", file=str(path)) from e
