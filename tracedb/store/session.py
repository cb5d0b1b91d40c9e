"""Sessions on the database file: the connection a command works on, and what happens to the file
and to DuckDB's errors when the command fails.

* :func:`read_session` — a query command's connection (read-only and locked unless ``write``) on
  a database that has runs; DuckDB errors become one-line :class:`~tracedb.errors.TracedbError`.
* :func:`edit_session` — one read-write transaction (``tracedb runs rm`` …), checkpointed.
* :func:`writing` — the connection of a command that ingests: a file it creates is seeded from
  the template and removed again (with its .wal) when the command fails before its data is
  committed, so a failed first ingest leaves no empty file behind. After the COMMIT
  (:meth:`Writing.after_commit`) a failure is a warning and the connection is checkpointed,
  never used again once DuckDB has invalidated it.

DuckDB's storage failures (full disk, file-size limit, permissions, a damaged file) become one
line naming the database and saying what was written (:mod:`tracedb.store.faults`).
"""
from __future__ import annotations

import os
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Iterator

from .. import lazy
from ..engine import duckdb
from ..errors import QueryError, TracedbError, out_of_memory
from .db import check_db_path, connect, resolve_db_path, transaction, wal_path
from .faults import checkpoint, committed_warning, database_fault, duckdb_first, invalidated, storage_error

DEFAULT_INGEST_MEMORY = "1300MB"   # see tracedb.api.ingest and bench/RESULTS.md


def remove_created(path: Path, wal_existed: bool) -> None:
    """Remove the database file (and .wal) that a failed command created: no empty file is left."""
    for p in (path, None if wal_existed else wal_path(path)):
        if p is not None:
            try:
                os.remove(p)
            except OSError:
                pass


def require_runs(con, db) -> None:
    """Raise ``no runs yet`` when the database has no run (or no run table)."""
    # duckdb_tables() would cost 30-100 ms of a 0.3 s query command (it looks at every table)
    try:
        has_runs = con.execute("SELECT count(*) FROM main.run").fetchone()[0]
    except duckdb.CatalogException:
        has_runs = 0
    if not has_runs:
        raise TracedbError("no runs yet: tracedb ingest PATH.", file=str(resolve_db_path(db)),
                           hint="ingest profiler output into this database first, or pass --db / set "
                                "TRACEDB_DB to the database that holds your runs.")


def run_names(con) -> list[str]:
    """The run names, in the order they were ingested."""
    return [r[0] for r in con.execute("SELECT run_name FROM main.run ORDER BY run_id").fetchall()]


def find_run_id(con, name: str, db) -> int:
    """The run_id of run ``name``.

    Raises:
        QueryError: no run of that name (the message lists the runs).
    """
    row = con.execute("SELECT run_id FROM main.run WHERE run_name = ?", [name]).fetchone()
    if row is None:
        raise QueryError(f"no run named {name!r}.", file=str(resolve_db_path(db)),
                         hint=f"runs in this database: {', '.join(run_names(con))}.")
    return row[0]


def check_runs(con, db, *names: str | None) -> None:
    """Refuse a run name the database does not hold (None is no name), listing the runs."""
    for name in names:
        if name is not None:
            find_run_id(con, name, db)


def check_scope(con, db, run: str | None, baseline: str | None, comparison: str | None) -> None:
    """Refuse unknown run names (listing the runs), half a pair, and a pair of one run
    (``summary`` / ``report`` with the same --baseline and --comparison)."""
    check_runs(con, db, run, baseline, comparison)
    if (baseline is None) != (comparison is None):
        raise QueryError("--baseline and --comparison go together.")
    if baseline is not None and baseline == comparison:
        raise QueryError(f"--baseline and --comparison name the same run ({baseline}).", file=str(resolve_db_path(db)),
                         hint="compare two different runs (tracedb runs lists them).")


# tables with a run_id that say what a run is, not what its files held
RUN_META_TABLES = ("run", "rank", "source_file", "compare_step", "device")


def empty_runs(con, names: list[str] | None = None) -> list[tuple[str, int]]:
    """(run name, files recorded) of the runs (among ``names``; None: all) that hold no data row
    in any table: every file of theirs had nothing tracedb reads (an empty trace, say)."""
    tables = [t for (t,) in con.execute(
        "SELECT table_name FROM duckdb_columns() JOIN duckdb_tables() USING (database_name, schema_name, table_name) "
        "WHERE database_name = current_database() AND schema_name = 'main' AND column_name = 'run_id' "
        "ORDER BY 1").fetchall() if t not in RUN_META_TABLES]
    data = " OR ".join(f'EXISTS (SELECT 1 FROM main."{t}" AS d WHERE d.run_id = r.run_id)' for t in tables) or "false"
    return con.execute(
        "SELECT run_name, (SELECT count(*) FROM main.source_file AS f WHERE f.run_id = r.run_id) FROM main.run AS r "
        f"WHERE (? OR run_name IN (SELECT unnest(?::VARCHAR[]))) AND NOT ({data}) ORDER BY run_id",
        [names is None, names or []]).fetchall()


def duckdb_message(e: BaseException) -> str:
    """DuckDB's whole message: its "Candidate bindings" line and the ``LINE 1: …`` caret are what
    tell the fix, so nothing is cut; blank lines are dropped."""
    text = "\n".join(line for line in str(e).splitlines() if line.strip())
    return text or type(e).__name__


def translate(e: duckdb.Error, db) -> TracedbError:
    """A DuckDB error of a query command: a damaged file is named as such (DuckDB's checksum
    message does not say which file); anything else is a failed query with DuckDB's whole message."""
    text = duckdb_message(e)
    first = text.splitlines()[0]
    stored = storage_error(e, resolve_db_path(db), outcome="the database was not changed")  # damaged; a write failed
    if stored is not None:
        return stored
    hint = None
    if "read-only" in first.lower():
        hint = "tracedb query opens the database read-only; pass --write to change data."
    elif isinstance(e, duckdb.CatalogException) and "does not exist" in first:
        hint = "'tracedb views' lists the views; 'tracedb describe NAME' shows a view's or table's columns."
    return QueryError(f"query failed: {text}", hint=hint)


@contextmanager
def read_session(db, *, write: bool = False, locked: bool = True) -> Iterator[duckdb.DuckDBPyConnection]:
    """The connection of a query command on a database that has runs: read-only and locked
    (:data:`tracedb.store.db.LOCKED_SETTINGS`), read-only only (``locked=False``: an export) or
    read-write (``write``); DuckDB errors inside the block become one-line TracedbErrors."""
    if write:
        con = connect(db, must_exist=True)
    else:
        con = connect(db, locked=True) if locked else connect(db, read_only=True, must_exist=True)
    try:
        require_runs(con, db)
        yield con
    except duckdb.Error as e:
        raise translate(e, db) from e
    finally:
        con.close()


@contextmanager
def edit_session(db) -> Iterator[duckdb.DuckDBPyConnection]:
    """A read-write connection in one transaction, committed and checkpointed at the end (a
    failed CHECKPOINT is not an error: the change is committed and DuckDB replays it)."""
    con = connect(db, must_exist=True)
    try:
        require_runs(con, db)
        with transaction(con):
            yield con
        try:
            con.execute("CHECKPOINT")
        except duckdb.Error:     # committed already (durable in the .wal); DuckDB checkpoints later
            pass
    except duckdb.Error as e:
        raise translate(e, db) from e
    finally:
        con.close()


@dataclass
class Writing:
    """The connection :func:`writing` opened, and whether the file is new."""

    con: duckdb.DuckDBPyConnection
    path: Path
    created: bool
    seeded: bool = False
    kept: bool = False

    def keep(self) -> None:
        """The command's data is committed: a failure from here on leaves the file in place."""
        self.kept = True

    @contextmanager
    def after_commit(self, progress: Callable[[str], None], what: str = "the work after it"):
        """The block runs after the COMMIT (which :meth:`keep` records): a DuckDB error in it is
        a warning through ``progress``, not a failure, since the data is committed; then the
        CHECKPOINT (best effort too), unless the error invalidated the database."""
        self.keep()
        try:
            yield self.con
        except duckdb.Error as e:
            progress(committed_warning(e, self.path, what))
            if invalidated(e):
                return              # the connection may only be closed now
        checkpoint(self.con, progress, self.path)


@contextmanager
def writing(db, **connect_kw) -> Iterator[Writing]:
    """A read-write connection for a command that ingests (``connect_kw`` go to
    :func:`tracedb.store.db.connect`). A file this creates is seeded from the cached template
    (:func:`tracedb.store.template.seed`) and removed again, with the .wal it made, when the block
    fails before :meth:`Writing.keep`."""
    path = check_db_path(db)
    existed, wal_existed = path.exists(), wal_path(path).exists()
    con = connect(path, **connect_kw)
    opened = Writing(con, path, created=not existed)
    try:
        if opened.created:
            opened.seeded = lazy.template.seed(con)  # tables and views copied from the cached template
        yield opened
    except BaseException as e:
        con.close()
        if opened.created and not opened.kept:
            remove_created(path, wal_existed)
        cause = e if isinstance(e, duckdb.Error) else database_fault(e, path)
        if cause is not None:       # a reader's boundary would blame the input for a full disk
            raise write_failed(cause, path, opened.kept) from e
        raise
    finally:
        con.close()


def write_failed(e: duckdb.Error, path: Path, committed: bool) -> TracedbError:
    """A DuckDB error that ended a command that writes, as one line naming the database: the
    storage failures by their cause (:func:`tracedb.store.faults.storage_error`), anything else
    with DuckDB's first line; and what became of the data."""
    outcome = ("the data is committed (DuckDB completes it from the .wal at the next open)" if committed
               else "nothing was written: the database is as it was")
    found = out_of_memory(e, str(path)) or storage_error(e, path, outcome=outcome)
    if found is not None:
        return found
    return TracedbError(f"the ingest failed: {duckdb_first(e)}; {outcome}.", file=str(path))
