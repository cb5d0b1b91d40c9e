"""Opening the database file: path checks, storage version, read-only and locked modes, lock errors.

A new database file is written with DuckDB storage version :data:`STORAGE_VERSION` (v1.4.0:
DuckDB 1.4 LTS, 1.5 and 2.0 open it, the DuckDB 1.5.6 shell included; chosen with the storage
matrix in bench/RESULTS.md); ``tracedb ingest --storage-version v1.0.0`` writes a file that
DuckDB 1.1-1.3 can open too. An existing file keeps the version it was created with.

``--db`` must name a DuckDB file or a path that does not exist yet: DuckDB itself opens an
existing CSV/Parquet file, ``:memory:`` or a folder without complaint as an in-memory database
(the rows are lost at exit) and blocks forever on a FIFO, so :func:`check_db_path` looks at the
path before DuckDB does.

A ``.wal`` beside the file is replayed by DuckDB on open. From storage v1.4.0 on the WAL carries
the database's identifier and DuckDB refuses the WAL of another database ("WAL does not match
database file"); the error names the ``.wal`` and says it may belong to another database. Files
written with ``--storage-version`` below v1.4.0 have no identifier: a WAL of another tracedb
database with the same tables cannot be told from this database's own WAL after a killed ingest
and is replayed. Caught at every version: a ``.wal`` whose database file is missing (refused
before DuckDB would replay it into a new file) and a ``.wal`` whose replay fails.
"""
from __future__ import annotations

import os
import re
import stat
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator

from ..engine import duckdb
from ..errors import DatabaseLockedError, TracedbError

DEFAULT_DB = "tracedb.duckdb"
DB_ENV = "TRACEDB_DB"
STORAGE_VERSION = "v1.4.0"    # see the module docstring and bench/RESULTS.md "Storage version"
MAGIC = b"DUCK"            # bytes 8..11 of every DuckDB database file
MAGIC_OFFSET = 8
# names that are data files, not databases: DuckDB would create a database under that name
DATA_SUFFIXES = (".csv", ".tsv", ".parquet", ".json", ".jsonl", ".ndjson", ".gz", ".arrow", ".txt")
_SCHEME = re.compile(r"^(:memory:|[A-Za-z][A-Za-z0-9+.-]+:)")   # :memory:, md:, s3://, http:// ...

# The connection of `tracedb query` (without --write): no extension is installed, downloaded or
# loaded (json and parquet are built into the wheel), and no SQL can change these settings
# (lock_configuration is set right after the connection opens).
# Statements other than SELECT are refused before they run (tracedb.api.check_read_only_sql).
LOCKED_SETTINGS = {
    "autoinstall_known_extensions": False,
    "autoload_known_extensions": False,
    "allow_community_extensions": False,
    "allow_unsigned_extensions": False,
    "python_enable_replacements": False,
}


def resolve_db_path(db: str | os.PathLike | None) -> Path:
    """The database path: ``db`` if given, else $TRACEDB_DB, else ./tracedb.duckdb."""
    if db:
        return Path(db)
    env = os.environ.get(DB_ENV)
    return Path(env) if env else Path(DEFAULT_DB)


def wal_path(path: Path) -> Path:
    """The write-ahead log DuckDB keeps beside ``path``."""
    return Path(str(path) + ".wal")


def _not_a_db(path: Path, what: str) -> TracedbError:
    return TracedbError(f"not a DuckDB database: {what}.", file=str(path),
                        hint="pass --db a .duckdb file made by tracedb, or a new file name such as "
                             "tracedb.duckdb.")


def check_db_path(db: str | os.PathLike | None, *, must_exist: bool = False) -> Path:
    """The database path, checked before DuckDB opens it.

    Args:
        db: as for :func:`resolve_db_path`.
        must_exist: the file must exist (query commands).

    Returns:
        The path: an existing DuckDB file, or (unless ``must_exist``) a path that does not exist.

    Raises:
        TracedbError: ``:memory:`` or a URL; a folder, FIFO or device; a file that is not a DuckDB
            database (checked by its magic bytes, without opening it); a data-file name such as
            ``results.csv``; a ``.wal`` without its database; a missing file when ``must_exist``.
    """
    path = resolve_db_path(db)
    text = str(path)
    if _SCHEME.match(text):
        raise TracedbError(f"{text!r} is not a database file.", file=text,
                           hint="tracedb keeps its data in a file: pass --db PATH.duckdb.")
    try:
        st = os.stat(path)
    except FileNotFoundError:
        st = None
    except OSError as e:
        raise TracedbError(f"cannot open database: {e.strerror}.", file=text) from e
    wal = wal_path(path)
    if st is None:
        if wal.exists():
            raise TracedbError(f"{wal.name} exists without its database file; DuckDB would replay it "
                               "into a new database.", file=str(wal),
                               hint="move the .wal away (it belongs to a database that was moved or "
                                    "deleted) and retry.")
        if must_exist:
            raise TracedbError("database file does not exist.", file=text,
                               hint="run 'tracedb ingest PATH' first, or pass --db / set TRACEDB_DB.")
        if path.suffix.lower() in DATA_SUFFIXES:
            raise _not_a_db(path, f"a {path.suffix} name is for data files")
        return path
    if stat.S_ISDIR(st.st_mode):
        raise _not_a_db(path, "it is a folder")
    if not stat.S_ISREG(st.st_mode):
        raise _not_a_db(path, "it is not a regular file (FIFO, socket or device)")
    try:
        with open(path, "rb") as f:
            head = f.read(MAGIC_OFFSET + len(MAGIC))
    except OSError as e:
        raise TracedbError(f"cannot read database: {e.strerror}.", file=text) from e
    if head[MAGIC_OFFSET:] != MAGIC:
        raise _not_a_db(path, "the file is empty" if not head else "no DuckDB header")
    return path


_VERSION = re.compile(r"^(v\d+\.\d+\.\d+|latest)$")


def check_storage_version(version: str) -> str:
    """``version`` if it looks like a DuckDB storage version (``v1.5.0``, ``latest``); DuckDB
    itself says whether it knows it when the file is created."""
    if not _VERSION.match(version or ""):
        raise TracedbError(f"unknown storage version {version!r}.",
                           hint="give a DuckDB version such as v1.0.0, v1.5.0 or latest.")
    return version


def _settings(read_only: bool, threads: int | None, memory_limit: str | None, locked: bool,
              storage_version: str | None = None) -> dict:
    config: dict = {}
    if not read_only:
        config["storage_compatibility_version"] = storage_version or STORAGE_VERSION
    if threads:
        config["threads"] = threads
    if memory_limit:
        config["memory_limit"] = memory_limit
    if locked:
        config.update(LOCKED_SETTINGS)
    return config


def connect(db: str | os.PathLike | None = None, *, read_only: bool = False,
            threads: int | None = None, memory_limit: str | None = None,
            must_exist: bool = False, locked: bool = False,
            storage_version: str | None = None) -> duckdb.DuckDBPyConnection:
    """Open the tracedb database.

    Args:
        db: database path (default: $TRACEDB_DB or ./tracedb.duckdb).
        read_only: open read-only (many readers may share the file).
        threads, memory_limit: DuckDB settings for this connection.
        must_exist: fail if the file does not exist (query commands).
        locked: read-only and locked down for untrusted SQL: no extension install/load, no
            Python replacement scans, configuration frozen (see :data:`LOCKED_SETTINGS`).
        storage_version: DuckDB storage version of a file this call creates (default
            :data:`STORAGE_VERSION`); an existing file keeps the version it was written with.

    Returns:
        A DuckDB connection.

    Raises:
        DatabaseLockedError: another process holds the file (the message names it).
        TracedbError: the path is not a DuckDB file (see :func:`check_db_path`), is missing
            (must_exist / read_only), or DuckDB cannot open it.
    """
    read_only = read_only or locked
    path = check_db_path(db, must_exist=must_exist or read_only)
    try:
        con = duckdb.connect(str(path), read_only=read_only,
                             config=_settings(read_only, threads, memory_limit, locked,
                                              storage_version and check_storage_version(storage_version)))
        con.execute("SET enable_progress_bar = false")
        if locked:
            con.execute("SET lock_configuration = true")
        return con
    except duckdb.IOException as e:
        msg = str(e)
        if "lock" in msg.lower():
            raise _locked(path, msg, read_only) from e
        raise _open_error(path, e) from e
    except duckdb.Error as e:
        raise _open_error(path, e) from e


def _locked(path: Path, msg: str, read_only: bool) -> DatabaseLockedError:
    """The lock error, by the holder's mode: DuckDB says "you would be able to open this database
    in read-only mode" when the holder is a reader (readers share the file, a writer needs it
    alone); a reader that is refused is refused by a writer."""
    holder = re.search(r"held in (.+?) \(PID (\d+)\)", msg)
    who = f"{holder.group(1)} (PID {holder.group(2)})" if holder else "another program"
    if "read-only mode" in msg:
        return DatabaseLockedError(
            f"database is locked: it is open read-only in {who}, and a reader keeps writers out.",
            file=str(path),
            hint="close that program's connection (DuckDB shell: .exit; a BI tool: disconnect or stop its "
                 "server) and retry; queries (tracedb query, summary, report) can run beside it.")
    if read_only:
        return DatabaseLockedError(
            f"database is locked: {who} is writing to it.", file=str(path),
            hint="wait for it to finish (a tracedb ingest or compare commits and closes the file) and retry; a "
                 "program that keeps a read-write connection open (DuckDB shell without -readonly, a BI tool "
                 "not set read-only) must close it or reconnect read-only.")
    return DatabaseLockedError(
        f"database is locked by {who}.", file=str(path),
        hint="close the other program or open it read-only (DuckDB shell: duckdb -readonly; "
             "BI tools: set the connection read-only) and retry.")


def _open_error(path: Path, e: Exception) -> TracedbError:
    first = str(e).splitlines()[0] if str(e) else type(e).__name__
    if wal_path(path).exists():
        return TracedbError(f"cannot open database: replaying {wal_path(path).name} failed: {first}",
                            file=str(path),
                            hint="the .wal may belong to another database; if so, move it away "
                                 "(its changes are then lost) and retry.")
    return TracedbError(f"cannot open database: {first}", file=str(path))


@contextmanager
def transaction(con) -> Iterator:
    """``BEGIN TRANSACTION`` … ``COMMIT``; any exception rolls back and propagates (a failed
    COMMIT has rolled back already, so a failing ROLLBACK is ignored)."""
    con.execute("BEGIN TRANSACTION")
    try:
        yield con
        con.execute("COMMIT")
    except BaseException:
        try:
            con.execute("ROLLBACK")
        except duckdb.Error:
            pass
        raise
