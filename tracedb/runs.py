"""Managing runs: ``tracedb runs rm / rename / set-role``, each one transaction."""
from __future__ import annotations

from pathlib import Path
from typing import NamedTuple

from .engine import duckdb
from .errors import QueryError, TracedbError
from .query.plan import ROLES
from .store.db import resolve_db_path
from .store.session import duckdb_message, edit_session, find_run_id


def run_tables(con) -> list[str]:
    """Every base table of the database with a ``run_id`` column, ``run`` last (quoted names)."""
    found = con.execute("""
        SELECT t.schema_name, t.table_name FROM duckdb_tables() t
        JOIN duckdb_columns() c ON c.table_oid = t.table_oid AND c.column_name = 'run_id'
        WHERE t.database_name = current_database() AND NOT t.temporary
        ORDER BY (t.schema_name = 'main' AND t.table_name = 'run'), t.schema_name, t.table_name
    """).fetchall()
    return [f'"{s}"."{t}"' for s, t in found]


def runs_rm(run: str, db: str | Path | None = None) -> dict[str, int]:
    """Delete a run: its rows in every table with a ``run_id`` column, in one transaction.

    Returns:
        Rows deleted per table (quoted ``schema.table``).

    Raises:
        QueryError: no run of that name (the message lists the runs).
    """
    with edit_session(db) as con:
        run_id = find_run_id(con, run, db)
        deleted = {}
        for table in run_tables(con):
            try:
                deleted[table] = con.execute(f"DELETE FROM {table} WHERE run_id = ?", [run_id]).fetchone()[0]
            except duckdb.Error as e:
                raise TracedbError(f"cannot remove run {run!r}: deleting from {table} failed: "
                                   f"{duckdb_message(e)}", file=str(resolve_db_path(db)),
                                   hint="nothing was removed; a table outside tracedb's schema may refer "
                                        "to the run (drop it with tracedb query --write).") from e
        # the alignments name their runs as baseline_run_id / comparison_run_id; a later run may
        # get this run_id again (max + 1), and must not inherit the pairs
        for (table,) in con.execute("SELECT table_name FROM duckdb_tables() WHERE database_name = current_database() "
                                    "AND schema_name = 'main' AND table_name IN ('op_match', 'module_match') "
                                    "ORDER BY table_name").fetchall():
            deleted[f'"main"."{table}"'] = con.execute(
                f"DELETE FROM {table} WHERE ? IN (baseline_run_id, comparison_run_id)", [run_id]).fetchone()[0]
        return deleted


def runs_rename(old: str, new: str, db: str | Path | None = None) -> None:
    """Rename a run (one transaction).

    Raises:
        QueryError: no run named ``old`` (the message lists the runs), ``new`` empty or taken.
    """
    new = (new or "").strip()
    if not new:
        raise QueryError("the new run name is empty.", hint="give a name, e.g. tracedb runs rename OLD npu_run.")
    with edit_session(db) as con:
        run_id = find_run_id(con, old, db)
        if new == old:
            return
        if con.execute("SELECT 1 FROM main.run WHERE run_name = ?", [new]).fetchone():
            raise QueryError(f"a run named {new!r} exists already.", file=str(resolve_db_path(db)),
                             hint="pick another name, or 'tracedb runs rm' that run first.")
        con.execute("UPDATE main.run SET run_name = ? WHERE run_id = ?", [new, run_id])


class RoleChange(NamedTuple):
    """What :func:`runs_set_role` changed besides the run's own role."""

    taken_from: str | None       # the run that held the role before (it has none now)
    previous_role: str | None    # the run's own role before (a run holds one role at a time)


def runs_set_role(run: str, role: str | None, db: str | Path | None = None) -> RoleChange:
    """Give a run the role baseline or comparison (taking it from the run that held it), or none.

    Args:
        run: run name.
        role: ``baseline``, ``comparison``, or ``none`` / None to clear the run's role.

    Returns:
        RoleChange: the run that held the role before, and the run's own previous role.

    Raises:
        QueryError: unknown role, or no run of that name (the message lists the runs).
    """
    role = None if role in (None, "none") else role
    if role is not None and role not in ROLES:
        raise QueryError(f"unknown role {role!r}.", hint="use baseline, comparison or none.")
    with edit_session(db) as con:
        run_id = find_run_id(con, run, db)
        previous = con.execute("SELECT role FROM main.run WHERE run_id = ?", [run_id]).fetchone()[0]
        before = None
        if role is not None:
            before = con.execute("SELECT min(run_name) FROM main.run WHERE role = ? AND run_id <> ?",
                                 [role, run_id]).fetchone()[0]
            con.execute("UPDATE main.run SET role = NULL WHERE role = ? AND run_id <> ?", [role, run_id])
        con.execute("UPDATE main.run SET role = ? WHERE run_id = ?", [role, run_id])
        return RoleChange(before, previous if previous != role else None)
