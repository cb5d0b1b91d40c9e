"""tracedb command line: parse → call :mod:`tracedb.api` → render. No SQL and no parsing here.

stdout carries results only; progress, warnings and errors go to stderr. Exit codes: 0 ok,
1 failure (bad input, failed query), 2 usage, 3 database locked, 130 interrupted (Ctrl-C,
SIGTERM, SIGHUP: the open transaction is rolled back and temporary files are removed first).
"""
from __future__ import annotations

import functools
import os
import signal
import sys
import traceback
from enum import Enum
from typing import Annotated, List, Optional

import typer

from . import api
from .errors import EXIT_FAILURE, EXIT_INTERRUPTED, TracedbError

app = typer.Typer(
    name="tracedb",
    help=("Columnar trace database for AI-training profiler output (Ascend NPU: torch_npu / MindSpore; "
          "GPU: PyTorch Kineto). Ingest profiler folders into one DuckDB file, then query named SQL views.\n\n"
          "Example:  tracedb ingest ./run_a --role baseline && tracedb ingest ./run_b --role comparison "
          "&& tracedb query op_diff"),
    no_args_is_help=True,
    add_completion=True,
    pretty_exceptions_enable=False,
    rich_markup_mode=None,
)


class Format(str, Enum):
    table = "table"
    csv = "csv"
    json = "json"
    ndjson = "ndjson"
    markdown = "markdown"


class Role(str, Enum):
    baseline = "baseline"
    comparison = "comparison"


class RoleOrNone(str, Enum):
    baseline = "baseline"
    comparison = "comparison"
    none = "none"


# the options every command shares, defined once (sqlite-utils' output_options, the typer way)
DbOption = Annotated[Optional[str], typer.Option(
    "--db", help="Database file (default: $TRACEDB_DB, else ./tracedb.duckdb).")]
FormatOption = Annotated[Format, typer.Option("--format", "-f", help="Output format.")]

_state = {"debug": False, "quiet": False, "signal": None}


def _err(text: str) -> None:
    print(text, file=sys.stderr, flush=True)


def _on_signal(signum, frame) -> None:
    """SIGINT/SIGTERM/SIGHUP → KeyboardInterrupt once, so that every ``finally`` and context
    manager runs (transaction rolled back, FIFO folders removed); later signals are ignored
    until that clean-up is done."""
    if _state["signal"] is None:
        _state["signal"] = signum
        raise KeyboardInterrupt


def _install_signal_handlers() -> None:
    """A signal ignored when tracedb started stays ignored: ``nohup tracedb ingest`` survives
    SIGHUP, and a background job of a non-interactive shell ignores SIGINT, as before."""
    for name in ("SIGINT", "SIGTERM", "SIGHUP"):
        sig = getattr(signal, name, None)
        if sig is not None and signal.getsignal(sig) is not signal.SIG_IGN:
            try:
                signal.signal(sig, _on_signal)
            except (ValueError, OSError):      # not the main thread (e.g. a test runner thread)
                pass


def _interrupted(e: BaseException) -> bool:
    """DuckDB turns a KeyboardInterrupt raised during a statement into RuntimeError('Query
    interrupted'), and a reader may wrap that again: the signal flag is the reliable sign."""
    return (_state["signal"] is not None or isinstance(e, KeyboardInterrupt)
            or (isinstance(e, RuntimeError) and "interrupted" in str(e).lower()))


def guarded(fn):
    """The one error boundary of the CLI: a TracedbError becomes one line ``tracedb: error: …``
    and its exit code; an interruption ``tracedb: interrupted``, exit 130; anything else one
    line naming the Python exception (the traceback with --debug)."""
    @functools.wraps(fn)
    def wrapper(*a, **kw):
        try:
            return fn(*a, **kw)
        except typer.Exit:
            raise
        except BaseException as e:   # noqa: BLE001 - every failure becomes one line
            _fail(e)
    return wrapper


def command(*args, app: typer.Typer = app, **kwargs):
    """``app.command`` for a :func:`guarded` function."""
    return lambda fn: app.command(*args, **kwargs)(guarded(fn))


def _fail(e: BaseException) -> None:
    if _state["debug"]:
        traceback.print_exception(e)
    if _interrupted(e):
        _err("tracedb: interrupted")
        raise typer.Exit(EXIT_INTERRUPTED)
    if isinstance(e, TracedbError):
        _err(f"tracedb: error: {e}")
        raise typer.Exit(e.exit_code)
    if not isinstance(e, Exception):     # SystemExit and the like pass through
        raise e
    _err(f"tracedb: error: {type(e).__name__}: {str(e).splitlines()[0] if str(e) else ''} "
         "(run with --debug for the traceback)")
    raise typer.Exit(EXIT_FAILURE)


def _view_names(incomplete: str) -> list[str]:
    try:
        from .registry import load_library
        return [o.name for o in load_library() if o.schema == "main" and o.name.startswith(incomplete)]
    except Exception:
        return []


def _print(res, fmt: Format) -> None:
    from .output import render
    sys.stdout.write(render(res.columns, res.rows, fmt.value))


@app.callback()
def main_options(
    debug: bool = typer.Option(False, "--debug", help="Show the Python traceback on errors."),
    quiet: bool = typer.Option(False, "--quiet", "-q", help="No progress messages on stderr."),
) -> None:
    _state["debug"] = debug
    _state["quiet"] = quiet
    _state["signal"] = None


@command()
def ingest(
    paths: List[str] = typer.Argument(..., help="Rank folder(s) (*_ascend_pt, *_ascend_ms), a folder of rank "
                                                "folders, a MindSpore profiler/ folder, Kineto *.pt.trace.json(.gz) "
                                                "or a folder of them, or single files: trace_view.json, "
                                                "kernel_details.csv, step_trace_time.csv, communication(_matrix).json, "
                                                "memory_record.csv, operator_memory.csv, npu_module_mem.csv."),
    db: DbOption = None,
    run: Optional[str] = typer.Option(None, "--run", help="Run name (default: the folder of PATH, or the folder "
                                                          "holding all PATHs)."),
    role: Optional[Role] = typer.Option(None, "--role", help="Mark the run as baseline or comparison for op_diff."),
    replace: bool = typer.Option(False, "--replace", help="Replace a rank's recorded file by a different one of the "
                                                          "same kind (another capture is refused without it)."),
    run_per_path: bool = typer.Option(False, "--run-per-path",
                                      help="One run per PATH (default: one ingest command is one run)."),
    allow_mixed_platforms: bool = typer.Option(False, "--allow-mixed-platforms",
                                               help="Allow GPU and NPU ranks in one run."),
    memory_limit: str = typer.Option(api.DEFAULT_INGEST_MEMORY, "--memory-limit",
                                     help="DuckDB memory limit; peak RSS stays about 100 MB above it."),
    threads: Optional[int] = typer.Option(None, "--threads", help="DuckDB threads (default: all cores)."),
    storage_version: Optional[str] = typer.Option(None, "--storage-version",
                                                  help="DuckDB storage version of a new database file "
                                                       "(default v1.4.0: DuckDB 1.4 and later open it); "
                                                       "v1.0.0 for DuckDB 1.1-1.3 readers. An existing "
                                                       "file keeps its own."),
) -> None:
    """Ingest profiler output into the database, in one transaction.

    One command is one run: all PATHs are ranks of it (rank numbers from profiler_info_{rank}.json,
    Kineto distributedInfo or the file name; each is printed with its origin). A file already in
    the run (same content) is skipped; a different capture for a rank that has one is refused
    (--run NAME for a new run, --replace to replace). A failure leaves the database as it was
    (and creates no database file).

    Examples:  tracedb ingest ./job/rank0_ascend_pt ./job/rank1_ascend_pt --run npu_run --role comparison
               tracedb ingest ./gpu_traces --run gpu_run --role baseline
    """
    from .progress import terminal_bar

    say = (lambda s: None) if _state["quiet"] else _err
    bar = terminal_bar(sys.stderr) if sys.stderr.isatty() and not _state["quiet"] else None
    report = api.ingest(paths, db=db, run=run, role=role.value if role else None, replace=replace,
                        run_per_path=run_per_path, allow_mixed_platforms=allow_mixed_platforms,
                        progress=say, bar=bar, memory_limit=memory_limit, threads=threads,
                        storage_version=storage_version)
    rows = ", ".join(f"{n:,} {t}" for t, n in sorted(report.rows.items())) or "no new rows"
    say(f"ingested {len(report.files_ingested)} file(s), skipped {len(report.files_skipped)}: {rows} "
        f"into run(s) {', '.join(report.runs)} in {report.seconds:.1f} s")


@command()
def query(
    name_or_sql: str = typer.Argument(..., help="A view name (see 'tracedb views') or a SQL statement.",
                                      autocompletion=_view_names),
    db: DbOption = None,
    baseline: Optional[str] = typer.Option(None, "--baseline", help="Baseline run name (op_diff)."),
    comparison: Optional[str] = typer.Option(None, "--comparison", help="Comparison run name (op_diff)."),
    run: Optional[str] = typer.Option(None, "--run", help="Only rows of this run name."),
    rank: Optional[int] = typer.Option(None, "--rank", help="Only rows of this rank."),
    step: Optional[int] = typer.Option(None, "--step", help="Only rows of this step."),
    fmt: FormatOption = Format.table,
    limit: Optional[int] = typer.Option(None, "--limit", help="At most this many rows."),
    write: bool = typer.Option(False, "--write", help="Open the database read-write (SQL that changes data, "
                                                      "writes files or changes settings)."),
) -> None:
    """Run a named view or SQL on a read-only connection and print the result.

    Without --write only SELECT statements run: no file is written or created, no extension is
    installed or loaded, no setting changes. Local files can be read (read_csv, read_parquet).

    Examples:

    \b
      tracedb query step_breakdown --rank 0 --format csv
      tracedb query op_diff --baseline gpu_run --comparison npu_run --limit 20
      tracedb query "SELECT rank, sum(dur_ns) FROM free_time GROUP BY rank"
    """
    _print(api.query(name_or_sql, db=db, baseline=baseline, comparison=comparison, run=run, rank=rank,
                     step=step, limit=limit, write=write), fmt)


@command()
def views(db: DbOption = None, fmt: FormatOption = Format.table) -> None:
    """List the public views and table macros installed in the database.

    Example:  tracedb views --format markdown
    """
    _print(api.views(db), fmt)


@command()
def describe(
    name: str = typer.Argument(..., help="View, macro or table name.", autocompletion=_view_names),
    db: DbOption = None,
    fmt: FormatOption = Format.table,
) -> None:
    """Show a view's documentation and its columns with type, unit and source.

    Example:  tracedb describe step_breakdown
    """
    header, res = api.describe(name, db)
    if fmt == Format.table:
        sys.stdout.write(header + "\n\n")
    _print(res, fmt)


runs_app = typer.Typer(no_args_is_help=False, rich_markup_mode=None)
app.add_typer(runs_app, name="runs")


@runs_app.callback(invoke_without_command=True)
@guarded
def runs(ctx: typer.Context, db: DbOption = None, fmt: FormatOption = Format.table) -> None:
    """List the runs with their role, platform, ranks, steps, files, kernels and events;
    remove, rename or re-role a run with the commands below (each one transaction).

    Examples:

    \b
      tracedb runs
      tracedb runs set-role npu_run baseline
      tracedb runs rename npu_run npu_cann8
      tracedb runs rm old_run
    """
    ctx.obj = {"db": db}
    if ctx.invoked_subcommand is None:
        _print(api.runs(db), fmt)


def _runs_db(ctx: typer.Context, db: Optional[str]) -> Optional[str]:
    """--db of the subcommand, else of ``tracedb runs --db X …``."""
    return db or (ctx.obj or {}).get("db")


@command("rm", app=runs_app)
def runs_rm(ctx: typer.Context, run: str = typer.Argument(..., help="Run name (see 'tracedb runs')."),
            db: DbOption = None) -> None:
    """Delete a run and all its rows (every table with a run_id), in one transaction.

    Example:  tracedb runs rm old_run
    """
    deleted = api.runs_rm(run, _runs_db(ctx, db))
    if not _state["quiet"]:
        _err(f"removed run {run}: {sum(deleted.values()):,} rows in {len(deleted)} tables")


@command("rename", app=runs_app)
def runs_rename(ctx: typer.Context, old: str = typer.Argument(..., help="Current run name."),
                new: str = typer.Argument(..., help="New run name."), db: DbOption = None) -> None:
    """Rename a run.

    Example:  tracedb runs rename npu_run npu_cann8
    """
    api.runs_rename(old, new, _runs_db(ctx, db))
    if not _state["quiet"]:
        _err(f"renamed run {old} to {new.strip()}")


@command("set-role", app=runs_app)
def runs_set_role(ctx: typer.Context, run: str = typer.Argument(..., help="Run name."),
                  role: RoleOrNone = typer.Argument(..., help="baseline, comparison or none."),
                  db: DbOption = None) -> None:
    """Make a run the baseline or the comparison of op_diff (the run that held the role loses it), or
    clear its role with none.

    Example:  tracedb runs set-role gpu_run baseline
    """
    change = api.runs_set_role(run, role.value, _runs_db(ctx, db))
    if not _state["quiet"]:
        notes = ([f"{change.taken_from} is no longer {role.value}"] if change.taken_from else []) + (
            [f"it is no longer {change.previous_role}"] if change.previous_role else [])
        what = f"is now {role.value}" if role != RoleOrNone.none else "has no role now"
        _err(f"run {run} {what}" + (f" ({'; '.join(notes)})" if notes else ""))


@command()
def export(
    parquet: str = typer.Option(..., "--parquet", help="Folder to write (must be new or empty)."),
    db: DbOption = None,
    overwrite: bool = typer.Option(False, "--overwrite", help="Replace the folder's content."),
) -> None:
    """Export every table as Parquet partitioned by run and rank, plus views.sql for other engines.

    Run views.sql from the export folder to get the same views in any DuckDB session (the
    tables become views over read_parquet); Spark and Trino can read the same files.

    Example:  tracedb export --parquet out/ && cd out && duckdb -c ".read views.sql" -c "FROM op_diff"
    """
    written = api.export(parquet, db=db, overwrite=overwrite)
    if not _state["quiet"]:
        _err(f"exported {sum(written.values()):,} rows of {len(written)} tables to {parquet}")


@command()
def check(
    db: DbOption = None,
    run: Optional[str] = typer.Option(None, "--run", help="Only findings of this run name."),
    fmt: FormatOption = Format.table,
) -> None:
    """Check the data for inconsistencies; exit 1 when there is an error finding.

    Errors: steps that do not tile, negative durations. Warnings: differences to the profiler's own
    step_trace_time.csv, kernels outside every step or longer than their step, skewed step starts,
    missing ranks, communication op counts that differ across ranks.

    Example:  tracedb check --format markdown
    """
    res, errors = api.check(db, run=run)
    _print(res, fmt)
    if not _state["quiet"]:
        _err(f"{errors} error(s), {len(res.rows) - errors} warning(s)")
    raise typer.Exit(1 if errors else 0)


def main() -> None:
    """Console-script entry point."""
    if os.environ.get("NO_COLOR") is None and not sys.stderr.isatty():
        os.environ.setdefault("NO_COLOR", "1")
    _install_signal_handlers()
    app()


if __name__ == "__main__":
    main()
