"""Library facade used by the CLI, notebooks and tests. Never prints.

>>> import tracedb  # doctest: +SKIP
>>> tracedb.ingest(["fixtures/ascend/level1_rank0_ascend_pt"], db="t.duckdb")  # doctest: +SKIP
>>> tracedb.query("step_breakdown", db="t.duckdb").rows  # doctest: +SKIP
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Sequence

import duckdb

from . import db as _db
from .errors import QueryError, TracedbError
from .ingest import IngestReport
from .ingest import ingest as _ingest

DEFAULT_INGEST_MEMORY = "1400MB"
_IDENT = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")


@dataclass
class Result:
    """A query result: column names, DuckDB type names and row tuples."""

    columns: list[str]
    types: list[str]
    rows: list[tuple]

    def to_pandas(self):
        import pandas as pd
        return pd.DataFrame(self.rows, columns=self.columns)


def connect(db: str | Path | None = None, read_only: bool = True) -> duckdb.DuckDBPyConnection:
    """Open the database (read-only by default). See :func:`tracedb.db.connect`."""
    return _db.connect(db, read_only=read_only, must_exist=read_only)


def ingest(paths: Sequence[str | Path], db: str | Path | None = None, *, run: str | None = None,
           role: str | None = None, replace: bool = False,
           progress: Callable[[str], None] = lambda s: None, bar=None,
           threads: int | None = None, memory_limit: str | None = DEFAULT_INGEST_MEMORY) -> IngestReport:
    """Ingest profiler output into the database (created if missing) in one transaction.

    Args:
        paths: files or folders: rank folders (*_ascend_pt / *_ascend_ms), folders of rank
            folders, trace_view.json, kernel_details.csv, step_trace_time.csv, Kineto
            *.pt.trace.json(.gz) or folders of them.
        db: database path (default $TRACEDB_DB or ./tracedb.duckdb).
        run: run name (default: folder name of each PATH).
        role: baseline | comparison.
        replace: re-ingest files changed since their last ingest.
        progress: receives progress lines.
        bar: receives (file name, percent) while a trace is parsed (see tracedb.progress).
        threads: DuckDB threads (default: all cores; large traces are parsed in that many slices).
        memory_limit: DuckDB memory limit (default 1400MB: whole-process peak RSS stays under
            1.5 GiB for any input size, measured on a 3 GB rank).

    Returns:
        IngestReport.

    Raises:
        InputError: bad input (file and place named); the database is unchanged.
        DatabaseLockedError: another process holds the database.
    """
    con = _db.connect(db, threads=threads, memory_limit=memory_limit)
    try:
        return _ingest(con, list(paths), run=run, role=role, replace=replace, progress=progress, bar=bar)
    finally:
        con.close()


def _objects(con) -> dict[str, tuple]:
    try:
        rows = con.execute("SELECT name, kind, topic, grain, description, parameters FROM tracedb_object "
                           "WHERE schema_name = 'main' ORDER BY topic, name").fetchall()
    except duckdb.CatalogException as e:
        raise TracedbError("this database has no tracedb view library.",
                           hint="run 'tracedb ingest PATH' to create one.") from e
    return {r[0]: r for r in rows}


def summary_of(header: str | None) -> str:
    """The one-sentence summary of a view header: the text after the em dash, up to "Grain:"."""
    from .registry import parse_header
    return parse_header(header).summary


def views(db: str | Path | None = None) -> Result:
    """Public views and table macros with their one-line description."""
    con = connect(db)
    try:
        rows = []
        for name, kind, topic, grain, desc, params in _objects(con).values():
            summary = summary_of(desc)
            rows.append((name, kind if not params else f"{kind}({params})", topic, summary))
        return Result(["name", "kind", "topic", "description"], ["VARCHAR"] * 4, rows)
    finally:
        con.close()


def describe(name: str, db: str | Path | None = None) -> tuple[str, Result]:
    """Header documentation and columns (type, comment: unit and source) of a view or table.

    Raises:
        QueryError: unknown name.
    """
    con = connect(db)
    try:
        objs = _objects(con)
        if name in objs:
            header = objs[name][4] or ""
        else:
            row = con.execute("SELECT comment FROM duckdb_tables() WHERE table_name = ? AND schema_name = 'main'",
                              [name]).fetchone()
            if row is None:
                raise QueryError(f"unknown view or table {name!r}.", hint="'tracedb views' lists them.")
            header = row[0] or ""
        if name in objs and objs[name][1] == "table_macro":
            return header, Result(["column", "type", "description"], ["VARCHAR"] * 3, [])
        cols = con.execute("""
            SELECT column_name, data_type, comment FROM duckdb_columns()
            WHERE table_name = ? AND schema_name = 'main' ORDER BY column_index
        """, [name]).fetchall()
        return header, Result(["column", "type", "description"], ["VARCHAR"] * 3, cols)
    finally:
        con.close()


def runs(db: str | Path | None = None) -> Result:
    """Runs in the database: role, platform, ranks, steps, files, kernels, events."""
    return query("""
        SELECT r.run_name, r.role, r.platform,
               (SELECT count(*) FROM rank k WHERE k.run_id = r.run_id)::BIGINT AS ranks,
               (SELECT count(*) FROM step s WHERE s.run_id = r.run_id)::BIGINT AS steps,
               (SELECT count(*) FROM source_file f WHERE f.run_id = r.run_id)::BIGINT AS files,
               (SELECT count(*) FROM kernel k WHERE k.run_id = r.run_id)::BIGINT AS kernels,
               (SELECT count(*) FROM event e WHERE e.run_id = r.run_id)::BIGINT AS events,
               r.source_path
        FROM run r ORDER BY r.run_id
    """, db=db)


def query(name_or_sql: str, db: str | Path | None = None, *, baseline: str | None = None,
          comparison: str | None = None, run: str | None = None, rank: int | None = None,
          step: int | None = None, limit: int | None = None, write: bool = False) -> Result:
    """Run a named view (with optional filters) or a SQL statement on a read-only connection.

    Args:
        name_or_sql: a public view name (``tracedb views``) or any SQL.
        baseline, comparison: run names for op_diff (uses op_diff_between).
        run, rank, step: filters on the view's run_name / rank / step columns.
        limit: at most this many rows.
        write: open the database read-write (for SQL that changes data); never needed for views.

    Returns:
        Result.

    Raises:
        QueryError: unknown view, a filter the view has no column for, or a SQL error.
    """
    con = _db.connect(db, must_exist=True) if write else connect(db)
    try:
        params: list[Any] = []
        text = name_or_sql.strip().rstrip(";")
        if _IDENT.match(text):
            objs = _objects(con)
            if text not in objs:
                raise QueryError(f"unknown view {text!r}.", hint="'tracedb views' lists the views; "
                                 "or pass a SQL statement in quotes.")
            if text == "op_diff" and (baseline or comparison):
                text = "op_diff_between"
            elif (baseline or comparison) and text != "op_diff_between":
                raise QueryError(f"--baseline/--comparison apply to op_diff, not to {text}.")
            if objs[text][1] == "table_macro":
                if text != "op_diff_between":
                    raise QueryError(f"{text} takes parameters; call it in SQL: SELECT * FROM {text}(...).")
                base = baseline or _role_run(con, "baseline")
                comp = comparison or _role_run(con, "comparison")
                if base is None or comp is None:
                    raise QueryError("op_diff needs a baseline and a comparison run.",
                                     hint="pass --baseline RUN --comparison RUN, or ingest with --role.")
                for r in (base, comp):
                    if not con.execute("SELECT 1 FROM run WHERE run_name = ?", [r]).fetchone():
                        raise QueryError(f"no run named {r!r}.", hint="'tracedb runs' lists the runs.")
                sql = "SELECT * FROM op_diff_between(?, ?)"
                params = [base, comp]
            else:
                sql = f"SELECT * FROM {text}"
            cols = {r[0] for r in con.execute(f"DESCRIBE {sql}", params).fetchall()}
            where = []
            for col, val, flag in (("run_name", run, "--run"), ("rank", rank, "--rank"), ("step", step, "--step")):
                if val is None:
                    continue
                if col not in cols:
                    raise QueryError(f"{flag} does not apply: {name_or_sql} has no {col} column.")
                where.append(f"{col} = ?")
                params.append(val)
            if where:
                sql = f"SELECT * FROM ({sql}) AS v WHERE " + " AND ".join(where)
        else:
            if any(v is not None for v in (run, rank, step, baseline, comparison)):
                raise QueryError("--run/--rank/--step/--baseline/--comparison apply to view names, not SQL.")
            sql = text
        if limit is not None:
            sql = f"SELECT * FROM ({sql}) AS q LIMIT {int(limit)}"
        try:
            cur = con.execute(sql, params)
        except duckdb.Error as e:
            msg = str(e).splitlines()[0]
            hint = None
            if "read-only" in msg.lower():
                hint = "tracedb query opens the database read-only; pass --write to change data."
            raise QueryError(f"query failed: {msg}", hint=hint) from e
        if cur.description is None:
            return Result([], [], [])
        columns = [d[0] for d in cur.description]
        types = [str(d[1]) for d in cur.description]
        return Result(columns, types, cur.fetchall())
    finally:
        con.close()


def _role_run(con, role: str) -> str | None:
    row = con.execute("SELECT min(run_name) FROM run WHERE role = ?", [role]).fetchone()
    return row[0] if row else None


def check(db: str | Path | None = None, run: str | None = None) -> tuple[Result, int]:
    """Consistency findings (view ``check_finding``), optionally for one run.

    Returns:
        (findings, number of errors).
    """
    res = query("check_finding", db=db, run=run)
    errors = sum(1 for r in res.rows if r[0] == "error")
    return res, errors


def export(out_dir: str | Path, db: str | Path | None = None, overwrite: bool = False) -> dict[str, int]:
    """Export every table as Parquet (partitioned by run and rank) plus ``views.sql``; see
    :mod:`tracedb.export`. Returns rows written per table."""
    from .export import export_parquet
    con = connect(db)
    try:
        return export_parquet(con, out_dir, overwrite=overwrite)
    finally:
        con.close()
