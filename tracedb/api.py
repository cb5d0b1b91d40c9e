"""Library facade used by the CLI, notebooks and tests. Never prints.

In a notebook, ``tracedb.open(path)`` (:func:`open_database`) keeps one read-only connection; a :class:`Result` shows as a table
with units (ms, GiB, %) and :meth:`Result.df` gives the raw values as a pandas DataFrame (run
from the repository root, as tests/test_docs.py does):

>>> import tracedb
>>> tracedb.ingest(["fixtures/ascend/level1"], db="example.duckdb").runs
['level1']
>>> db = tracedb.open("example.duckdb")
>>> db.query("step_breakdown", rank=0).df()[["run_name", "step", "computing_ns", "free_ns"]]
  run_name  step  computing_ns   free_ns
0   level1    50       8873737  25744069
>>> print(db.query("SELECT rank, sum(dur_ns) AS free_ns FROM free_time GROUP BY rank ORDER BY rank"))
rank  free_ms
----  -------
   0   25.744
   1   26.675

(the profiler's own step_trace_time.csv says Computing 8873.756 µs, Free 25744.050 µs and
26675.274 µs for these two ranks.)
>>> db.close()
"""
from __future__ import annotations

import os
import re
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Iterator, NamedTuple, Sequence

from . import db as _db
from .db import duckdb           # the engine module (see tracedb.db): no relation layer on the query path
from .errors import QueryError, TracedbError

if TYPE_CHECKING:
    from .ingest import IngestReport


def ingest_package():
    """The subpackage :mod:`tracedb.ingest`, imported on first use (query commands start
    without it). Importing a subpackage binds it as the attribute ``tracedb.ingest``, over the
    public function :func:`tracedb.ingest`; the function is put back."""
    import importlib
    import sys
    module = importlib.import_module(".ingest", __package__)
    package = sys.modules[__package__]
    if getattr(package, "ingest", None) is module:
        package.ingest = ingest
    return module


def _ingest(con, paths, **kw) -> IngestReport:
    """:func:`tracedb.ingest.ingest`, imported on first use."""
    return ingest_package().ingest(con, paths, **kw)

DEFAULT_INGEST_MEMORY = "1300MB"   # see the ingest docstring and bench/RESULTS.md
ROLES = ("baseline", "comparison")
_IDENT = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
_EXPLAIN = re.compile(r"^\s*EXPLAIN\s+(?:ANALY[SZ]E\s+)?(?:\([^)]*\)\s*)?", re.I)


@dataclass
class Result:
    """A query result: column names and row tuples, exactly as the database holds them (integer
    ns, bytes). Printed, or shown in a notebook, it is the human table of ``tracedb query``.

    >>> r = Result(["rank", "dur_ns"], [(0, 1_500_000), (1, None)])
    >>> r.df().dtypes["dur_ns"].name, int(r.df()["dur_ns"][0])
    ('float64', 1500000)
    >>> print(r)
    rank  dur_ms
    ----  ------
       0   1.500
       1       —
    """

    columns: list[str]
    rows: list[tuple]

    def df(self):
        """The rows as a pandas DataFrame with the raw values (ns, bytes)."""
        import pandas as pd
        return pd.DataFrame(self.rows, columns=self.columns)

    to_pandas = df

    def __str__(self) -> str:
        from .output import render_table
        return render_table(self.columns, self.rows, max_rows=None).rstrip("\n")

    def _repr_html_(self) -> str:
        from .output import render_html
        return render_html(self.columns, self.rows)


class Database:
    """One open tracedb database for a notebook or script: a single read-only connection, kept
    until :meth:`close` (or the end of a ``with`` block). While it is open no ingest can write
    the file (DuckDB: one writer or many readers).

    Args:
        path: database file (default: $TRACEDB_DB, else ./tracedb.duckdb).

    Raises:
        TracedbError: the file is missing, is not a DuckDB file, or has no runs yet.
        DatabaseLockedError: an ingest is writing the file.

    >>> import tracedb
    >>> with tracedb.open("example.duckdb") as db:
    ...     [r[0] for r in db.runs().rows], "step_breakdown" in db.views().df()["name"].tolist()
    (['level1'], True)
    """

    def __init__(self, path: str | Path | None = None):
        import duckdb as _package     # noqa: F401 - a notebook's connection has the relation API (con.sql)
        self.path = _db.resolve_db_path(path)
        self.con = _db.connect(path, read_only=True)
        try:
            _require_runs(self.con, path)
        except BaseException:
            self.con.close()
            raise

    def _run(self, fn, *args, **kw):
        try:
            return fn(self.con, *args, **kw)
        except duckdb.Error as e:
            raise _translate(e, self.path) from e

    def query(self, name_or_sql: str, *, baseline: str | None = None, comparison: str | None = None,
              run: str | None = None, rank: int | None = None, step: int | None = None,
              limit: int | None = None) -> Result:
        """A view (with filters) or a SELECT, as :func:`query`."""
        text = (name_or_sql or "").strip().rstrip(";").strip()
        if not text:
            raise QueryError("empty query: give a view name or a SQL statement.")
        return self._run(_query_on, text, baseline=baseline, comparison=comparison, run=run, rank=rank,
                         step=step, limit=limit)

    def df(self, name_or_sql: str, **filters):
        """``query(...).df()``: the result as a pandas DataFrame with the raw values."""
        return self.query(name_or_sql, **filters).df()

    def views(self) -> Result:
        """The public views and table macros with their one-line description."""
        return self._run(_views_on)

    def describe(self, name: str) -> tuple[str, Result]:
        """A view's or table's documentation and its columns (type, unit and source)."""
        return self._run(_describe_on, name)

    def runs(self) -> Result:
        """The runs: role, platform, ranks, steps, files, kernels, events."""
        return self._run(_query_on, _RUNS_SQL.strip())

    def close(self) -> None:
        """Close the connection (an ingest can write the file again)."""
        self.con.close()

    def __enter__(self) -> "Database":
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"tracedb.Database({str(self.path)!r})"


def open_database(path: str | Path | None = None) -> Database:
    """Open a tracedb database for a notebook (``tracedb.open(path)``): see :class:`Database`."""
    return Database(path)


def connect(db: str | Path | None = None, read_only: bool = True) -> duckdb.DuckDBPyConnection:
    """Open the database (read-only by default). See :func:`tracedb.db.connect`."""
    import duckdb as _package     # noqa: F401 - the caller's connection has the relation API (con.sql, .pl())
    return _db.connect(db, read_only=read_only, must_exist=read_only)


def ingest(paths: Sequence[str | Path], db: str | Path | None = None, *, run: str | None = None,
           role: str | None = None, replace: bool = False, run_per_path: bool = False,
           allow_mixed_platforms: bool = False, progress: Callable[[str], None] = lambda s: None, bar=None,
           threads: int | None = None, memory_limit: str | None = DEFAULT_INGEST_MEMORY,
           step_range_pattern: str | None = None, storage_version: str | None = None,
           jobs: int | None = None) -> IngestReport:
    """Ingest profiler output into the database (created if missing) in one transaction.

    Args:
        paths: files or folders: rank folders (*_ascend_pt / *_ascend_ms), folders of rank
            folders, trace_view.json, kernel_details.csv, step_trace_time.csv, Kineto
            *.pt.trace.json(.gz) or folders of them.
        db: database path (default $TRACEDB_DB or ./tracedb.duckdb); an existing DuckDB file or a
            new path.
        run: run name (default: derived from the PATHs).
        role: baseline | comparison.
        replace: replace a recorded file of a (run, rank) by a different one of the same format.
        run_per_path: one run per PATH (default: one ingest command is one run).
        allow_mixed_platforms: allow GPU and NPU ranks in one run.
        progress: receives progress lines.
        bar: receives (file name, percent) while a trace is parsed (see tracedb.progress).
        threads: DuckDB threads (default: all cores; large traces are parsed in that many slices).
        memory_limit: DuckDB memory limit (default 1300MB: whole-process peak RSS stays under
            1.5 GiB for any input size: 1433 MiB for 128 ranks of 42 MB in one run, 1366 MiB
            for a 1 GB rank; 1400MB reached 1559 MiB at 128 ranks).
        step_range_pattern: Nsight exports: NVTX ranges whose text matches this regular
            expression (RE2; group 1 = step number, else their order) are steps; default
            ``^ProfilerStep#(\\d+)$``.
        storage_version: DuckDB storage version of a database file this call creates
            (default :data:`tracedb.db.STORAGE_VERSION`; see README "Opening the file elsewhere").
        jobs: worker processes for the new ranks of a run, each with ``memory_limit / jobs``
            (see :mod:`tracedb.ingest.staging`; default :func:`tracedb.ingest.default_jobs`).

    Returns:
        IngestReport.

    Raises:
        InputError: bad input (file and place named); the database is unchanged, and a database
            file this call created is removed again (with its .wal).
        DatabaseLockedError: another process holds the database.
        KeyboardInterrupt: interrupted; as for a failure, the database is unchanged.
    """
    path = _db.check_db_path(db)
    existed, wal_existed = path.exists(), _db.wal_path(path).exists()
    opened = committed = False
    try:
        con = _db.connect(path, threads=threads, memory_limit=memory_limit, storage_version=storage_version)
        opened = True
        if not existed:
            from . import template
            template.seed(con)      # tables and views copied from the cached template (removed below on failure)
        try:
            report = _ingest(con, list(paths), run=run, role=role, replace=replace, run_per_path=run_per_path,
                             allow_mixed_platforms=allow_mixed_platforms, progress=progress, bar=bar,
                             step_range_pattern=step_range_pattern, jobs=jobs)
            committed = True        # from here on a failure must not remove the file
            if role is not None or (report.files_ingested and con.execute(
                    "SELECT count(*) FROM run WHERE role IS NOT NULL AND run_name IN (SELECT unnest(?::VARCHAR[]))",
                    [report.runs]).fetchone()[0]):
                from .compare import align_role_pair
                align_role_pair(con, progress)          # a role was set, or a run of the pair grew
            return report
        finally:
            con.close()
    except BaseException:
        if opened and not existed and not committed:
            _remove_created(path, wal_existed)
        raise


def _remove_created(path: Path, wal_existed: bool) -> None:
    """Remove the database file (and .wal) that a failed ingest created: no empty file is left."""
    for p in (path, None if wal_existed else _db.wal_path(path)):
        if p is not None:
            try:
                os.remove(p)
            except OSError:
                pass


def _require_runs(con, db) -> None:
    """Raise ``no runs yet`` when the database has no run (or no run table)."""
    # duckdb_tables() would cost 30-100 ms of a 0.3 s query command (it looks at every table)
    try:
        has_runs = con.execute("SELECT count(*) FROM main.run").fetchone()[0]
    except duckdb.CatalogException:
        has_runs = 0
    if not has_runs:
        raise TracedbError("no runs yet: tracedb ingest PATH.", file=str(_db.resolve_db_path(db)),
                           hint="ingest profiler output into this database first, or pass --db / set "
                                "TRACEDB_DB to the database that holds your runs.")


def duckdb_message(e: BaseException) -> str:
    """DuckDB's whole message: its "Candidate bindings" line and the ``LINE 1: …`` caret are what
    tell the fix (ux-review F7), so nothing is cut; blank lines are dropped."""
    text = "\n".join(line for line in str(e).splitlines() if line.strip())
    return text or type(e).__name__


def _translate(e: duckdb.Error, db) -> TracedbError:
    """A DuckDB error of a query command: a damaged file is named as such (DuckDB's checksum
    message does not say which file); anything else is a failed query with DuckDB's whole message."""
    text = duckdb_message(e)
    first = text.splitlines()[0]
    if "corrupt" in first.lower() or isinstance(e, duckdb.SerializationException):
        return TracedbError(f"the database file is damaged: {first}", file=str(_db.resolve_db_path(db)),
                            hint="move it away and ingest the profiler output again into a new file.")
    hint = None
    if "read-only" in first.lower():
        hint = "tracedb query opens the database read-only; pass --write to change data."
    elif isinstance(e, duckdb.CatalogException) and "does not exist" in first:
        hint = "'tracedb views' lists the views; 'tracedb describe NAME' shows a view's or table's columns."
    return QueryError(f"query failed: {text}", hint=hint)


@contextmanager
def _session(db, *, write: bool = False) -> Iterator[duckdb.DuckDBPyConnection]:
    """The connection of a query command (locked read-only unless ``write``) on a database that
    has runs; DuckDB errors inside the block become one-line TracedbErrors."""
    con = _db.connect(db, must_exist=True) if write else _db.connect(db, locked=True)
    try:
        _require_runs(con, db)
        yield con
    except duckdb.Error as e:
        raise _translate(e, db) from e
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


def _tables(con) -> list[str]:
    return [r[0] for r in con.execute("SELECT table_name FROM duckdb_tables() WHERE database_name = current_database() "
                                      "AND schema_name = 'main' ORDER BY table_name").fetchall()]


def _unknown(kind: str, name: str, known: list[str], hint: str) -> QueryError:
    """``unknown view 'step_breakdwon'. Hint: did you mean step_breakdown? …`` (ux-review F9)."""
    import difflib
    close = difflib.get_close_matches(name, known, n=3, cutoff=0.6) or difflib.get_close_matches(
        name.lower(), [k.lower() for k in known], n=3, cutoff=0.6)
    mean = f"did you mean {' or '.join(close)}? " if close else ""
    return QueryError(f"unknown {kind} {name!r}.", hint=mean + hint)


def summary_of(header: str | None) -> str:
    """The one-sentence summary of a view header: the text after the em dash, up to "Grain:"."""
    from .registry import parse_header
    return parse_header(header).summary


def views(db: str | Path | None = None) -> Result:
    """Public views and table macros with their one-line description."""
    with _session(db) as con:
        return _views_on(con)


def _views_on(con) -> Result:
    rows = []
    for name, kind, topic, grain, desc, params in _objects(con).values():
        summary = summary_of(desc)
        rows.append((name, kind if not params else f"{kind}({params})", topic, summary))
    return Result(["name", "kind", "topic", "description"], rows)


def describe(name: str, db: str | Path | None = None) -> tuple[str, Result]:
    """Header documentation and columns (type, comment: unit and source) of a view or table.

    Raises:
        QueryError: unknown name.
    """
    with _session(db) as con:
        return _describe_on(con, name)


def _describe_on(con, name: str) -> tuple[str, Result]:
    objs = _objects(con)
    if name in objs:
        header = objs[name][4] or ""
    else:
        row = con.execute("SELECT comment FROM duckdb_tables() WHERE table_name = ? AND schema_name = 'main'",
                          [name]).fetchone()
        if row is None:
            raise _unknown("view or table", name, list(objs) + _tables(con), "'tracedb views' lists the views.")
        header = row[0] or ""
    if name in objs and objs[name][1] == "table_macro":
        return header, Result(["column", "type", "description"], [])
    cols = con.execute("""
        SELECT column_name, data_type, comment FROM duckdb_columns()
        WHERE table_name = ? AND schema_name = 'main' ORDER BY column_index
    """, [name]).fetchall()
    return header, Result(["column", "type", "description"], cols)


_RUNS_SQL = """
        SELECT r.run_name, r.role, r.platform,
               (SELECT count(*) FROM rank k WHERE k.run_id = r.run_id)::BIGINT AS ranks,
               (SELECT count(*) FROM step s WHERE s.run_id = r.run_id)::BIGINT AS steps,
               (SELECT count(*) FROM source_file f WHERE f.run_id = r.run_id)::BIGINT AS files,
               (SELECT count(*) FROM kernel k WHERE k.run_id = r.run_id)::BIGINT AS kernels,
               (SELECT count(*) FROM event e WHERE e.run_id = r.run_id)::BIGINT AS events,
               r.source_path
        FROM run r ORDER BY r.run_id
"""


def runs(db: str | Path | None = None) -> Result:
    """Runs in the database: role, platform, ranks, steps, files, kernels, events."""
    return query(_RUNS_SQL, db=db)


def _statements(con: duckdb.DuckDBPyConnection, sql: str) -> list:
    """The parsed statements of ``sql``; QueryError when there are none or it does not parse."""
    try:
        statements = con.extract_statements(sql)
    except duckdb.Error as e:
        raise QueryError(f"query failed: {duckdb_message(e)}") from e
    except ValueError as e:      # a statement type this duckdb's Python module cannot name
        raise QueryError("only SELECT statements run on the read-only query connection.",
                         hint="pass --write to run SQL that changes data.") from e
    if not statements:
        raise QueryError("empty query: give a view name or a SQL statement.",
                         hint="'tracedb views' lists the views, e.g. tracedb query step_breakdown.")
    return statements


def check_read_only_sql(con: duckdb.DuckDBPyConnection, sql: str) -> None:
    """Refuse SQL that could do more than read: only SELECT (incl. FROM, WITH, VALUES, DESCRIBE,
    SHOW, SUMMARIZE) and EXPLAIN of a SELECT pass.

    COPY … TO, EXPORT DATABASE, ATTACH, INSTALL, LOAD, SET, PRAGMA, CALL, CREATE (incl. CREATE
    SECRET, which writes a file), CHECKPOINT and the rest are refused before anything runs. Reading
    local files (``read_csv``, ``read_parquet``, ``read_json``) stays allowed: it changes nothing,
    and joining a trace with a CSV from elsewhere is a legitimate question. Remote URLs fail
    because no extension can be installed or loaded (see :data:`tracedb.db.LOCKED_SETTINGS`).

    Raises:
        QueryError: empty SQL, a SQL syntax error, or a statement that is not a SELECT.
    """
    statements = _statements(con, sql)
    for st in statements:
        kind = st.type
        if kind == duckdb.StatementType.EXPLAIN:    # EXPLAIN ANALYZE runs its statement
            try:
                inner = con.extract_statements(_EXPLAIN.sub("", st.query, count=1))
                kind = inner[0].type if len(inner) == 1 else kind
            except (duckdb.Error, ValueError):
                pass
        if kind != duckdb.StatementType.SELECT:
            raise QueryError(f"{kind.name} statements do not run on the read-only query connection "
                             "(it writes no file, loads no extension and changes no setting).",
                             hint="pass --write to run SQL that changes data; 'tracedb export' writes Parquet.")


def query(name_or_sql: str, db: str | Path | None = None, *, baseline: str | None = None,
          comparison: str | None = None, run: str | None = None, rank: int | None = None,
          step: int | None = None, limit: int | None = None, write: bool = False) -> Result:
    """Run a named view (with optional filters) or a SQL statement on a read-only connection.

    Without ``write`` the SQL cannot write, delete or create a file, install or load an
    extension, download anything or change a setting: only SELECT statements run (see
    :func:`check_read_only_sql`), on a read-only connection whose configuration is locked.
    Local files can still be read with ``read_csv`` / ``read_parquet`` / ``read_json``. The one
    file DuckDB may still write is its own spill space (``<db>.tmp/``) for a query larger than
    memory, removed when the connection closes.

    Args:
        name_or_sql: a public view name (``tracedb views``) or any SQL.
        baseline, comparison: run names for a compare view (op_diff → op_diff_between, kernel_diff → …).
        run, rank, step: filters on the view's run_name / rank / step columns.
        limit: at most this many rows.
        write: open the database read-write (for SQL that changes data, files or settings);
            never needed for views.

    Returns:
        Result.

    Raises:
        QueryError: unknown view, a filter the view has no column for, empty SQL, a statement
            other than SELECT without ``write``, or a SQL error.
        TracedbError: the database has no runs yet.
    """
    text = (name_or_sql or "").strip().rstrip(";").strip()
    if not text:
        raise QueryError("empty query: give a view name or a SQL statement.",
                         hint="'tracedb views' lists the views, e.g. tracedb query step_breakdown.")
    with _session(db, write=write) as con:
        return _query_on(con, text, baseline=baseline, comparison=comparison, run=run, rank=rank, step=step,
                         limit=limit, write=write)


class Rows:
    """A query whose rows are fetched as they are needed: ``tracedb query`` prints csv / json /
    ndjson a batch at a time and the table's first rows plus a count, so a result of millions of
    rows is never held in Python (4.2 GB RSS for comm_op_check at 128 ranks when it was). Valid
    inside :func:`query_rows` only."""

    BATCH = 10_000
    TEMP = "tracedb_query_result"

    def __init__(self, con, sql: str, params: list, write: bool):
        self._con, self._sql, self._params, self._write = con, sql, params, write
        self._cur = None
        self._columns: list[str] = []
        self._head: list[tuple] = []
        self._done = False

    def _start(self) -> None:
        if self._cur is None:
            self._cur = self._con.execute(self._sql, self._params)
            self._done = self._cur.description is None
            self._columns = [] if self._done else [d[0] for d in self._cur.description]

    @property
    def columns(self) -> list[str]:
        self._start()
        return self._columns

    def _fetch(self, n: int) -> list[tuple]:
        self._start()
        if self._done:
            return []
        got = self._cur.fetchmany(n)
        if len(got) < n:
            self._done = True
        return got

    def batches(self, size: int | None = None) -> Iterator[list[tuple]]:
        """Every row, ``size`` (default :attr:`BATCH`) at a time."""
        size = size or self.BATCH
        if self._head:
            head, self._head = self._head, []
            yield head
        while not self._done:
            batch = self._fetch(size)
            if batch:
                yield batch

    def first(self, n: int) -> tuple[list[tuple], int]:
        """The first ``n`` rows and the number of rows of the whole result, the query run once.

        A SELECT goes into a temporary table (DuckDB keeps the rows, in their order; none
        reaches Python but the ``n``), which gives the count; SQL that is not a single SELECT
        (DESCRIBE, several statements) or runs with ``write`` (never run twice) is read as a
        stream, the rows after the first ``n`` fetched and dropped to count them."""
        if self._cur is None and not self._write:
            try:
                self._con.execute(f"CREATE TEMP TABLE {self.TEMP} AS SELECT * FROM (\n{self._sql}\n) AS q",
                                  self._params)
            except duckdb.Error:
                pass
            else:
                try:
                    cur = self._con.execute(f"SELECT * FROM temp.{self.TEMP} LIMIT {int(n)}")
                    columns = [d[0] for d in cur.description]
                    if not _renamed(columns):
                        head = cur.fetchall()
                        total = self._con.execute(f"SELECT count(*) FROM temp.{self.TEMP}").fetchone()[0]
                        self._columns, self._cur, self._done = columns, cur, True
                        return head, total
                finally:
                    self._con.execute(f"DROP TABLE IF EXISTS temp.{self.TEMP}")
        if len(self._head) < n:
            self._head += self._fetch(n - len(self._head))
        total = len(self._head)
        while not self._done:
            total += len(self._fetch(self.BATCH))
        return self._head[:n], total

    def write_csv(self, out) -> bool:
        """Write the whole result to ``out`` as csv, the text :func:`tracedb.output.write_stream`
        writes, with every line made by DuckDB (:func:`tracedb.output.csv_line_sql`): Python
        fetches one string a row, not a value a cell for the csv module (3.5 M rows × 14 cells of
        comm_op_check took 26.9 s that way at 128 ranks, bench/RESULTS.md).

        Returns:
            False, with nothing written, when the rows must go through the csv module instead: the
            query is not one SELECT, runs with ``write`` or has started, or a column's type has
            no exact SQL text (timestamps, lists, structs, …: see
            :func:`tracedb.output.csv_cells_sql`); else True.
        """
        from . import output
        if self._cur is not None or self._write:
            return False
        try:
            statements = self._con.extract_statements(self._sql)
            if len(statements) != 1 or statements[0].type != duckdb.StatementType.SELECT:
                return False
            described = self._con.execute(f"DESCRIBE {self._sql}", self._params).fetchall()
        except (duckdb.Error, ValueError):      # the query's own error comes from the csv module's path
            return False
        columns = [r[0] for r in described]
        aliases = [f"c{i}" for i in range(len(columns))]
        line = output.csv_line_sql(aliases, [r[1] for r in described])
        if line is None:
            return False
        try:
            cur = self._con.execute(f"SELECT {line} FROM (\n{self._sql}\n) AS q({', '.join(aliases)})",
                                    self._params)
        except (duckdb.BinderException, duckdb.ParserException, duckdb.CatalogException):
            return False        # the query does not bind in a subquery: the csv module's path says why, or runs
        self._cur, self._columns = cur, columns
        out.write(output.render(columns, [], "csv"))
        while True:
            batch = cur.fetchmany(self.BATCH)
            if not batch:
                break
            out.write("".join([r[0] for r in batch]))
        self._done = True
        return True

    def result(self) -> Result:
        """Every row as a :class:`Result` (the table with --all, markdown)."""
        columns = self.columns
        return Result(columns, [r for b in self.batches() for r in b])


def _renamed(columns: list[str]) -> bool:
    """Whether a table made from a result may have renamed its columns: DuckDB makes duplicate
    names unique (``a, a`` → ``a, a_1``), which the result itself keeps."""
    names = set(columns)
    return any(m and m.group(1) in names for m in (re.match(r"^(.*)_\d+$", c) for c in columns))


@contextmanager
def query_rows(name_or_sql: str, db: str | Path | None = None, *, baseline: str | None = None,
               comparison: str | None = None, run: str | None = None, rank: int | None = None,
               step: int | None = None, limit: int | None = None, write: bool = False) -> Iterator[Rows]:
    """:func:`query`, with the rows fetched as they are read (:class:`Rows`) while the block runs;
    DuckDB errors inside the block become :class:`~tracedb.errors.QueryError`."""
    text = (name_or_sql or "").strip().rstrip(";").strip()
    if not text:
        raise QueryError("empty query: give a view name or a SQL statement.",
                         hint="'tracedb views' lists the views, e.g. tracedb query step_breakdown.")
    with _session(db, write=write) as con:
        sql, params = _query_sql(con, text, baseline=baseline, comparison=comparison, run=run, rank=rank,
                                 step=step, limit=limit, write=write)
        yield Rows(con, sql, params, write)


def _query_on(con, text: str, *, baseline=None, comparison=None, run=None, rank=None, step=None,
              limit=None, write: bool = False) -> Result:
    """:func:`query` on an open connection (DuckDB errors pass through)."""
    sql, params = _query_sql(con, text, baseline=baseline, comparison=comparison, run=run, rank=rank, step=step,
                             limit=limit, write=write)
    cur = con.execute(sql, params)
    if cur.description is None:
        return Result([], [])
    return Result([d[0] for d in cur.description], cur.fetchall())


def _query_sql(con, text: str, *, baseline=None, comparison=None, run=None, rank=None, step=None,
               limit=None, write: bool = False) -> tuple[str, list]:
    """The SQL and parameters :func:`query` runs (views resolved, SQL checked)."""
    params: list[Any] = []
    if _IDENT.match(text):
        sql, params = _view_sql(con, text, baseline, comparison, run, rank, step)
    else:
        if any(v is not None for v in (run, rank, step, baseline, comparison)):
            raise QueryError("--run/--rank/--step/--baseline/--comparison apply to view names, not SQL.")
        if write:
            _statements(con, text)
        else:
            check_read_only_sql(con, text)
        sql = text
    if limit is not None:
        sql = f"SELECT * FROM ({sql}) AS q LIMIT {int(limit)}"
    return sql, params


def _view_sql(con, name: str, baseline, comparison, run, rank, step) -> tuple[str, list]:
    """The SELECT for a view name with its filters (bound parameters)."""
    params: list[Any] = []
    objs = _objects(con)
    if name not in objs:
        tables = _tables(con)
        if name in tables:       # a table by name: SELECT * (ux-review F10); --run through its run_id
            return _table_sql(con, name, baseline, comparison, run, rank, step)
        raise _unknown("view", name, list(objs) + tables, "'tracedb views' lists the views; "
                       "or pass a SQL statement in quotes.")
    text = name
    # a compare view (op_diff, kernel_diff, ...) has a table macro NAME_between(baseline, comparison)
    paired = name if f"{name}_between" in objs else name[:-len("_between")] if name.endswith("_between") else None
    if paired and not name.endswith("_between") and not (baseline or comparison):
        missing = [r for r in ROLES if _role_run(con, r) is None]
        if missing:        # the view would return no rows, without a word (ux-review F14)
            names = ", ".join(r[0] for r in con.execute("SELECT run_name FROM run ORDER BY run_id").fetchall())
            raise QueryError(f"{name} needs a baseline and a comparison run; no run has the role "
                             f"{' or '.join(missing)} (runs: {names}).",
                             hint="'tracedb compare BASELINE COMPARISON', 'tracedb runs set-role RUN baseline' "
                                  "(and comparison), or pass --baseline RUN --comparison RUN.")
    if paired and (baseline or comparison):
        text = f"{paired}_between"
    elif baseline or comparison:
        raise QueryError(f"--baseline/--comparison apply to the compare views (op_diff, kernel_diff, ...), "
                         f"not to {text}.")
    if objs[text][1] == "table_macro":
        if not paired:
            raise QueryError(f"{text} takes parameters; call it in SQL: SELECT * FROM {text}(...).")
        base = baseline or _role_run(con, "baseline")
        comp = comparison or _role_run(con, "comparison")
        if base is None or comp is None:
            raise QueryError(f"{paired} needs a baseline and a comparison run.",
                             hint="pass --baseline RUN --comparison RUN, or 'tracedb runs set-role RUN baseline'.")
        for r in (base, comp):
            if not con.execute("SELECT 1 FROM run WHERE run_name = ?", [r]).fetchone():
                raise QueryError(f"no run named {r!r}.", hint="'tracedb runs' lists the runs.")
        sql = f"SELECT * FROM {text}(?, ?)"
        params = [base, comp]
    else:
        sql = f"SELECT * FROM {text}"
    # the view's columns only when a filter needs them (binding a large view costs time)
    cols = ({r[0] for r in con.execute(f"DESCRIBE {sql}", params).fetchall()}
            if any(v is not None for v in (run, rank, step)) else set())
    where = []
    for col, val, flag in (("run_name", run, "--run"), ("rank", rank, "--rank"), ("step", step, "--step")):
        if val is None:
            continue
        if col not in cols:
            raise QueryError(f"{flag} does not apply: {name} has no {col} column.")
        where.append(f"{col} = ?")
        params.append(val)
    if where:
        sql = f"SELECT * FROM ({sql}) AS v WHERE " + " AND ".join(where)
    return sql, params


def _table_sql(con, name: str, baseline, comparison, run, rank, step) -> tuple[str, list]:
    """``SELECT * FROM table`` with the --run/--rank/--step filters (--run through ``run_id``)."""
    if baseline or comparison:
        raise QueryError(f"--baseline/--comparison apply to op_diff, not to {name}.")
    cols = {r[0] for r in con.execute("SELECT column_name FROM duckdb_columns() WHERE database_name = "
                                      "current_database() AND schema_name = 'main' AND table_name = ?",
                                      [name]).fetchall()}
    where, params = [], []
    if run is not None:
        if "run_name" in cols:
            where.append("run_name = ?")
        elif "run_id" in cols:
            where.append("run_id = (SELECT run_id FROM main.run WHERE run_name = ?)")
        else:
            raise QueryError(f"--run does not apply: {name} has no run_id column.")
        params.append(run)
    for col, val, flag in (("rank", rank, "--rank"), ("step", step, "--step")):
        if val is not None:
            if col not in cols:
                raise QueryError(f"{flag} does not apply: {name} has no {col} column.")
            where.append(f"{col} = ?")
            params.append(val)
    sql = f'SELECT * FROM main."{name}"'
    return (sql + " WHERE " + " AND ".join(where) if where else sql), params


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


def summary(db: str | Path | None = None, *, run: str | None = None, baseline: str | None = None,
            comparison: str | None = None) -> list:
    """Plain-language findings (step split, slowest rank and part, largest free gap, slowest link, memory peak,
    check, top degraded op), each with its number and the query that shows it; see
    :mod:`tracedb.summary`.

    Raises:
        QueryError: an unknown run name.
    """
    from .summary import summarize
    with _session(db) as con:
        for name in (run, baseline, comparison):
            if name is not None and not con.execute("SELECT 1 FROM run WHERE run_name = ?", [name]).fetchone():
                _run_id(con, name, db)       # raises, listing the runs
        if (baseline is None) != (comparison is None):
            raise QueryError("--baseline and --comparison go together.")
        return summarize(con, run=run, baseline=baseline, comparison=comparison)


def report(path: str | Path, db: str | Path | None = None, *, run: str | None = None, baseline: str | None = None,
           comparison: str | None = None, png: str | Path | None = None):
    """Write the HTML report (summary findings and charts, plotly.js embedded); see
    :mod:`tracedb.report`. With ``png``, also each chart as ``png/<chart>.png`` (headless
    Chromium). Returns the :class:`tracedb.report.Report` (its ``charts``)."""
    from .report import find_browser, write_pngs, write_report
    if png is not None and find_browser() is None:
        raise QueryError("--png needs headless Chromium: apt-get install chromium (or set $TRACEDB_CHROMIUM).")
    if not Path(path).parent.is_dir():
        raise QueryError(f"cannot write {path}: the folder {Path(path).parent} does not exist.")
    with _session(db) as con:
        for name in (run, baseline, comparison):
            if name is not None and not con.execute("SELECT 1 FROM run WHERE run_name = ?", [name]).fetchone():
                _run_id(con, name, db)       # raises, listing the runs
        if (baseline is None) != (comparison is None):
            raise QueryError("--baseline and --comparison go together.")
        rep = write_report(con, path, run=run, baseline=baseline, comparison=comparison)
    if png is not None:
        write_pngs(rep, png)
    return rep


def export(out_dir: str | Path, db: str | Path | None = None, overwrite: bool = False) -> dict[str, int]:
    """Export every table as Parquet (partitioned by run and rank) plus ``views.sql``; see
    :mod:`tracedb.export`. Returns rows written per table."""
    from .export import export_parquet
    con = connect(db)
    try:
        _require_runs(con, db)
        return export_parquet(con, out_dir, overwrite=overwrite)
    except duckdb.Error as e:
        err = _translate(e, db)
        if isinstance(err, QueryError):
            raise
        raise err from e
    finally:
        con.close()


def export_perfetto(path: str | Path, db: str | Path | None = None, *, run: str | None = None,
                    rank: int | None = None, step: int | None = None) -> dict[str, int]:
    """Write one run/rank (optionally one step window) as Chrome trace JSON for ui.perfetto.dev;
    see :mod:`tracedb.perfetto`. Returns slices written per category and the track count."""
    from .perfetto import export_perfetto as _export_perfetto
    con = connect(db)
    try:
        _require_runs(con, db)
        return _export_perfetto(con, path, run=run, rank=rank, step=step)
    except duckdb.Error as e:
        raise _translate(e, db) from e
    finally:
        con.close()


# ---- run management: tracedb runs rm / rename / set-role -------------------------------------

@contextmanager
def _run_edit(db) -> Iterator[duckdb.DuckDBPyConnection]:
    """A read-write connection in one transaction, committed and checkpointed at the end (a
    failed CHECKPOINT is not an error: the change is committed and DuckDB replays it)."""
    con = _db.connect(db, must_exist=True)
    try:
        _require_runs(con, db)
        with _db.transaction(con):
            yield con
        try:
            con.execute("CHECKPOINT")
        except duckdb.Error:     # committed already (durable in the .wal); DuckDB checkpoints later
            pass
    except duckdb.Error as e:
        raise _translate(e, db) from e
    finally:
        con.close()


def _run_id(con, name: str, db) -> int:
    row = con.execute("SELECT run_id FROM main.run WHERE run_name = ?", [name]).fetchone()
    if row is None:
        names = [r[0] for r in con.execute("SELECT run_name FROM main.run ORDER BY run_id").fetchall()]
        raise QueryError(f"no run named {name!r}.", file=str(_db.resolve_db_path(db)),
                         hint=f"runs in this database: {', '.join(names)}.")
    return row[0]


def run_tables(con) -> list[str]:
    """Every base table of the database with a ``run_id`` column, ``run`` last (quoted names)."""
    found = con.execute("""
        SELECT t.schema_name, t.table_name FROM duckdb_tables() t
        JOIN duckdb_columns() c ON c.table_oid = t.table_oid AND c.column_name = 'run_id'
        WHERE t.database_name = current_database() AND NOT t.temporary
        ORDER BY (t.schema_name = 'main' AND t.table_name = 'run'), t.schema_name, t.table_name
    """).fetchall()
    return [f'"{s}"."{t}"' for s, t in found]


def reclassify(db: str | Path | None = None) -> int:
    """Apply the kernel classification rules (table ``kernel_class_rule``) again to every
    kernel in the database, in one transaction: what a rule added or changed with SQL needs
    before the views show it. Returns the number of ranks classified.

    Raises:
        QueryError: the database holds no run.
    """
    from .ingest.derive import reclassify as _reclassify
    ingest_package()
    with _run_edit(db) as con:
        return _reclassify(con)


def runs_rm(run: str, db: str | Path | None = None) -> dict[str, int]:
    """Delete a run: its rows in every table with a ``run_id`` column, in one transaction.

    Returns:
        Rows deleted per table (quoted ``schema.table``).

    Raises:
        QueryError: no run of that name (the message lists the runs).
    """
    with _run_edit(db) as con:
        run_id = _run_id(con, run, db)
        deleted = {}
        for table in run_tables(con):
            try:
                deleted[table] = con.execute(f"DELETE FROM {table} WHERE run_id = ?", [run_id]).fetchone()[0]
            except duckdb.Error as e:
                raise TracedbError(f"cannot remove run {run!r}: deleting from {table} failed: "
                                   f"{duckdb_message(e)}", file=str(_db.resolve_db_path(db)),
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
    with _run_edit(db) as con:
        run_id = _run_id(con, old, db)
        if new == old:
            return
        if con.execute("SELECT 1 FROM main.run WHERE run_name = ?", [new]).fetchone():
            raise QueryError(f"a run named {new!r} exists already.", file=str(_db.resolve_db_path(db)),
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
    with _run_edit(db) as con:
        run_id = _run_id(con, run, db)
        previous = con.execute("SELECT role FROM main.run WHERE run_id = ?", [run_id]).fetchone()[0]
        before = None
        if role is not None:
            before = con.execute("SELECT min(run_name) FROM main.run WHERE role = ? AND run_id <> ?",
                                 [role, run_id]).fetchone()[0]
            con.execute("UPDATE main.run SET role = NULL WHERE role = ? AND run_id <> ?", [role, run_id])
        con.execute("UPDATE main.run SET role = ? WHERE run_id = ?", [role, run_id])
        return RoleChange(before, previous if previous != role else None)
