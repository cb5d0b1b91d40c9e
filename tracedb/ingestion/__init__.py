"""Ingest: detect → catalog + the readers → the derive steps once per batch of ranks, in one transaction.

A failure anywhere rolls the whole command back: the database is exactly as it was. One
command is one run (``--run``, else the common folder of the PATHs), unless ``run_per_path``.
Readers write only their own file's rows (:mod:`tracedb.ingestion.readers`; the trace_view.json
and kernel_details.csv files of a batch of ranks in one statement each, :data:`.readers.SET_READERS`);
the derive step (:mod:`tracedb.ingestion.derive`) then rebuilds, once over the ranks of the batch
that got a file (right after their files), what needs two files, so the result does not depend
on the order the files arrive in. Batches hold up to the memory limit's bytes of input
(:func:`batch_bytes`); ``TRACEDB_INGEST_PER_RANK=1`` reads and derives one rank at a time.
:mod:`tracedb.ingestion.command` reads a batch, :mod:`tracedb.ingestion.staging` runs ranks in worker
processes (``--jobs``).
"""
from __future__ import annotations

import os
import time
from pathlib import Path
from typing import Callable

from ..engine import duckdb
from ..errors import InputError, TracedbError
from ..progress import Bar
from ..store import library
from ..store.db import transaction
from ..store.faults import checkpoint as checkpoint_after_commit
from . import derive
from .catalog import ROLES, Catalog
from .command import Command, DeriveFailed, IngestReport, Plan, plan_runs, rank_files
from .detect import RankInput
from .readers import SplitReadFailed
from .sources import tempdirs
from .staging import Staging, setting_bytes

# the batch size when the memory limit is not a size
DEFAULT_BATCH = 1 << 30

__all__ = ["IngestReport", "default_jobs", "ingest", "input_size", "plan_runs", "rank_files"]


def input_size(paths: list[str | Path]) -> tuple[int, int]:
    """(files, bytes) an ingest of PATHS reads; the files are the most file ids it can take.

    Raises:
        InputError: a PATH is not a profiler output tracedb reads.
    """
    files = [path for plan in plan_runs(paths, None, False) for u in plan.ranks for _, path, _ in rank_files(u)]
    return len(files), sum(p.stat().st_size for p in files)


def run_plan(command: Command, staging: Staging, plan: Plan, role: str | None,
             allow_mixed: bool) -> set[tuple[int, int]]:
    """Read one run's new ranks (workers for those :class:`Staging` takes, the rest here) and
    derive them: a batch of ranks at a time (:func:`batches`), one derive over each batch, or
    (``command.batch_bytes`` 0) each rank right after its files. Returns the (run_id, rank)
    pairs rebuilt."""
    platforms = {u.platform for u in plan.ranks}
    if len(platforms) > 1 and not allow_mixed:
        raise InputError("this input holds GPU and NPU ranks; a run holds one platform.", file=str(plan.source),
                         hint="ingest them as separate runs (--run-per-path or --run NAME), "
                              "or pass --allow-mixed-platforms.")
    platform = platforms.pop() if len(platforms) == 1 else "mixed"
    run_id = command.catalog.run_id(plan.run, platform, plan.source, role, allow_mixed)
    command.catalog.number_ranks(run_id, plan.ranks)
    if plan.run not in command.report.runs:
        command.report.runs.append(plan.run)
    touched = set()
    parallel = staging.parallel_units(run_id, plan.ranks)
    if parallel:
        touched |= staging.run(run_id, plan.run, parallel)
    done = {id(u) for u in parallel}
    for batch in batches([u for u in plan.ranks if id(u) not in done], command.batch_bytes):
        new = {id(u) for u in command.ranks(run_id, plan.run, batch)}
        read = [u for u in batch if id(u) in new or (run_id, u.rank) in command.catalog.dropped_ranks]
        # derived right after its batch's files: the staging rows of a rank go with its derive
        command.derive(run_id, read)
        touched |= {(run_id, u.rank) for u in read}
    return touched


def batches(units: list[RankInput], limit: int) -> list[list[RankInput]]:
    """The ranks in batches of at most ``limit`` bytes of input each (a rank larger than that is a
    batch of its own; ``limit`` 0: one rank per batch), in their order."""
    out: list[list[RankInput]] = []
    size = 0
    for unit in units:
        n = sum(path.stat().st_size for _f, path, _t in rank_files(unit) if path.exists())
        if not out or not limit or size + n > limit:
            out.append([])
            size = 0
        out[-1].append(unit)
        size += n
    return out


def batch_bytes(con) -> int:
    """Input bytes of a batch of ranks read and derived together: the connection's memory limit
    (a batch's derive steps hold about what one rank of that size holds; bench/RESULTS.md), at
    least 64 MiB."""
    limit = setting_bytes(str(con.execute("SELECT current_setting('memory_limit')").fetchone()[0]))
    return max(limit or DEFAULT_BATCH, 64 << 20)


def default_jobs() -> int:
    """Worker processes of an ingest when ``jobs`` is not given: one per two cores.

    One rank's reader already keeps two threads busy (DuckDB parses a large trace in slices),
    and a worker pays for the copy into the database at publish: on 2 idle cores, 2 workers
    took 0.93x the wall time of 1 for 1.32x the CPU (8 ranks of 50 MB, bench/RESULTS.md), so
    2 cores get 1 worker, i.e. the ranks one after another in this process."""
    return max(1, (os.cpu_count() or 1) // 2)


def _derived_rows(con, ranks: set[tuple[int, int]], report: IngestReport) -> None:
    """Rows of the derived tables of the ranks this command rebuilt."""
    if not ranks:
        return
    keys = ", ".join(f"({int(r)}, {int(k)})" for r, k in sorted(ranks))
    tables = ("kernel", "link", "step")
    counts = con.execute("SELECT " + ", ".join(f"(SELECT count(*) FROM {t} WHERE (run_id, rank) IN ({keys}))"
                                               for t in tables)).fetchone()
    for table, n in zip(tables, counts):
        if n:
            report.rows[table] = n


def _run_plans(command: Command, staging: Staging, plans: list[Plan], role: str | None, allow_mixed: bool,
               schema_current: bool) -> None:
    """Read and derive every run of ``plans``; count the rows; install the view library."""
    touched = set()
    for plan in plans:
        touched |= run_plan(command, staging, plan, role, allow_mixed)
    _derived_rows(command.con, touched, command.report)
    command.report.files_skipped += command.catalog.skipped
    if not schema_current:
        library.install_if_changed(command.con)


def _interrupted(e: BaseException | None) -> bool:
    """True when ``e`` or an error it was raised from is an interrupt (Ctrl-C, SIGTERM, SIGHUP:
    a KeyboardInterrupt that DuckDB turns into its InterruptException, which a reader may wrap
    in an InputError)."""
    seen = 0
    while e is not None and seen < 8:
        if isinstance(e, (KeyboardInterrupt, duckdb.InterruptException)) or "interrupted" in str(e).lower():
            return True
        e, seen = e.__cause__ or e.__context__, seen + 1
    return False


def _again(e: Exception, batch: int, progress: Callable[[str], None]) -> None:
    """After a failed attempt (rolled back): say why the ingest runs again the careful way, or
    raise ``e`` when the attempt was already that one or the user interrupted it."""
    if _interrupted(e):
        raise e
    if isinstance(e, SplitReadFailed):
        # DuckDB aborted the transaction: start again, reading every file in one piece
        progress("parallel read failed; reading the files again in one piece")
    elif isinstance(e, DeriveFailed):
        progress("deriving a batch of ranks failed; reading and deriving them again rank by rank")
    elif batch:
        # a bad file read with its batch's others: the error of the file-by-file reading,
        # which names the first bad file in rank order, is the one to give
        progress("a file is bad; reading the files again rank by rank to name the first bad one")
    else:
        raise e


def ingest(con: duckdb.DuckDBPyConnection, paths: list[str | Path], *, run: str | None = None,
           role: str | None = None, replace: bool = False, run_per_path: bool = False,
           allow_mixed_platforms: bool = False, progress: Callable[[str], None] = lambda s: None,
           bar: Bar | None = None, step_range_pattern: str | None = None, jobs: int | None = None,
           checkpoint: bool = True, id_floor: tuple[int, int] = (0, 0),
           schema_current: bool = False) -> IngestReport:
    """Ingest PATHs into the database in one transaction and install the view library.

    Args:
        con: read-write connection (see :func:`tracedb.store.db.connect`).
        paths: files or folders (see :func:`tracedb.ingestion.detect.detect`).
        run: run name (default: the name of the PATHs' common folder).
        role: ``baseline`` or ``comparison`` for the run(s) (moves the role from any other run).
        replace: replace a recorded file by a different one of the same rank and format.
        run_per_path: one run per PATH (named after it) instead of one for the command.
        allow_mixed_platforms: let a run hold GPU and NPU ranks.
        progress: called with one line of progress text at a time (stderr in the CLI).
        bar: called with (file name, percent parsed) while a trace is parsed (a terminal bar).
        step_range_pattern: regular expression (RE2) for the Nsight NVTX ranges that mark steps
            (group 1 = step number); default ``^ProfilerStep#(\\d+)$``.
        jobs: worker processes for the new ranks of a run (default :func:`default_jobs`); each
            gets ``memory_limit / jobs`` and ``threads / jobs`` of the connection's settings;
            1 reads every rank in this process, one after another.
        checkpoint: write the committed data into the database file (CHECKPOINT) before
            returning; False leaves that to the caller (``tracedb ingest`` checkpoints after the
            role pair's alignment, ``tracedb compare`` once after both sides and the alignment).
            A failed CHECKPOINT is a warning through ``progress`` (the data is committed) and may
            leave the connection invalidated: close it without running anything else.
        id_floor: new run ids above the first number, new file ids above the second: for an
            ingest running at the same time as another on this database (its transaction does
            not see the other's ids; ``tracedb compare`` gives its second side the ids above
            the first side's, see :func:`input_size`).
        schema_current: the caller has just made the database's tables and view library
            current (committed), so this ingest does not check them again (``tracedb compare``
            does it once for its two sides).

    Returns:
        IngestReport (runs, files ingested/skipped, rows per table, seconds).

    Raises:
        InputError: bad input, or a second capture for a (run, rank); nothing was written.
    """
    if role is not None and role not in ROLES:
        raise TracedbError(f"unknown role {role!r}; use baseline or comparison.")
    if run is not None and run_per_path and len(paths) > 1:
        raise TracedbError("--run names one run; --run-per-path makes one run per PATH: pass one of them.")
    t0 = time.perf_counter()
    tempdirs.sweep()        # reader folders left in $TMPDIR by killed processes
    jobs = default_jobs() if jobs is None else max(1, int(jobs))
    # first attempt: ranks in batches, large arrays in parallel slices; if it fails on the input
    # (DuckDB aborts the transaction on its own errors), again the careful way, rank by rank and
    # file by file, each in one piece, which names the file or the rank as it always did
    batch = 0 if os.environ.get("TRACEDB_INGEST_PER_RANK") else batch_bytes(con)
    for split, batch in ((True, batch), (False, 0)):
        report = IngestReport()
        plans = plan_runs(paths, run, run_per_path)
        catalog = Catalog(con, replace=replace, say=progress, run_id_floor=id_floor[0], file_id_floor=id_floor[1])
        staging = None
        try:
            with transaction(con):
                if not schema_current:
                    derive.upgrade(con)
                derive.install_session(con)
                command = Command(con, catalog, report, progress, bar, split, step_range_pattern, batch)
                staging = Staging(command, jobs)
                _run_plans(command, staging, plans, role, allow_mixed_platforms, schema_current)
            break
        except (SplitReadFailed, DeriveFailed, InputError) as e:
            _again(e, batch, progress)
        finally:
            catalog.close()
            if staging is not None:
                staging.cleanup()
    if checkpoint:
        checkpoint_after_commit(con, progress)
    report.seconds = time.perf_counter() - t0
    return report
