"""``tracedb compare``: ingest the sides given as paths, set the baseline/comparison pair, align
their framework ops (:mod:`tracedb.compare.store`), and return overall_comparison and op_diff.

Everything but the op alignment is SQL; the threads that run the sides and the views side by
side are :mod:`tracedb.compare.concurrency`'s.
"""
from __future__ import annotations

import os
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
from .store import align


ROLLED_BACK = "the step that failed was rolled back (a side ingested before it stays)"


@dataclass
class CompareReport:
    baseline: str
    comparison: str
    pairs: int
    matched: int
    sections: list = field(default_factory=list)     # (view name, columns, rows)



def side_name(arg: str) -> tuple[str, bool]:
    """(run name, is a path): a path that exists is ingested under its default run name (the
    folder name)."""
    if not os.path.exists(arg):
        return arg, False
    return detect(Path(arg)).default_name, True


def overall_section(cur: duckdb.DuckDBPyConnection, baseline: str, comparison: str) -> list:
    """overall_comparison of the two runs (when installed) as a report section: the view's
    own rows, through its macro (the view picks the runs by role)."""
    if not cur.execute("SELECT 1 FROM tracedb_object WHERE name = 'overall_comparison'").fetchone():
        return []
    cur.execute("SELECT * FROM overall_comparison_between(?, ?)", [baseline, comparison])
    return [("overall_comparison", [d[0] for d in cur.description], cur.fetchall())]


def settle_pair(con: duckdb.DuckDBPyConnection, ids: dict[str, int], b_name: str, c_name: str,
                 name_map: Sequence[tuple[str, str]], baseline_step: int | None, comparison_step: int | None,
                 use_input_shape: bool, max_kernel_num: int | None) -> int:
    """Roles, name map, steps and alignment of the pair, in one transaction; returns the
    alignment's rows.

    Raises:
        QueryError: a step the run does not have (nothing written).
    """
    with transaction(con):
        for role, run_id in (("baseline", ids["BASELINE"]), ("comparison", ids["COMPARISON"])):
            con.execute("UPDATE run SET role = NULL WHERE role = ? AND run_id <> ?", [role, run_id])
            con.execute("UPDATE run SET role = ? WHERE run_id = ?", [role, run_id])
        for a, b in name_map:
            con.execute("DELETE FROM op_name_map WHERE baseline_name = ?", [a])
            con.execute("INSERT INTO op_name_map VALUES (?, ?)", [a, b])
        for run_id, name, step, flag in ((ids["BASELINE"], b_name, baseline_step, "--baseline-step"),
                                         (ids["COMPARISON"], c_name, comparison_step, "--comparison-step")):
            con.execute("DELETE FROM compare_step WHERE run_id = ?", [run_id])
            if step is None:
                continue
            if not con.execute("SELECT 1 FROM step WHERE run_id = ? AND step = ?", [run_id, step]).fetchone():
                have = [r[0] for r in con.execute("SELECT DISTINCT step FROM step WHERE run_id = ? ORDER BY 1",
                                                  [run_id]).fetchall()]
                raise QueryError(f"{flag} {step}: run {name} has no step {step}.",
                                 hint=f"its steps: {', '.join(map(str, have)) or 'none'}.")
            con.execute("INSERT INTO compare_step VALUES (?, ?)", [run_id, step])
        pairs = align(con, ids["BASELINE"], ids["COMPARISON"], use_input_shape=use_input_shape,
                      max_kernel_num=max_kernel_num)
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
    cur = con.execute("SELECT * FROM op_diff" + (f" LIMIT {int(limit)}" if limit is not None else ""))
    report.sections.append(("op_diff", [d[0] for d in cur.description], cur.fetchall()))
    return report



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
                    name_map, baseline_step, comparison_step, use_input_shape, max_kernel_num, limit,
                    progress) -> CompareReport:
    """Settle and align the pair, then read op_diff, while a second connection reads
    overall_comparison for the two runs by name (it needs neither the roles nor the alignment;
    the alignment is Python on one core)."""
    with ThreadPoolExecutor(1, thread_name_prefix="tracedb-overall") as pool:
        cur = con.cursor()
        overall = pool.submit(overall_section, cur, b_name, c_name)
        try:
            pairs = settle_pair(con, ids, b_name, c_name, name_map, baseline_step, comparison_step,
                                use_input_shape, max_kernel_num)
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
    return report


def run_compare(baseline: str, comparison: str, db: str | Path | None = None, *,
                name_map: Sequence[tuple[str, str]] = (), use_input_shape: bool = False,
                max_kernel_num: int | None = None, baseline_step: int | None = None,
                comparison_step: int | None = None, limit: int | None = 20,
                progress: Callable[[str], None] = lambda s: None,
                memory_limit: str | None = None) -> CompareReport:
    """Ingest the sides given as paths, set the roles, store the name map, the steps and the
    alignment (one transaction), and return overall_comparison (when installed) and op_diff.

    ``memory_limit`` is DuckDB's for the whole command (default when a side is a path:
    ``tracedb ingest``'s 1300MB; two sides ingested at the same time share it, see
    :func:`tracedb.compare.concurrency.ingest_sides`).

    Raises:
        QueryError: a side is neither a path nor a run; both sides are the same run; a step the
            run does not have.
        InputError: a path cannot be ingested (that side's ingest is rolled back).
    """
    if max_kernel_num is not None and max_kernel_num < 0:
        raise QueryError("--max-kernel-num must be 0 or more.")
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
            return _align_and_read(con, ids, b_name, c_name, name_map, baseline_step, comparison_step,
                                   use_input_shape, max_kernel_num, limit, progress)
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
