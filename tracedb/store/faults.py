"""DuckDB's storage failures said in one line, and the CHECKPOINT that follows a COMMIT.

A full disk, a file-size limit (``ulimit -f``), a folder the user cannot write, a read-only file
system and a damaged database file reach Python as DuckDB exceptions whose class name and first
line say little (``TransactionException: TransactionContext Error: Failed to commit: …``, or a
``FatalException`` about a failed rollback that hides the checksum error). :func:`storage_error`
names the database file, the cause and the outcome instead.

The outcome follows DuckDB's commit protocol (checked with a file-size limit, see
tests/store/test_write_faults.py): a COMMIT that raises has written nothing, even when it
failed in the checkpoint DuckDB runs at commit (a transaction that triggers that checkpoint is
not written to the .wal first); a CHECKPOINT after a COMMIT that succeeded may fail without
losing anything, since the committed changes are in the .wal, which the next open replays. Such
a failure can invalidate the database in this process (a ``FatalException``): the connection
must not run another statement, only be closed (:func:`checkpoint`, :func:`invalidated`).
"""
from __future__ import annotations

import re
from pathlib import Path
from typing import Callable

from ..engine import duckdb
from ..errors import TracedbError

# (words in DuckDB's message, lower case; what they mean)
CAUSES = (
    ("no space left on device", "the disk is full"),
    ("disk quota exceeded", "the disk quota is used up"),
    ("file too large", "the file-size limit (ulimit -f) was reached"),
    ("read-only file system", "the file system is read-only"),
    ("permission denied", "permission denied"),
    ("corrupt", "the database file is damaged"),
)
DAMAGED = "the database file is damaged"
_PREFIX = re.compile(r"^(?:(?:[A-Z][A-Za-z]*(?: [A-Za-z]+)* Error|Original (?:E|e)rror|Rollback Error|"
                     r"Failed to commit|Failed to create checkpoint because of error|Failed)\s*:\s*)+")


def _lines(e: BaseException) -> list[str]:
    return [line.strip() for line in str(e).splitlines() if line.strip()]


def duckdb_first(e: BaseException) -> str:
    """DuckDB's first line, or for a fatal error the line of the error that caused it."""
    lines = _lines(e) or [type(e).__name__]
    original = [line for line in lines if line.lower().startswith("original error")]
    return original[0] if original and invalidated(e) else lines[0]


def storage_cause(e: BaseException) -> tuple[str, str] | None:
    """(cause, DuckDB's own words for it) when ``e`` is a storage failure, else None. DuckDB's
    words lose their ``IO Error:`` / ``Failed to commit:`` prefixes; a FatalException's
    "Original Error" line is the one that tells."""
    if not isinstance(e, duckdb.Error):
        return None
    lines = _lines(e)
    for words, cause in CAUSES:
        for line in lines:
            if words in line.lower():
                return cause, _PREFIX.sub("", line).strip() or line
    if isinstance(e, duckdb.SerializationException):
        return DAMAGED, _PREFIX.sub("", lines[0]) if lines else type(e).__name__
    return None


def invalidated(e: BaseException) -> bool:
    """True when DuckDB invalidated the database after ``e`` (a fatal error): the connection
    may only be closed."""
    return isinstance(e, duckdb.FatalException) or "invalidated" in str(e).lower()


def about_database(detail: str, path: Path) -> bool:
    """True if DuckDB's words ``detail`` are about the database at ``path`` (the file, its .wal
    or its spill folder ``<db>.tmp``), or name no file at all."""
    named = re.findall(r'"([^"]+)"', detail)
    return not named or any(Path(n).name.startswith(path.name) for n in named)


def storage_error(e: BaseException, path: str | Path, *,
                  outcome: str = "nothing was written: the database is as it was") -> TracedbError | None:
    """A storage failure on the database ``path`` as one line naming the file, the cause and the
    ``outcome``; None for any other error (or a storage failure of another file, e.g. a CSV that
    ``read_csv`` cannot open)."""
    found = storage_cause(e)
    path = Path(path)
    if found is None:
        return None
    cause, detail = found
    if cause == DAMAGED:
        return TracedbError(f"{DAMAGED} ({detail}); {outcome}.", file=str(path),
                            hint="move it away and ingest the profiler output again into a new file.")
    if not about_database(detail, path):
        return None
    hint = {"the disk is full": "free space on that disk (or pass --db a file on another one) and retry.",
            "permission denied": "the folder of the database must be writable (DuckDB writes the .wal beside "
                                 "the file); or pass --db a file in a folder you can write."}.get(cause)
    return TracedbError(f"cannot write the database: {cause} ({detail}); {outcome}.", file=str(path), hint=hint)


def database_fault(e: BaseException, path: str | Path) -> BaseException | None:
    """The DuckDB storage failure of the database ``path`` behind ``e`` (``e`` itself, or the
    error a reader's error boundary wrapped: a reader's INSERT that hits a full disk is not the
    input's fault), else None."""
    seen = 0
    while e is not None and seen < 8:
        if isinstance(e, duckdb.Error) and storage_error(e, path) is not None:
            return e
        e, seen = e.__cause__ or e.__context__, seen + 1
    return None


def database_path(con) -> str:
    """The file of the connection's database ('' when DuckDB does not say)."""
    try:
        row = con.execute("SELECT path FROM duckdb_databases() WHERE database_name = current_database()").fetchone()
        return (row[0] or "") if row else ""
    except duckdb.Error:
        return ""


def committed_warning(e: BaseException, path: str | Path, what: str = "writing it into the database file") -> str:
    """The warning after a failure that follows a successful COMMIT."""
    found = storage_cause(e)
    first = f"{found[0]}: {found[1]}" if found else duckdb_first(e)
    where = f"{path}: " if path else ""
    return (f"warning: {where}the data is committed, but {what} failed ({first}); DuckDB completes it from "
            f"the .wal file at the next open.")


def checkpoint(con, progress: Callable[[str], None] = lambda s: None, path: str | Path | None = None) -> bool:
    """CHECKPOINT after a COMMIT, best effort: the data is committed (durable in the .wal)
    either way, so a failure is a warning through ``progress``. Returns False when it failed; the
    connection may then be invalidated (:func:`invalidated`): run nothing more on it, close it."""
    if path is None:
        path = database_path(con)
    try:
        con.execute("CHECKPOINT")
        return True
    except duckdb.Error as e:
        progress(committed_warning(e, path))
        return False


def read_every_block(con, path: str | Path) -> int:
    """Read every column of every table of the connection's database once, so that DuckDB checks
    the checksum of each block that holds data (a query reads only the blocks it needs: a damaged
    block of a column no view reads goes unnoticed). Returns the tables read.

    Raises:
        TracedbError: a block cannot be read (the message names the table and DuckDB's words).
    """
    tables = con.execute(
        "SELECT schema_name, table_name, list(column_name ORDER BY column_index) "
        "FROM duckdb_columns() JOIN duckdb_tables() USING (database_name, schema_name, table_name) "
        "WHERE database_name = current_database() GROUP BY schema_name, table_name ORDER BY 1, 2").fetchall()
    for schema, table, columns in tables:
        name = f'{_quote(schema)}.{_quote(table)}'
        # hash() of every column: no optimizer answers it from statistics, so each block is read
        try:
            con.execute(f"SELECT max(hash({', '.join(map(_quote, columns))})) FROM {name}").fetchone()
        except duckdb.Error as e:
            err = storage_error(e, path, outcome="the database was not changed")
            if err is None:
                raise
            err.place = f"table {table}"
            raise err from e
    return len(tables)


def _quote(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'
