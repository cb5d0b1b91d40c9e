"""``tracedb compare``: ingest the sides given as paths, set the baseline/comparison pair, align
their framework ops (:mod:`tracedb.compare.store`), and return overall_comparison (whole capture),
step_comparison (the mean compared step) and op_diff.

Steps are honoured in every table: with --baseline-step / --comparison-step (or --per-step) the
first table is step_comparison of the compared steps instead of the whole-capture
overall_comparison; when the two captures hold different numbers of steps, both are returned and
a note says so. Everything but the op alignment is SQL; the threads that run the sides and the
views side by side are :mod:`tracedb.compare.concurrency`'s; the printing is
:mod:`tracedb.compare.show`'s.
"""
from __future__ import annotations

import os
import re
from concurrent.futures import ThreadPoolExecutor, wait
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Sequence

from ..engine import duckdb
from ..errors import QueryError, TracedbError, out_of_memory
from ..ingestion.detect import detect
from ..store.db import connect, resolve_db_path, transaction, wal_path
from ..store.faults import checkpoint, database_fault, storage_error
from ..store.session import DEFAULT_INGEST_MEMORY, run_names
from .concurrency import discard, ingest_sides, open_seeded, pause_vacuum, threads_set
from .store import TOP_LEVELS, align


ROLLED_BACK = "the step that failed was rolled back (a side ingested before it stays)"


@dataclass
class CompareReport:
    baseline: str
    comparison: str
    pairs: int
    matched: int
    sections: list = field(default_factory=list)     # (view name, columns, rows)
    steps: tuple = (0, 0)                           # steps each capture holds (baseline, comparison)
    chosen: tuple = (None, None)                    # --baseline-step, --comparison-step
    notes: list = field(default_factory=list)       # what the reader should know: step counts, name map
    limit: int | None = None                        # op_diff rows asked for


_VERSION_SUFFIX = re.compile(r"(Backward)\d+$")
NAME_HINTS = 6          # suggested --op-name-map items at most



def side_name(arg: str) -> tuple[str, bool]:
    """(run name, is a path): a path that exists is ingested under its default run name (the
    folder name)."""
    if not os.path.exists(arg):
        return arg, False
    return detect(Path(arg)).default_name, True


def overall_section(cur: duckdb.DuckDBPyConnection, baseline: str, comparison: str, wanted: bool = True) -> list:
    """overall_comparison of the two runs (when installed and ``wanted``) as a report section:
    the view's own rows, through its macro (the view picks the runs by role)."""
    if not wanted or not cur.execute("SELECT 1 FROM tracedb_object WHERE name = 'overall_comparison'").fetchone():
        return []
    cur.execute("SELECT * FROM overall_comparison_between(?, ?)", [baseline, comparison])
    return [("overall_comparison", [d[0] for d in cur.description], cur.fetchall())]


@dataclass(frozen=True)
class PairOptions:
    """How the pair is compared: the op name map, the steps compared, and the alignment's key,
    drill-down and top-level ops (``thread`` or ``msprof``, :data:`tracedb.compare.store.TOP_LEVELS`)."""

    name_map: Sequence[tuple[str, str]] = ()
    baseline_step: int | None = None
    comparison_step: int | None = None
    use_input_shape: bool = False
    max_kernel_num: int | None = None
    top_level: str = "thread"


def settle_pair(con: duckdb.DuckDBPyConnection, ids: dict[str, int], b_name: str, c_name: str,
                opts: PairOptions) -> int:
    """Roles, name map, steps and alignment of the pair, in one transaction; returns the
    alignment's rows.

    Raises:
        QueryError: a step the run does not have (nothing written).
    """
    with transaction(con):
        for role, run_id in (("baseline", ids["BASELINE"]), ("comparison", ids["COMPARISON"])):
            con.execute("UPDATE run SET role = NULL WHERE role = ? AND run_id <> ?", [role, run_id])
            con.execute("UPDATE run SET role = ? WHERE run_id = ?", [role, run_id])
        for a, b in opts.name_map:
            con.execute("DELETE FROM op_name_map WHERE baseline_name = ?", [a])
            con.execute("INSERT INTO op_name_map VALUES (?, ?)", [a, b])
        for run_id, name, step, flag in ((ids["BASELINE"], b_name, opts.baseline_step, "--baseline-step"),
                                         (ids["COMPARISON"], c_name, opts.comparison_step, "--comparison-step")):
            con.execute("DELETE FROM compare_step WHERE run_id = ?", [run_id])
            if step is None:
                continue
            if not con.execute("SELECT 1 FROM step WHERE run_id = ? AND step = ?", [run_id, step]).fetchone():
                have = [r[0] for r in con.execute("SELECT DISTINCT step FROM step WHERE run_id = ? ORDER BY 1",
                                                  [run_id]).fetchall()]
                raise QueryError(f"{flag} {step}: run {name} has no step {step}.",
                                 hint=f"its steps: {', '.join(map(str, have)) or 'none'}.")
            con.execute("INSERT INTO compare_step VALUES (?, ?)", [run_id, step])
        pairs = align(con, ids["BASELINE"], ids["COMPARISON"], use_input_shape=opts.use_input_shape,
                      max_kernel_num=opts.max_kernel_num, top_level=opts.top_level)
    return pairs


def op_diff_section(con: duckdb.DuckDBPyConnection, ids: dict[str, int], b_name: str, c_name: str, pairs: int,
             limit: int | None, progress: Callable[[str], None]) -> CompareReport:
    """The report of an aligned pair without overall_comparison: matched pairs and the first
    ``limit`` op_diff rows; a note for a run without framework ops."""
    report = CompareReport(b_name, c_name, pairs, 0)
    for name, run_id in ((b_name, ids["BASELINE"]), (c_name, ids["COMPARISON"])):
        if not con.execute("SELECT count(*) FROM op WHERE run_id = ?", [run_id]).fetchone()[0]:
            progress(f"note: run {name} has no framework ops (cpu_op events with flows to its kernels), so "
                     "op_diff, op_alignment, api_diff and memory_diff have nothing of it; kernel_diff and "
                     "communication_diff compare its kernels")
    report.matched = con.execute(
        "SELECT count(*) FROM op_match WHERE baseline_run_id = ? AND comparison_run_id = ? "
        "AND baseline_op_id IS NOT NULL AND comparison_op_id IS NOT NULL",
        [ids["BASELINE"], ids["COMPARISON"]]).fetchone()[0]
    cur = con.execute("SELECT * FROM op_diff")        # every row (op names: few): the name hints read them too
    columns, rows = [d[0] for d in cur.description], cur.fetchall()
    report.sections.append(("op_diff", columns, rows if limit is None else rows[:int(limit)]))
    report.notes = name_map_notes(con, columns, rows)
    return report



def step_counts(con: duckdb.DuckDBPyConnection, ids: dict[str, int]) -> tuple[int, int]:
    """The steps each run's capture holds (baseline, comparison)."""
    return tuple(con.execute("SELECT count(DISTINCT step) FROM step WHERE run_id = ?", [ids[side]]).fetchone()[0]
                 for side in ("BASELINE", "COMPARISON"))


def step_section(con: duckdb.DuckDBPyConnection, b_name: str, c_name: str) -> list:
    """step_comparison of the two runs (the compared steps: compare_step's), as a section."""
    if not con.execute("SELECT 1 FROM tracedb_object WHERE name = 'step_comparison'").fetchone():
        return []
    cur = con.execute("SELECT * FROM step_comparison_between(?, ?)", [b_name, c_name])
    return [("step_comparison", [d[0] for d in cur.description], cur.fetchall())]


def step_notes(report: CompareReport) -> list[str]:
    """The warning when the captures hold different numbers of steps and no step was chosen."""
    (b, c), (bs, cs) = report.steps, report.chosen
    if b == c or bs is not None or cs is not None:
        return []
    return [f"the captures hold different numbers of steps: {report.baseline} {b}, {report.comparison} {c}. "
            "overall_comparison adds up every step of each capture and op_diff every op; step_comparison "
            "compares the mean step. To compare one step with one step: --baseline-step N --comparison-step M"]


def name_map_notes(con: duckdb.DuckDBPyConnection, columns: list[str], rows: list[tuple]) -> list[str]:
    """A suggestion of --op-name-map items when ops that only one side has differ from an op of
    the other side only by a prefix the shipped name map knows (``autograd::engine::evaluate_function:
    `` of newer PyTorch versions) and an autograd node's version number (AddmmBackward,
    AddmmBackward0)."""
    prefixes = sorted({b[:-len(c)] for b, c in con.execute(
        "SELECT baseline_name, comparison_name FROM op_name_map").fetchall()
        if c and b.endswith(c) and len(b) > len(c)}, key=len, reverse=True)
    if not prefixes:
        return []

    def key(name: str) -> str:
        name = next((name[len(p):] for p in prefixes if name.startswith(p)), name)
        return _VERSION_SUFFIX.sub(r"\1", name)

    i, b, c = (columns.index(col) for col in ("op_name", "baseline_calls", "comparison_calls"))
    one_sided = [(r[i], r[b] > 0) for r in rows if not (r[b] > 0 and r[c] > 0)]
    comparison = {}
    for name, in_baseline in one_sided:
        if not in_baseline:
            comparison.setdefault(key(name), name)
    pairs = [(name, comparison[key(name)]) for name, in_baseline in one_sided
             if in_baseline and key(name) in comparison and comparison[key(name)] != name]
    if not pairs:
        return []
    items = "\n".join(f"  --op-name-map '{b}={c}'" for b, c in pairs[:NAME_HINTS])
    more = f"\n  … and {len(pairs) - NAME_HINTS} more" if len(pairs) > NAME_HINTS else ""
    return [f"{len(pairs)} op(s) that only one run has differ from an op of the other run only by the prefix "
            f"{prefixes[0]!r} or an autograd node's version number (PyTorch versions spell them differently); "
            f"to compare each pair as one op, pass (or put the A=B lines in a --op-name-map-file):\n{items}{more}"]


def _open(baseline: str, comparison: str, db, memory_limit: str | None):
    """(connection, vacuum setting to restore, seeded, (baseline name, is a path), (comparison …)).

    With a side to ingest, DuckDB opens the database and seeds a new one (tables and views
    copied from the cached template) in a helper thread, releasing the GIL, while this one
    detects the paths' formats; a refused path leaves no new file."""
    if not (os.path.exists(baseline) or os.path.exists(comparison)):
        sides = side_name(baseline), side_name(comparison)
        con = connect(db, must_exist=True, memory_limit=memory_limit)
        return (con, pause_vacuum(con), False, *sides)
    target = resolve_db_path(db)
    created = None if target.exists() else (target, wal_path(target).exists())
    with ThreadPoolExecutor(1, thread_name_prefix="tracedb-open") as opener:
        opening = opener.submit(open_seeded, db, memory_limit or DEFAULT_INGEST_MEMORY)
        try:
            sides = side_name(baseline), side_name(comparison)
        except BaseException:
            discard(opening, created)
            raise
    return (*opening.result(), *sides)


def _run_ids(con: duckdb.DuckDBPyConnection, b_name: str, c_name: str, db) -> dict[str, int]:
    """{"BASELINE": run_id, "COMPARISON": run_id} of the two runs.

    Raises:
        QueryError: a side is neither a path nor a run; both sides are the same run.
    """
    has_run = con.execute("SELECT count(*) FROM duckdb_tables() WHERE schema_name = 'main' "
                          "AND table_name = 'run'").fetchone()[0]
    ids = {}
    for name, flag in ((b_name, "BASELINE"), (c_name, "COMPARISON")):
        row = con.execute("SELECT run_id FROM run WHERE run_name = ?", [name]).fetchone() if has_run else None
        if row is None:
            raise QueryError(f"{flag} {name!r} is neither a path nor a run in the database.",
                             file=str(resolve_db_path(db)),
                             hint=f"runs: {', '.join(run_names(con) if has_run else []) or 'none yet'}; "
                                  "or give a profiler folder / trace file.")
        ids[flag] = row[0]
    if ids["BASELINE"] == ids["COMPARISON"]:
        raise QueryError(f"baseline and comparison are the same run ({b_name}).",
                         hint="compare two runs, e.g. tracedb compare gpu_run npu_run.")
    return ids


def _align_and_read(con: duckdb.DuckDBPyConnection, ids: dict[str, int], b_name: str, c_name: str,
                    opts: PairOptions, limit, progress, per_step: bool = False) -> CompareReport:
    """Settle and align the pair, then read op_diff, while a second connection reads
    overall_comparison for the two runs by name (it needs neither the roles nor the alignment;
    the alignment is Python on one core). step_comparison is read after the steps are settled:
    first, instead of overall_comparison, when a step is chosen or ``per_step``; after it when
    the captures hold different numbers of steps."""
    chosen = opts.baseline_step is not None or opts.comparison_step is not None or per_step
    with ThreadPoolExecutor(1, thread_name_prefix="tracedb-overall") as pool:
        cur = con.cursor()
        overall = pool.submit(overall_section, cur, b_name, c_name, not chosen)
        try:
            pairs = settle_pair(con, ids, b_name, c_name, opts)
            report = op_diff_section(con, ids, b_name, c_name, pairs, limit, progress)
            # the alignment is committed and no write transaction is open: the data goes
            # into the file while the other connection still reads overall_comparison; a
            # failure is a warning (committed, durable in the .wal)
            written = checkpoint(con, progress)
        except BaseException:
            cur.interrupt()
            raise
        finally:
            wait([overall])
            cur.close()
    if not written and overall.exception() is not None:
        return report       # the failed checkpoint invalidated the database under overall_comparison
    report.sections[:0] = overall.result()        # overall_comparison first, then op_diff
    report.steps, report.chosen, report.limit = step_counts(con, ids), (opts.baseline_step, opts.comparison_step), limit
    if chosen or report.steps[0] != report.steps[1]:
        report.sections[-1:-1] = step_section(con, b_name, c_name)
    report.notes = step_notes(report) + report.notes
    return report


def run_compare(baseline: str, comparison: str, db: str | Path | None = None, *,
                name_map: Sequence[tuple[str, str]] = (), use_input_shape: bool = False,
                max_kernel_num: int | None = None, baseline_step: int | None = None,
                comparison_step: int | None = None, limit: int | None = 20,
                progress: Callable[[str], None] = lambda s: None,
                memory_limit: str | None = None, per_step: bool = False,
                top_level: str = "thread") -> CompareReport:
    """Ingest the sides given as paths, set the roles, store the name map, the steps and the
    alignment (one transaction), and return overall_comparison (when installed) and op_diff.

    ``top_level``: the top-level ops aligned, tracedb's per host thread (``thread``) or
    msprof-analyze's over every thread (``msprof``: an op inside another thread's ``## backward
    ##`` annotation is not top level), see :data:`tracedb.compare.store.TOP_LEVELS`.

    ``per_step``: step_comparison (the mean compared step) instead of the whole-capture
    overall_comparison, as when a step is chosen. ``memory_limit`` is DuckDB's for the whole command (default when a side is a path:
    ``tracedb ingest``'s 1300MB; two sides ingested at the same time share it, see
    :func:`tracedb.compare.concurrency.ingest_sides`).

    Raises:
        QueryError: a side is neither a path nor a run; both sides are the same run; a step the
            run does not have.
        InputError: a path cannot be ingested (that side's ingest is rolled back).
    """
    if max_kernel_num is not None and max_kernel_num < 0:
        raise QueryError("--max-kernel-num must be 0 or more.")
    if top_level not in TOP_LEVELS:
        raise QueryError(f"unknown top level {top_level!r}.", hint=f"use one of {', '.join(TOP_LEVELS)}.")
    opts = PairOptions(tuple(name_map), baseline_step, comparison_step, use_input_shape, max_kernel_num, top_level)
    con, vacuum, seeded, (b_name, b_path), (c_name, c_path) = _open(baseline, comparison, db, memory_limit)
    if b_path and c_path and b_name == c_name:
        b_name, c_name = f"{b_name}_baseline", f"{c_name}_comparison"
    try:
        sides = [(arg, name, role) for arg, name, is_path, role in ((baseline, b_name, b_path, "baseline"),
                                                                    (comparison, c_name, c_path, "comparison"))
                 if is_path]
        # two of this command's threads run statements from here on: the two sides, then
        # overall_comparison beside the alignment and op_diff. DuckDB counts the thread that
        # runs a statement as one of its threads, so it gets one thread fewer meanwhile (once for
        # both: each change of the setting starts or stops a worker) and runs no more threads
        # than it was given (on 2 cores: each statement on the thread that runs it, without
        # hand-offs to a shared worker)
        threads = int(con.execute("SELECT current_setting('threads')").fetchone()[0])
        with threads_set(con, max(1, threads - 1)):
            ingest_sides(con, sides, progress, seeded, threads)
            ids = _run_ids(con, b_name, c_name, db)
            return _align_and_read(con, ids, b_name, c_name, opts, limit, progress, per_step)
    except duckdb.Error as e:
        raise out_of_memory(e) or storage_error(e, resolve_db_path(db), outcome=ROLLED_BACK) or TracedbError(
            f"compare failed: {str(e).splitlines()[0]}") from e
    except TracedbError as e:       # a reader's boundary would blame the input for a full disk
        if (fault := database_fault(e, resolve_db_path(db))) is None:
            raise
        raise storage_error(fault, resolve_db_path(db), outcome=ROLLED_BACK) from e
    finally:
        if vacuum is not None:
            try:
                con.execute(f"SET max_vacuum_tasks = {int(vacuum)}")
            except duckdb.Error:
                pass
        con.close()
