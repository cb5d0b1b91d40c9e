"""The ``tracedb`` typer app and what every command shares: the global flags, the options
defined once, the one error boundary (:func:`guarded`: a TracedbError is one line and its exit
code), signals, and printing a result in the format asked for.

stdout carries results only; progress, warnings and errors go to stderr. Exit codes: 0 ok,
1 failure (bad input, failed query), 2 usage, 3 database locked, 130 interrupted (Ctrl-C,
SIGTERM, SIGHUP: the open transaction is rolled back and temporary files are removed first),
141 the reader of stdout went away (``tracedb query kernel -f csv | head``: the rows are
streamed, so the query stops there; no message, as for a command killed by SIGPIPE).
"""
from __future__ import annotations

import functools
import os
import signal
import sys
import traceback
from enum import Enum
from typing import Annotated, Optional

import typer
import typer.core

from .. import lazy
from ..errors import EXIT_FAILURE, EXIT_INTERRUPTED, TracedbError
from ..query.rows import Rows
from ..render.machine import STREAMED, render, write_stream
from ..render.table import render_table
from . import typer_coercion


HELP_WIDTH = 10_000     # click wraps help at min(terminal width, this): the terminal's width decides

QUESTIONS = """Which command answers which question:

\b
  Where does each step's time go?     tracedb query step_breakdown
  Which rank is slow, and why?        tracedb query slow_rank
  When and why is the device idle?    tracedb query free_time, idle_time
  Which communication is not hidden?  tracedb query uncovered_communication
  Which link or collective is slow?   tracedb query slow_link, comm_op
  What changed between two runs?      tracedb compare BASELINE COMPARISON
  Which ops got slower or are new?    tracedb query op_diff
  Where is the memory peak?           tracedb query memory_peak
  What is slow, in plain words?       tracedb summary
  One page of charts to share         tracedb report -o report.html
  Are the numbers consistent?         tracedb check
  What is a view, in which units?     tracedb describe VIEW
  Which views are there?              tracedb views
"""


class HelpGroup(typer.core.TyperGroup):
    """Help at the terminal's width, each command listed with its whole summary (its first
    sentence), wrapped rather than cut with '...'."""

    def format_commands(self, ctx, formatter) -> None:
        rows = []
        for name in self.list_commands(ctx):
            cmd = self.get_command(ctx, name)
            if cmd is not None and not cmd.hidden:
                rows.append((name, cmd.get_short_help_str(limit=HELP_WIDTH)))
        if rows:
            with formatter.section("Commands"):
                formatter.write_dl(rows)


class Group(HelpGroup):
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


typer_coercion.install()     # typer converts plain values without importing pydantic (cold start)

app = typer.Typer(
    cls=Group,
    name="tracedb",
    help=("Columnar trace database for AI-training profiler output (Ascend NPU: torch_npu / MindSpore; "
          "GPU: PyTorch Kineto). Ingest profiler folders into one DuckDB file, then query named SQL views.\n\n"
          "Example:  tracedb ingest ./run_a --role baseline && tracedb ingest ./run_b --role comparison "
          "&& tracedb query op_diff"),
    epilog=QUESTIONS,
    context_settings={"max_content_width": HELP_WIDTH},
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


class TopLevel(str, Enum):
    thread = "thread"
    msprof = "msprof"


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
ExcelSafeOption = Annotated[bool, typer.Option(
    "--excel-safe", help="csv: put a ' before a text cell that starts with =, +, -, @, tab or CR, so that a "
                         "spreadsheet shows it as text instead of running it as a formula (names come from "
                         "the traces).")]

state = {"debug": False, "quiet": False, "signal": None}


def err(text: str) -> None:
    print(text, file=sys.stderr, flush=True)


def _on_signal(signum, frame) -> None:
    """SIGINT/SIGTERM/SIGHUP → KeyboardInterrupt once, so that every ``finally`` and context
    manager runs (transaction rolled back, FIFO folders removed); later signals are ignored
    until that clean-up is done."""
    if state["signal"] is None:
        state["signal"] = signum
        raise KeyboardInterrupt


def install_signal_handlers() -> None:
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
    return (state["signal"] is not None or isinstance(e, KeyboardInterrupt)
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
    if state["debug"]:
        traceback.print_exception(e)
    if _interrupted(e):
        err("tracedb: interrupted")
        raise typer.Exit(EXIT_INTERRUPTED)
    if isinstance(e, TracedbError):
        err(f"tracedb: error: {e}")
        raise typer.Exit(e.exit_code)
    if not isinstance(e, Exception):     # SystemExit and the like pass through
        raise e
    err(f"tracedb: error: {type(e).__name__}: {str(e).splitlines()[0] if str(e) else ''} "
         "(run with --debug for the traceback)")
    raise typer.Exit(EXIT_FAILURE)


def view_names(incomplete: str) -> list[str]:
    """Shell completion of a view name."""
    try:
        return [o.name for o in lazy.library.load_library() if o.schema == "main" and o.name.startswith(incomplete)]
    except Exception:
        return []


def terminal_width() -> Optional[int]:
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


def print_result(res, fmt: Format, *, units: Optional[Units] = None, wide: bool = False, vertical: bool = False,
           max_rows: Optional[int] = None, wrap_last: bool = False, excel: bool = False) -> None:
    sys.stdout.write(render(res.columns, res.rows, fmt.value, width=terminal_width(), max_rows=max_rows,
                            units=units.value if units else None, vertical=vertical, wide=wide,
                            wrap_last=wrap_last, excel=excel))


def print_rows(rows: Rows, fmt: Format, *, units: Optional[Units] = None, wide: bool = False,
                vertical: bool = False, max_rows: Optional[int] = None, excel: bool = False) -> Optional[int]:
    """Print a query result without holding it in memory: csv / json / ndjson a batch of rows at
    a time, the table its first ``max_rows`` rows and the row count; markdown and the table of
    every row (--all, --limit) need all rows to size their columns.

    Returns:
        The number of rows when this printing knew it (the table, markdown), else None."""
    if fmt == Format.csv and not excel and rows.write_csv(sys.stdout):     # each line made by DuckDB (same text)
        return None
    if fmt.value in STREAMED:
        write_stream(sys.stdout, rows.columns, rows.batches(), fmt.value, excel=excel)
        return None
    if fmt == Format.table and max_rows is not None:
        head, total = rows.first(max_rows)
        sys.stdout.write(render_table(rows.columns, head, width=terminal_width(), max_rows=max_rows,
                                      units=units.value if units else None, vertical=vertical, wide=wide,
                                      total=total))
        return total
    res = rows.result()
    print_result(res, fmt, units=units, wide=wide, vertical=vertical, max_rows=max_rows)
    return len(res.rows)


