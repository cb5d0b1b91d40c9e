"""tracedb command line: parse → call :mod:`tracedb.api` → render. No SQL and no parsing here.

stdout carries results only; progress, warnings and errors go to stderr. Exit codes: 0 ok,
1 failure (bad input, failed query), 2 usage, 3 database locked.
"""
from __future__ import annotations

import os
import sys
import traceback
from enum import Enum
from typing import List, Optional

import typer

from . import api
from .errors import EXIT_FAILURE, TracedbError
from .output import render
from .progress import terminal_bar

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

DB_HELP = "Database file (default: $TRACEDB_DB, else ./tracedb.duckdb)."


class Format(str, Enum):
    table = "table"
    csv = "csv"
    json = "json"
    ndjson = "ndjson"
    markdown = "markdown"


class Role(str, Enum):
    baseline = "baseline"
    comparison = "comparison"


_state = {"debug": False, "quiet": False}


def _err(text: str) -> None:
    print(text, file=sys.stderr, flush=True)


def _fail(e: Exception) -> None:
    if _state["debug"]:
        traceback.print_exc()
    if isinstance(e, TracedbError):
        _err(f"tracedb: error: {e}")
        raise typer.Exit(e.exit_code)
    _err(f"tracedb: error: {type(e).__name__}: {str(e).splitlines()[0] if str(e) else ''} "
         "(run with --debug for the traceback)")
    raise typer.Exit(EXIT_FAILURE)


def _view_names(incomplete: str) -> list[str]:
    try:
        from .registry import load_library
        return [o.name for o in load_library() if o.schema == "main" and o.name.startswith(incomplete)]
    except Exception:
        return []


@app.callback()
def main_options(
    debug: bool = typer.Option(False, "--debug", help="Show the Python traceback on errors."),
    quiet: bool = typer.Option(False, "--quiet", "-q", help="No progress messages on stderr."),
) -> None:
    _state["debug"] = debug
    _state["quiet"] = quiet


@app.command()
def ingest(
    paths: List[str] = typer.Argument(..., help="Rank folder(s) (*_ascend_pt, *_ascend_ms), a folder of rank "
                                                "folders, trace_view.json, kernel_details.csv, "
                                                "step_trace_time.csv, Kineto *.pt.trace.json(.gz) or a folder of them."),
    db: Optional[str] = typer.Option(None, "--db", help=DB_HELP),
    run: Optional[str] = typer.Option(None, "--run", help="Run name (default: folder name of PATH)."),
    role: Optional[Role] = typer.Option(None, "--role", help="Mark the run as baseline or comparison for op_diff."),
    replace: bool = typer.Option(False, "--replace", help="Re-ingest files that changed since their last ingest."),
    memory_limit: str = typer.Option(api.DEFAULT_INGEST_MEMORY, "--memory-limit",
                                     help="DuckDB memory limit; peak RSS stays about 100 MB above it."),
    threads: Optional[int] = typer.Option(None, "--threads", help="DuckDB threads (default: all cores)."),
) -> None:
    """Ingest profiler output into the database, in one transaction.

    A file already in the run (same content) is skipped; a failure leaves the database as it was.

    Example:  tracedb ingest ./rank0_ascend_pt --run npu_run --role comparison
    """
    say = (lambda s: None) if _state["quiet"] else _err
    bar = terminal_bar(sys.stderr) if sys.stderr.isatty() and not _state["quiet"] else None
    try:
        report = api.ingest(paths, db=db, run=run, role=role.value if role else None, replace=replace,
                            progress=say, bar=bar, memory_limit=memory_limit, threads=threads)
    except Exception as e:   # noqa: BLE001 - every failure becomes one line
        _fail(e)
        return
    rows = ", ".join(f"{n:,} {t}" for t, n in sorted(report.rows.items())) or "no new rows"
    say(f"ingested {len(report.files_ingested)} file(s), skipped {len(report.files_skipped)}: {rows} "
        f"into run(s) {', '.join(report.runs)} in {report.seconds:.1f} s")


@app.command()
def query(
    name_or_sql: str = typer.Argument(..., help="A view name (see 'tracedb views') or a SQL statement.",
                                      autocompletion=_view_names),
    db: Optional[str] = typer.Option(None, "--db", help=DB_HELP),
    baseline: Optional[str] = typer.Option(None, "--baseline", help="Baseline run name (op_diff)."),
    comparison: Optional[str] = typer.Option(None, "--comparison", help="Comparison run name (op_diff)."),
    run: Optional[str] = typer.Option(None, "--run", help="Only rows of this run name."),
    rank: Optional[int] = typer.Option(None, "--rank", help="Only rows of this rank."),
    step: Optional[int] = typer.Option(None, "--step", help="Only rows of this step."),
    fmt: Format = typer.Option(Format.table, "--format", "-f", help="Output format."),
    limit: Optional[int] = typer.Option(None, "--limit", help="At most this many rows."),
    write: bool = typer.Option(False, "--write", help="Open the database read-write (SQL that changes data)."),
) -> None:
    """Run a named view or SQL on a read-only connection and print the result.

    Examples:  tracedb query step_breakdown --rank 0 --format csv
               tracedb query op_diff --baseline gpu_run --comparison npu_run --limit 20
               tracedb query "SELECT rank, sum(free_ns) FROM free_time GROUP BY rank"
    """
    try:
        res = api.query(name_or_sql, db=db, baseline=baseline, comparison=comparison, run=run, rank=rank,
                        step=step, limit=limit, write=write)
    except Exception as e:   # noqa: BLE001
        _fail(e)
        return
    sys.stdout.write(render(res.columns, res.rows, fmt.value))


@app.command()
def views(
    db: Optional[str] = typer.Option(None, "--db", help=DB_HELP),
    fmt: Format = typer.Option(Format.table, "--format", "-f", help="Output format."),
) -> None:
    """List the public views and table macros installed in the database.

    Example:  tracedb views --format markdown
    """
    try:
        res = api.views(db)
    except Exception as e:   # noqa: BLE001
        _fail(e)
        return
    sys.stdout.write(render(res.columns, res.rows, fmt.value))


@app.command()
def describe(
    name: str = typer.Argument(..., help="View, macro or table name.", autocompletion=_view_names),
    db: Optional[str] = typer.Option(None, "--db", help=DB_HELP),
    fmt: Format = typer.Option(Format.table, "--format", "-f", help="Output format."),
) -> None:
    """Show a view's documentation and its columns with type, unit and source.

    Example:  tracedb describe step_breakdown
    """
    try:
        header, res = api.describe(name, db)
    except Exception as e:   # noqa: BLE001
        _fail(e)
        return
    if fmt == Format.table:
        sys.stdout.write(header + "\n\n")
    sys.stdout.write(render(res.columns, res.rows, fmt.value))


@app.command()
def runs(
    db: Optional[str] = typer.Option(None, "--db", help=DB_HELP),
    fmt: Format = typer.Option(Format.table, "--format", "-f", help="Output format."),
) -> None:
    """List the runs with their role, platform, ranks, steps, files, kernels and events.

    Example:  tracedb runs
    """
    try:
        res = api.runs(db)
    except Exception as e:   # noqa: BLE001
        _fail(e)
        return
    sys.stdout.write(render(res.columns, res.rows, fmt.value))


@app.command()
def export(
    parquet: str = typer.Option(..., "--parquet", help="Folder to write (must be new or empty)."),
    db: Optional[str] = typer.Option(None, "--db", help=DB_HELP),
    overwrite: bool = typer.Option(False, "--overwrite", help="Replace the folder's content."),
) -> None:
    """Export every table as Parquet partitioned by run and rank, plus views.sql for other engines.

    Run views.sql from the export folder to get the same views in any DuckDB session (the
    tables become views over read_parquet); Spark and Trino can read the same files.

    Example:  tracedb export --parquet out/ && cd out && duckdb -c ".read views.sql" -c "FROM op_diff"
    """
    try:
        written = api.export(parquet, db=db, overwrite=overwrite)
    except Exception as e:   # noqa: BLE001
        _fail(e)
        return
    if not _state["quiet"]:
        _err(f"exported {sum(written.values()):,} rows of {len(written)} tables to {parquet}")


@app.command()
def check(
    db: Optional[str] = typer.Option(None, "--db", help=DB_HELP),
    run: Optional[str] = typer.Option(None, "--run", help="Only findings of this run name."),
    fmt: Format = typer.Option(Format.table, "--format", "-f", help="Output format."),
) -> None:
    """Check the data for inconsistencies; exit 1 when there is an error finding.

    Errors: steps that do not tile, negative durations. Warnings: differences to the profiler's own
    step_trace_time.csv, kernels outside every step or longer than their step, skewed step starts,
    missing ranks, communication op counts that differ across ranks.

    Example:  tracedb check --format markdown
    """
    try:
        res, errors = api.check(db, run=run)
    except Exception as e:   # noqa: BLE001
        _fail(e)
        return
    sys.stdout.write(render(res.columns, res.rows, fmt.value))
    if not _state["quiet"]:
        _err(f"{errors} error(s), {len(res.rows) - errors} warning(s)")
    raise typer.Exit(1 if errors else 0)


def main() -> None:
    """Console-script entry point."""
    if os.environ.get("NO_COLOR") is None and not sys.stderr.isatty():
        os.environ.setdefault("NO_COLOR", "1")
    app()


if __name__ == "__main__":
    main()
