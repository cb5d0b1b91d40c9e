"""tracedb command line: parse → call :mod:`tracedb.api` → render. No SQL and no parsing here.

stdout carries results only; progress, warnings and errors go to stderr. Exit codes: 0 ok,
1 failure (bad input, failed query), 2 usage, 3 database locked, 130 interrupted (Ctrl-C,
SIGTERM, SIGHUP: the open transaction is rolled back and temporary files are removed first),
141 the reader of stdout went away (``tracedb query kernel -f csv | head``: the rows are
streamed, so the query stops there; no message, as for a command killed by SIGPIPE).
"""
from __future__ import annotations

import atexit
import copy
import functools
import gc
import os
import signal
import sys
import traceback
from enum import Enum
from typing import Annotated, List, Optional

import typer
import typer.core

from . import _coerce, api
from .errors import EXIT_FAILURE, EXIT_INTERRUPTED, TracedbError
from .output import DEFAULT_MAX_ROWS, STREAMED, render, render_table, write_stream


class _Group(typer.core.TyperGroup):
    """The root command: the global flags (-q/--quiet, --debug) work after the subcommand too
    (``tracedb ingest -q PATH``, ux-review F13); they are moved in front of it before parsing."""

    GLOBAL_FLAGS = ("-q", "--quiet", "--debug")

    def parse_args(self, ctx, args):
        if "--" in args:
            head, tail = args[:args.index("--")], args[args.index("--"):]
        else:
            head, tail = args, []
        flags = [a for a in head if a in self.GLOBAL_FLAGS]
        return super().parse_args(ctx, flags + [a for a in head if a not in self.GLOBAL_FLAGS] + tail)


_coerce.install()     # typer converts plain values without importing pydantic (cold start, issue #20)

app = typer.Typer(
    cls=_Group,
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
FormatOption = Annotated[Format, typer.Option("--format", "-f", help="Output format (table: for people, units from "
                                                                      "the column names; the others: raw values).")]


class Units(str, Enum):
    ns = "ns"
    us = "us"
    ms = "ms"
    s = "s"


# the human table's options (ignored by csv/json/ndjson/markdown, which print raw values)
UnitsOption = Annotated[Optional[Units], typer.Option(
    "--units", help="Table: show every *_ns column in this unit (default: the unit that fits each column; "
                    "ns prints the exact integers).")]
WideOption = Annotated[bool, typer.Option("--wide", help="Table: every column, text uncut, wider than the terminal.")]
VerticalOption = Annotated[bool, typer.Option("--vertical", "-x", help="Table: one 'column | value' line per field.")]

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
        except BrokenPipeError:
            _stdout_gone()
        except BaseException as e:   # noqa: BLE001 - every failure becomes one line
            _fail(e)
    return wrapper


def command(*args, app: typer.Typer = app, **kwargs):
    """``app.command`` for a :func:`guarded` function."""
    return lambda fn: app.command(*args, **kwargs)(guarded(fn))


EXIT_PIPE = 141        # 128 + SIGPIPE, what a shell reports for a command killed by a closed pipe


def _stdout_gone() -> None:
    """stdout's reader closed the pipe: stop quietly; stdout goes to /dev/null so that Python's
    last flush at exit does not fail again."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError):      # no real file descriptor (a test runner's stdout)
        pass
    raise typer.Exit(EXIT_PIPE)


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


def _width() -> Optional[int]:
    """The table's width: $COLUMNS, else the terminal's; None (no limit) when stdout is no terminal."""
    cols = os.environ.get("COLUMNS", "")
    if cols.isdigit() and int(cols) > 0:
        return int(cols)
    if sys.stdout.isatty():
        try:
            return os.get_terminal_size(sys.stdout.fileno()).columns
        except OSError:
            return None
    return None


def _print(res, fmt: Format, *, units: Optional[Units] = None, wide: bool = False, vertical: bool = False,
           max_rows: Optional[int] = None, wrap_last: bool = False) -> None:
    sys.stdout.write(render(res.columns, res.rows, fmt.value, width=_width(), max_rows=max_rows,
                            units=units.value if units else None, vertical=vertical, wide=wide,
                            wrap_last=wrap_last))


def _print_rows(rows: "api.Rows", fmt: Format, *, units: Optional[Units] = None, wide: bool = False,
                vertical: bool = False, max_rows: Optional[int] = None) -> None:
    """Print a query result without holding it in memory: csv / json / ndjson a batch of rows at
    a time, the table its first ``max_rows`` rows and the row count; markdown and the table of
    every row (--all, --limit) need all rows to size their columns."""
    if fmt == Format.csv and rows.write_csv(sys.stdout):     # each line made by DuckDB (same text)
        return
    if fmt.value in STREAMED:
        write_stream(sys.stdout, rows.columns, rows.batches(), fmt.value)
    elif fmt == Format.table and max_rows is not None:
        head, total = rows.first(max_rows)
        sys.stdout.write(render_table(rows.columns, head, width=_width(), max_rows=max_rows,
                                      units=units.value if units else None, vertical=vertical, wide=wide,
                                      total=total))
    else:
        _print(rows.result(), fmt, units=units, wide=wide, vertical=vertical, max_rows=max_rows)


def _version(value: bool) -> None:
    if value:
        from . import __version__
        print(f"tracedb {__version__}")
        raise typer.Exit(0)


@app.callback()
def main_options(
    debug: bool = typer.Option(False, "--debug", help="Show the Python traceback on errors (also after the "
                                                      "command)."),
    quiet: bool = typer.Option(False, "--quiet", "-q", help="No progress messages on stderr (also after the "
                                                            "command)."),
    version: bool = typer.Option(False, "--version", help="Print the version and exit.", is_eager=True,
                                 callback=_version),
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
                                                "memory_record.csv, operator_memory.csv, npu_module_mem.csv, "
                                                "MindSpore (ascend_)timeline_display_{rank}.json / "
                                                "pipeline_profiling_{rank}.json, Nsight Systems *.sqlite exports."),
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
    jobs: Optional[int] = typer.Option(None, "--jobs", "-j",
                                       help="Worker processes for the new ranks of a folder; each gets "
                                            "--memory-limit / N and --threads / N, so memory stays bounded "
                                            "by --memory-limit whatever the number of ranks. 1: one rank "
                                            "after another. Default: one per two cores."),
    step_range_pattern: Optional[str] = typer.Option(
        None, "--step-range-pattern", help="Nsight exports: NVTX ranges whose text matches this regular expression "
                                           "(RE2) are steps; group 1 is the step number, else their order. "
                                           "Default: ^ProfilerStep#(\\d+)$."),
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
                        step_range_pattern=step_range_pattern, storage_version=storage_version, jobs=jobs)
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
    limit: Optional[int] = typer.Option(None, "--limit", help=f"At most this many rows (the table shows "
                                                             f"{DEFAULT_MAX_ROWS} without --limit or --all)."),
    all_rows: bool = typer.Option(False, "--all", help="Table: every row."),
    units: UnitsOption = None,
    wide: WideOption = False,
    vertical: VerticalOption = False,
    write: bool = typer.Option(False, "--write", help="Open the database read-write (SQL that changes data, "
                                                      "writes files or changes settings)."),
) -> None:
    """Run a named view or SQL on a read-only connection and print the result.

    Without --write only SELECT statements run: no file is written or created, no extension is
    installed or loaded, no setting changes. Local files can be read (read_csv, read_parquet).

    The table shows times in ms (or the unit that fits), bytes in MiB/GiB, ratios in %, and at
    most 40 rows, fitted to the terminal; csv, json, ndjson and markdown print the raw values
    (integer ns, bytes).

    Examples:

    \b
      tracedb query step_breakdown --rank 0 --format csv
      tracedb query op_diff --baseline gpu_run --comparison npu_run --limit 20
      tracedb query "SELECT rank, sum(dur_ns) FROM free_time GROUP BY rank"
      tracedb query free_time --all --units us
      tracedb query slow_rank -x --limit 2
      tracedb query kernel --rank 0 --limit 5 --wide
    """
    with api.query_rows(name_or_sql, db=db, baseline=baseline, comparison=comparison, run=run, rank=rank,
                        step=step, limit=limit, write=write) as rows:
        _print_rows(rows, fmt, units=units, wide=wide, vertical=vertical,
                    max_rows=None if (all_rows or limit is not None) else DEFAULT_MAX_ROWS)


@command()
def views(db: DbOption = None, fmt: FormatOption = Format.table) -> None:
    """List the public views and table macros installed in the database.

    Example:  tracedb views --format markdown
    """
    _print(api.views(db), fmt, wrap_last=True)


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
    _print(res, fmt, wrap_last=True)


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
def summary(
    db: DbOption = None,
    run: Optional[str] = typer.Option(None, "--run", help="Only this run (default: every run)."),
    baseline: Optional[str] = typer.Option(None, "--baseline", help="Baseline run of the comparison (default: "
                                                                    "the run with the role)."),
    comparison: Optional[str] = typer.Option(None, "--comparison", help="Comparison run (default: the run with "
                                                                        "the role)."),
    fmt: FormatOption = Format.table,
) -> None:
    """Say in plain words what is slow: per run the step's split (computing / exposed communication
    / free, % of step), the slowest rank and its slowest part, the largest free gap, the slowest
    link, the memory peak and the check findings; for a baseline/comparison pair the top degraded
    op. Each finding has its number and the query that shows it. Thresholds: msprof-analyze 5 %,
    MindInsight 20 %.

    Examples:

    \b
      tracedb summary
      tracedb summary --run npu_run
      tracedb summary --baseline gpu_run --comparison npu_run
    """
    findings = api.summary(db, run=run, baseline=baseline, comparison=comparison)
    if fmt == Format.table:
        from .summary import render_text
        sys.stdout.write(render_text(findings))
    else:
        _print(api.Result(["run_name", "topic", "finding", "source"],
                          [(f.run_name, f.topic, f.text, f.source) for f in findings]), fmt)


@command()
def report(
    output: str = typer.Option(..., "--output", "-o", help="HTML file to write (self-contained, works offline)."),
    db: DbOption = None,
    run: Optional[str] = typer.Option(None, "--run", help="Run of the charts (default: the comparison run, else "
                                                          "the first run); the findings cover every run."),
    baseline: Optional[str] = typer.Option(None, "--baseline", help="Baseline run of the op diff chart (default: "
                                                                    "the run with the role)."),
    comparison: Optional[str] = typer.Option(None, "--comparison", help="Comparison run (default: the run with "
                                                                        "the role)."),
    png: Optional[str] = typer.Option(None, "--png", help="Also write each chart as DIR/<chart>.png (needs "
                                                          "headless Chromium: apt-get install chromium)."),
) -> None:
    """Write one HTML page: the summary's findings, then charts, each drawn from a view it names:
    step stack per rank and step and a rank × step heat map (step_breakdown), op diff and
    overall comparison bars of a baseline/comparison pair (op_diff_between,
    overall_comparison_between), the link bandwidth matrix (comm_matrix), memory over time with
    the peak's share of the device capacity (memory, memory_peak), the free-time timeline of the
    slowest step (free_time).
    plotly.js is embedded: the file opens offline.

    Examples:

    \b
      tracedb report -o report.html
      tracedb report -o report.html --baseline gpu_run --comparison npu_run
    """
    rep = api.report(output, db=db, run=run, baseline=baseline, comparison=comparison, png=png)
    if not _state["quiet"]:
        skipped = [f"{c.key} ({c.note})" for c in rep.charts if c.figure is None]
        _err(f"wrote {output}: {len(rep.drawn)} charts" + (f"; skipped: {'; '.join(skipped)}" if skipped else ""))


@command()
def export(
    parquet: Optional[str] = typer.Option(None, "--parquet", help="Folder to write (must be new or empty)."),
    perfetto: Optional[str] = typer.Option(None, "--perfetto", help="Chrome trace JSON file to write (opens in "
                                                                    "ui.perfetto.dev): one run/rank/step."),
    db: DbOption = None,
    overwrite: bool = typer.Option(False, "--overwrite", help="Replace the folder's content."),
    run: Optional[str] = typer.Option(None, "--run", help="--perfetto: run name (needed when there are several)."),
    rank: Optional[int] = typer.Option(None, "--rank", help="--perfetto: rank (needed when the run has several)."),
    step: Optional[int] = typer.Option(None, "--step", help="--perfetto: only this step's host and device window."),
) -> None:
    """Export every table as Parquet partitioned by run and rank, plus views.sql for other engines;
    or (--perfetto) one rank's timeline as Chrome trace JSON for ui.perfetto.dev.

    Run views.sql from the export folder to get the same views in any DuckDB session (the
    tables become views over read_parquet); Spark and Trino can read the same files.

    The --perfetto file has one track per device stream (kernels; overlapping ones on extra
    "overlap" tracks), the framework ops per host thread, and tracks with the rows of free_time and
    uncovered_communication; timestamps keep their integer ns.

    Examples:

    \b
      tracedb export --parquet out/ && cd out && duckdb -c ".read views.sql" -c "FROM op_diff"
      tracedb export --perfetto rank0.json --run npu_run --rank 0 --step 50
    """
    if (parquet is None) == (perfetto is None):
        _err("tracedb: error: give exactly one of --parquet DIR (every table) or --perfetto FILE (one rank's "
             "timeline).")
        raise typer.Exit(2)
    if perfetto is not None:
        counts = api.export_perfetto(perfetto, db=db, run=run, rank=rank, step=step)
        if not _state["quiet"]:
            tracks = counts.pop("tracks")
            _err(f"exported {sum(counts.values()):,} slices on {tracks} tracks to {perfetto}: "
                 + ", ".join(f"{n:,} {c}" for c, n in counts.items()))
        return
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
    step_trace_time.csv, kernels outside every step or longer than their step, kernels without a
    launching framework op, skewed step starts, missing ranks, communication op counts that differ
    across ranks.

    Example:  tracedb check --format markdown
    """
    res, errors = api.check(db, run=run)
    _print(res, fmt, wrap_last=True)
    if not _state["quiet"]:
        _err(f"{errors} error(s), {len(res.rows) - errors} warning(s)")
    raise typer.Exit(1 if errors else 0)


@command()
def reclassify(db: DbOption = None) -> None:
    """Apply the kernel classification rules again to every kernel in the database.

    The rules are the table kernel_class_rule (category, sub-category, direction, collective per
    kernel name / op type / core / launching op pattern); ingest applies them once per rank.
    After adding or changing a rule with SQL, run this so step_breakdown, kernel_category and
    the other views follow it.

    Examples:
      tracedb query --write "UPDATE kernel_class_rule SET enabled = false WHERE rule_id = 25"
      tracedb reclassify
    """
    n = api.reclassify(db)
    if not _state["quiet"]:
        _err(f"classified the kernels of {n} rank(s)")


@command()
def compare(
    baseline: str = typer.Argument(..., help="Baseline: a run name, or a profiler folder / trace file to ingest "
                                             "(run name = its folder name)."),
    comparison: str = typer.Argument(..., help="Comparison: a run name, or a profiler folder / trace file to ingest."),
    db: DbOption = None,
    op_name_map: List[str] = typer.Option([], "--op-name-map", help="BASELINE_NAME=COMPARISON_NAME: ops that are the "
                                                                    "same on both sides (repeatable; kept in table "
                                                                    "op_name_map)."),
    op_name_map_file: Optional[str] = typer.Option(None, "--op-name-map-file",
                                                   help="File of BASELINE_NAME=COMPARISON_NAME lines (# comments)."),
    use_input_shape: bool = typer.Option(False, "--use-input-shape",
                                         help="Match ops on name + input dims, not the name alone."),
    max_kernel_num: Optional[int] = typer.Option(None, "--max-kernel-num",
                                                 help="Align the children of a matched op pair with more kernels "
                                                      "than this (default: top-level ops only)."),
    baseline_step: Optional[int] = typer.Option(None, "--baseline-step", help="Compare only this step of the baseline."),
    comparison_step: Optional[int] = typer.Option(None, "--comparison-step",
                                                  help="Compare only this step of the comparison."),
    limit: int = typer.Option(20, "--limit", help="Rows of op_diff to print."),
    memory_limit: Optional[str] = typer.Option(
        None, "--memory-limit", help="DuckDB memory limit (default when a side is a path: 1300MB, as tracedb "
                                     "ingest). Two path sides are ingested at the same time when their files "
                                     "together take at most half of it, else one after the other."),
    fmt: FormatOption = Format.table,
) -> None:
    """Compare two runs at the framework-op level (msprof-analyze compare, in SQL views).

    Ingests the sides given as paths (same process), makes them the baseline and comparison run,
    stores the op name map, the steps and the op and module alignments (tables op_match,
    module_match), then prints overall_comparison (when installed) and the top of op_diff. The
    views stay in the file: op_diff, op_alignment, kernel_diff, api_diff, communication_diff,
    module_diff, module_alignment (and their *_between macros) answer further questions with
    'tracedb query'. Formats other than table/markdown
    print op_diff only.

    Examples:

    \b
      tracedb compare ./gpu_traces ./npu_run --db cmp.duckdb
      tracedb compare gpu_run npu_run --op-name-map 'Optimizer.step#SGD.step=Optimizer.step#NpuFusedSGD.step'
      tracedb compare old_run npu_run --baseline-step 50 --comparison-step 50 --max-kernel-num 10
      tracedb query op_alignment --limit 50
    """
    from .compare import parse_name_map, run_compare
    say = (lambda s: None) if _state["quiet"] else _err
    report = run_compare(baseline, comparison, db, name_map=parse_name_map(op_name_map, op_name_map_file),
                         use_input_shape=use_input_shape, max_kernel_num=max_kernel_num,
                         baseline_step=baseline_step, comparison_step=comparison_step, limit=limit, progress=say,
                         memory_limit=memory_limit)
    say(f"baseline {report.baseline}, comparison {report.comparison}: {report.pairs:,} aligned op rows, "
        f"{report.matched:,} matched pairs (tracedb query op_alignment)")
    for view, columns, rows in report.sections:
        if fmt in (Format.table, Format.markdown):
            sys.stdout.write(f"{'## ' if fmt == Format.markdown else ''}{view}\n\n")
            sys.stdout.write(render(columns, rows, fmt.value) + "\n")
        elif view == "op_diff":
            sys.stdout.write(render(columns, rows, fmt.value))


def _app_for(args: list[str]) -> typer.Typer:
    """The app to run for the command line ``args``: with only the command they name when it is
    one of the top-level commands, else the whole app.

    Typer turns every registered command into a click command (reading each function's
    signature and annotations) at every start, though one runs: 13-19 ms of each command's
    start-up for the eleven (issue #20's cold start). The global flags take no value, so the
    first argument that is not a flag names the command; ``tracedb --help``, a group
    (``runs``), a typo or no command get the whole app and its messages."""
    name = next((a for a in args if not a.startswith("-")), None)
    infos = [c for c in app.registered_commands if (c.name or c.callback.__name__) == name]
    if not infos:
        return app
    one = copy.copy(app)
    one.registered_commands, one.registered_groups = infos, []
    return one


def main() -> None:
    """Console-script entry point."""
    # at exit, the collector's passes over every object of the process (typer's, DuckDB's
    # and tracedb's modules) took ~10 ms of each command; the process ends and the memory goes
    # back with it, so they are frozen out of those passes (atexit handlers run before them)
    atexit.register(gc.freeze)
    if os.environ.get("NO_COLOR") is None and not sys.stderr.isatty():
        os.environ.setdefault("NO_COLOR", "1")
    _install_signal_handlers()
    _app_for(sys.argv[1:])()


if __name__ == "__main__":
    main()
