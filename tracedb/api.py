"""Library facade used by the CLI, notebooks and tests. Never prints.

In a notebook, ``tracedb.open(path)`` (:func:`open_database`) keeps one read-only connection; a :class:`Result` shows as a table
with units (ms, GiB, %) and :meth:`Result.df` gives the raw values as a pandas DataFrame (run
from the repository root, as tests/docs/test_docs.py does):

>>> import tracedb
>>> tracedb.ingest(["fixtures/ascend/level1"], db="example.duckdb").runs
['level1']
>>> db = tracedb.open("example.duckdb")
>>> db.query("step_breakdown", rank=0).df()[["run_name", "step", "computing_ns", "free_ns"]]
  run_name  step  computing_ns   free_ns
0   level1    50       8873737  25744069
>>> print(db.query("SELECT run_name, rank, sum(dur_ns) AS free_ns FROM free_time GROUP BY run_name, rank ORDER BY 1, 2"))
run_name  rank  free_ms
--------  ----  -------
level1       0   25.744
level1       1   26.675

(the profiler's own step_trace_time.csv says Computing 8873.756 µs, Free 25744.050 µs and
26675.274 µs for these two ranks.)
>>> db.close()
"""
from __future__ import annotations

from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Callable, Iterator, Sequence

from . import lazy
from .engine import duckdb, use_package
from .errors import QueryError
from .query.objects import RUNS_SQL, describe_object, view_list
from .query.plan import plan, query_text
from .query.result import Result
from .query.rows import Rows, run_query
from .runs import RoleChange, runs_rename, runs_rm, runs_set_role
from .store.db import connect as connect_db, resolve_db_path
from .store.faults import read_every_block
from .store.session import (DEFAULT_INGEST_MEMORY, check_scope, edit_session, empty_runs, read_session,
                            require_runs, translate, writing)

if TYPE_CHECKING:
    from .compare.command import CompareReport
    from .findings.report import Report
    from .findings.summary import Finding
    from .ingestion import IngestReport

__all__ = ["DEFAULT_INGEST_MEMORY", "Database", "Result", "RoleChange", "Rows", "check", "compare", "connect", "describe",
           "export", "export_perfetto", "ingest", "open_database", "query", "query_rows", "reclassify", "report",
           "runs", "runs_rename", "runs_rm", "runs_set_role", "summary", "views"]


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
        use_package()     # a notebook's connection has the relation API (con.sql)
        self.path = resolve_db_path(path)
        self.con = connect_db(path, read_only=True)
        try:
            require_runs(self.con, path)
        except BaseException:
            self.con.close()
            raise

    def _run(self, fn, *args, **kw):
        try:
            return fn(self.con, *args, **kw)
        except duckdb.Error as e:
            raise translate(e, self.path) from e

    def query(self, name_or_sql: str, *, baseline: str | None = None, comparison: str | None = None,
              run: str | None = None, rank: int | None = None, step: int | None = None,
              limit: int | None = None) -> Result:
        """A view (with filters) or a SELECT, as :func:`query`."""
        return self._run(run_query, query_text(name_or_sql), baseline=baseline, comparison=comparison, run=run, rank=rank,
                         step=step, limit=limit)

    def df(self, name_or_sql: str, **filters):
        """``query(...).df()``: the result as a pandas DataFrame with the raw values."""
        return self.query(name_or_sql, **filters).df()

    def views(self) -> Result:
        """The public views and table macros with their one-line description."""
        return self._run(view_list)

    def describe(self, name: str) -> tuple[str, Result]:
        """A view's or table's documentation and its columns (type, unit and source)."""
        return self._run(describe_object, name)

    def runs(self) -> Result:
        """The runs: role, platform, ranks, steps, files, kernels, events."""
        return self._run(run_query, RUNS_SQL.strip())

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
    """Open the database (read-only by default). See :func:`tracedb.store.db.connect`."""
    use_package()     # the caller's connection has the relation API (con.sql, .pl())
    return connect_db(db, read_only=read_only, must_exist=read_only)


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
            (default :data:`tracedb.store.db.STORAGE_VERSION`; see docs/bi-tools.md).
        jobs: worker processes for the new ranks of a run, each with ``memory_limit / jobs``
            (see :mod:`tracedb.ingestion.staging`; default :func:`tracedb.ingestion.default_jobs`).

    Returns:
        IngestReport.

    Raises:
        InputError: bad input (file and place named); the database is unchanged, and a database
            file this call created is removed again (with its .wal).
        DatabaseLockedError: another process holds the database.
        KeyboardInterrupt: interrupted; as for a failure, the database is unchanged.
    """
    with writing(db, threads=threads, memory_limit=memory_limit, storage_version=storage_version) as w:
        report = lazy.ingestion.ingest(w.con, list(paths), run=run, role=role, replace=replace,
                                       run_per_path=run_per_path, allow_mixed_platforms=allow_mixed_platforms,
                                       progress=progress, bar=bar, step_range_pattern=step_range_pattern, jobs=jobs,
                                       checkpoint=False)
        # committed: a failure from here on is a warning (exit 0) and the file stays; one CHECKPOINT at the end
        with w.after_commit(progress, "the op alignment of the baseline/comparison pair") as con:
            if role is not None or (report.files_ingested and con.execute(
                    "SELECT count(*) FROM run WHERE role IS NOT NULL AND run_name IN (SELECT unnest(?::VARCHAR[]))",
                    [report.runs]).fetchone()[0]):
                lazy.compare_store.align_role_pair(con, progress)          # a role was set, or a run of the pair grew
        return report


def compare(baseline: str, comparison: str, db: str | Path | None = None, **options) -> CompareReport:
    """``tracedb compare``: ingest the sides given as paths, align the pair's ops, and return
    overall_comparison and op_diff; see :func:`tracedb.compare.command.run_compare` for the
    options and errors."""
    return lazy.compare_command.run_compare(baseline, comparison, db, **options)


def views(db: str | Path | None = None) -> Result:
    """Public views and table macros with their one-line description."""
    with read_session(db) as con:
        return view_list(con)


def describe(name: str, db: str | Path | None = None) -> tuple[str, Result]:
    """Header documentation and columns (type, comment: unit and source) of a view or table.

    Raises:
        QueryError: unknown name.
    """
    with read_session(db) as con:
        return describe_object(con, name)


def runs(db: str | Path | None = None) -> Result:
    """Runs in the database: role, platform, ranks, steps, files, kernels, events."""
    return query(RUNS_SQL, db=db)


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
    text = query_text(name_or_sql)
    with read_session(db, write=write) as con:
        return run_query(con, text, baseline=baseline, comparison=comparison, run=run, rank=rank, step=step,
                         limit=limit, write=write)


@contextmanager
def query_rows(name_or_sql: str, db: str | Path | None = None, *, baseline: str | None = None,
               comparison: str | None = None, run: str | None = None, rank: int | None = None,
               step: int | None = None, limit: int | None = None, write: bool = False) -> Iterator[Rows]:
    """:func:`query`, with the rows fetched as they are read (:class:`~tracedb.query.rows.Rows`)
    while the block runs; DuckDB errors inside the block become
    :class:`~tracedb.errors.QueryError`."""
    text = query_text(name_or_sql)
    with read_session(db, write=write) as con:
        sql, params = plan(con, text, baseline=baseline, comparison=comparison, run=run, rank=rank,
                           step=step, limit=limit, write=write)
        yield Rows(con, sql, params, write, (run, rank, step))


def check(db: str | Path | None = None, run: str | None = None) -> tuple[Result, int]:
    """Consistency findings (view ``check_finding``), optionally for one run.

    Every table is read in full first, so a block whose checksum does not match (a damaged
    file) raises the TracedbError "the database file is damaged" naming the table.

    Returns:
        (findings, number of errors).
    """
    with read_session(db) as con:
        read_every_block(con, resolve_db_path(db))
        res = run_query(con, query_text("check_finding"), run=run)
    errors = sum(1 for r in res.rows if r[0] == "error")
    return res, errors


def summary(db: str | Path | None = None, *, run: str | None = None, baseline: str | None = None,
            comparison: str | None = None) -> list[Finding]:
    """Plain-language findings by cause (the comparison's headline and top op, then per run the step
    split, input-bound steps, idle streams, free time, slow ranks and links, fusion candidates,
    blocking copies, advisor rules ...), each with its number, threshold, rule and the query that
    shows it; see :mod:`tracedb.findings.summary`.

    Raises:
        QueryError: an unknown run name; the same run as baseline and comparison.
    """
    with read_session(db) as con:
        check_scope(con, db, run, baseline, comparison)
        found = lazy.summary.summarize(con, run=run, baseline=baseline, comparison=comparison)
        empty = empty_runs(con, [run] if run else None)
    for name, files in reversed(empty):      # said first among the run's findings
        at = next((i for i, f in enumerate(found) if f.run_name == name), len(found))
        found.insert(at, lazy.summary.Finding(name, "empty run", f"empty run: its {files} file(s) held no event, "
                                              "kernel, step or other row tracedb reads", "tracedb runs"))
    return found


def report(path: str | Path, db: str | Path | None = None, *, run: str | None = None, baseline: str | None = None,
           comparison: str | None = None, png: str | Path | None = None) -> Report:
    """Write the HTML report (summary findings and charts, plotly.js embedded); see
    :mod:`tracedb.findings.report`. With ``png``, also each chart as ``png/<chart>.png`` (headless
    Chromium). Returns the :class:`~tracedb.findings.report.Report` (its ``charts``)."""
    if png is not None and lazy.browser.find_browser() is None:
        raise QueryError("--png needs headless Chromium: apt-get install chromium (or set $TRACEDB_CHROMIUM).")
    if not Path(path).parent.is_dir():
        raise QueryError(f"cannot write {path}: the folder {Path(path).parent} does not exist.")
    with read_session(db) as con:
        check_scope(con, db, run, baseline, comparison)
        rep = lazy.report.write_report(con, path, run=run, baseline=baseline, comparison=comparison)
    if png is not None:
        lazy.browser.write_pngs(rep, png)
    return rep


def export(out_dir: str | Path, db: str | Path | None = None, overwrite: bool = False) -> dict[str, int]:
    """Export every table as Parquet (partitioned by run and rank) plus ``views.sql``; see
    :mod:`tracedb.export.parquet`. Returns rows written per table."""
    with read_session(db, locked=False) as con:
        return lazy.export_parquet.export_parquet(con, out_dir, overwrite=overwrite)


def export_perfetto(path: str | Path, db: str | Path | None = None, *, run: str | None = None,
                    rank: int | None = None, step: int | None = None) -> dict[str, int]:
    """Write one run/rank (optionally one step window) as Chrome trace JSON for ui.perfetto.dev;
    see :mod:`tracedb.export.perfetto`. Returns slices written per category and the track count."""
    with read_session(db, locked=False) as con:
        return lazy.export_perfetto.export_perfetto(con, path, run=run, rank=rank, step=step)


def reclassify(db: str | Path | None = None) -> int:
    """Apply the kernel classification rules (table ``kernel_class_rule``) again to every
    kernel in the database, in one transaction: what a rule added or changed with SQL needs
    before the views show it. Returns the number of ranks classified.

    Raises:
        QueryError: the database holds no run.
    """
    with edit_session(db) as con:
        return lazy.ingestion.derive.reclassify(con)
