"""Ingest: detect → catalog + one reader per file → one derive step per rank, in one transaction.

A failure anywhere rolls the whole command back: the database is exactly as it was. One
command is one run (``--run``, else the common folder of the PATHs), unless ``run_per_path``.
Readers write only their own file's rows (:mod:`tracedb.ingest.readers`); the derive step
(:mod:`tracedb.ingest.derive`) then rebuilds, for every rank that got a file (right after its
files), what needs two files, so the result does not depend on the order the files arrive in.
"""
from __future__ import annotations

import os
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

from .. import registry
from ..db import duckdb, transaction   # duckdb: the engine module, see tracedb.db
from ..errors import InputError, TracedbError, out_of_memory
from ..progress import Bar
from ..schema import apply_schema
from . import derive, staging
from .catalog import ROLES, Catalog, rank_origin
from .detect import RankInput, detect
from .metadata import write_kineto_devices
from .readers import READERS, SplitReadFailed
from .readers.hccl_trace import same_execution
from .sources.errors import translate_read_error
from .sources import tempdirs
from .sources.file import SourceFile

# files whose reading is worth a progress line with size and speed
_TIMED = ("trace_view", "kineto", "kernel_details", "nsys", "mindspore_timeline", "ascend_db")


@dataclass
class IngestReport:
    """What one ingest command did."""

    runs: list[str] = field(default_factory=list)
    files_ingested: list[str] = field(default_factory=list)
    files_skipped: list[str] = field(default_factory=list)
    rows: dict[str, int] = field(default_factory=dict)
    seconds: float = 0.0

    def add(self, table: str, n: int) -> None:
        self.rows[table] = self.rows.get(table, 0) + n


@dataclass
class _Plan:
    run: str
    source: Path
    ranks: list[RankInput]


def plan_runs(paths: list[str | Path], run: str | None, run_per_path: bool) -> list[_Plan]:
    """Detect every PATH and group the ranks into runs: one run for the command (named ``run``,
    else the PATHs' common folder), or one per PATH when ``run_per_path``."""
    inputs = [detect(Path(p)) for p in paths]
    if run_per_path:
        return [_Plan(run or ri.default_name, Path(p), ri.ranks) for p, ri in zip(paths, inputs)]
    name = run
    if name is None:
        folders = {ri.folder for ri in inputs}
        name = inputs[0].default_name
        if len(folders) > 1 and None not in folders:
            name = Path(os.path.commonpath([str(f) for f in folders])).name or name
    return [_Plan(name, Path(paths[0]), [u for ri in inputs for u in ri.ranks])]


def input_size(paths: list[str | Path]) -> tuple[int, int]:
    """(files, bytes) an ingest of PATHS reads; the files are the most file ids it can take.

    Raises:
        InputError: a PATH is not a profiler output tracedb reads.
    """
    files = [path for plan in plan_runs(paths, None, False) for u in plan.ranks for _, path, _ in _files(u)]
    return len(files), sum(p.stat().st_size for p in files)


def _files(unit: RankInput) -> list[tuple[str, Path, str | None]]:
    """(format, path, op tag) of every file of a rank."""
    out = [(fmt, path, None) for fmt, path in unit.files.items()]
    out += [("msprof_timeline", path, None) for path in unit.timelines]
    out += [("hccl_trace", path, tag) for tag, path in unit.hccl_traces]
    return out


class _Command:
    """One attempt at an ingest command inside its transaction."""

    def __init__(self, con, catalog: Catalog, report: IngestReport, say: Callable[[str], None],
                 bar: Bar | None, split: bool, step_range_pattern: str | None = None, jobs: int = 1):
        self.con, self.catalog, self.report, self.say, self.bar, self.split = con, catalog, report, say, bar, split
        self.step_range_pattern = step_range_pattern
        self.jobs = jobs
        self.staging_folder: Path | None = None
        self.attached: list[str] = []

    def cleanup(self) -> None:
        """Detach and remove the staging files (after COMMIT or ROLLBACK)."""
        staging.cleanup(self.con, self.attached, self.staging_folder)
        self.attached, self.staging_folder = [], None

    def run(self, plan: _Plan, role: str | None, allow_mixed: bool) -> set[tuple[int, int]]:
        platforms = {u.platform for u in plan.ranks}
        if len(platforms) > 1 and not allow_mixed:
            raise InputError("this input holds GPU and NPU ranks; a run holds one platform.", file=str(plan.source),
                             hint="ingest them as separate runs (--run-per-path or --run NAME), "
                                  "or pass --allow-mixed-platforms.")
        platform = platforms.pop() if len(platforms) == 1 else "mixed"
        run_id = self.catalog.run_id(plan.run, platform, plan.source, role, allow_mixed)
        self.catalog.number_ranks(run_id, plan.ranks)
        if plan.run not in self.report.runs:
            self.report.runs.append(plan.run)
        touched = set()
        parallel = self.parallel_units(run_id, plan.ranks)
        if parallel:
            touched |= self.run_parallel(run_id, plan.run, parallel)
        done = {id(u) for u in parallel}
        for unit in plan.ranks:
            if id(unit) in done:
                continue
            if self.rank(run_id, plan.run, unit) or (run_id, unit.rank) in self.catalog.dropped_ranks:
                # derived right after its files: the staging rows of a rank go with its derive
                self.derive(run_id, unit)
                touched.add((run_id, unit.rank))
        return touched

    def parallel_units(self, run_id: int, units: list[RankInput]) -> list[RankInput]:
        """The ranks that go to staging workers (see :mod:`tracedb.ingest.staging`): with
        ``jobs`` > 1 and at least two of them, the ranks this run does not hold yet whose rank
        number is known before reading (not Kineto traces)."""
        if self.jobs <= 1 or self.catalog.replace:
            return []
        held = self.catalog.taken_ranks(run_id) | {r for (r,) in self.con.execute(
            "SELECT DISTINCT rank FROM source_file WHERE run_id = ? AND rank IS NOT NULL", [run_id]).fetchall()}
        units = [u for u in units if u.rank is not None and u.layout != "kineto" and "kineto" not in u.files
                 and u.rank not in held]
        return units if len(units) >= 2 else []

    def run_parallel(self, run_id: int, run_name: str, units: list[RankInput]) -> set[tuple[int, int]]:
        """Ingest new ranks in worker processes, then publish their staging files here."""
        if self.staging_folder is None:
            self.staging_folder = staging.staging_dir(self.con)
        folder = self.staging_folder
        threads, memory = staging.worker_settings(self.con, self.jobs)
        run_row = tuple(self.con.execute("SELECT run_id, run_name, role, platform, source_path, ingested_at "
                                         "FROM run WHERE run_id = ?", [run_id]).fetchone())
        rules = folder / f"rules_{run_id}.parquet"
        self.con.execute(f"COPY kernel_class_rule TO '{str(rules).replace(chr(39), chr(39) * 2)}' (FORMAT parquet)")
        floor = self.catalog.top_file_id()
        jobs = []
        for unit in units:
            jobs.append(staging.StagingJob(str(folder / f"run{run_id}_rank{unit.rank}.duckdb"), run_id, run_name,
                                           run_row, unit, floor, str(rules), threads, memory,
                                           self.step_range_pattern))
            floor += len(_files(unit))
        self.say(f"run {run_name}: {len(units)} new ranks in {min(self.jobs, len(units))} worker processes "
                 f"({threads} thread(s), memory limit {memory} each)")
        results = staging.run_workers(jobs, self.jobs, on_done=lambda r: [self.say(m) for m in r.messages])
        self.attached += staging.publish(self.con, results)
        self.catalog.forget_files()
        touched = set()
        for unit, r in zip(units, results):
            unit.rank = r.rank
            self.report.files_ingested += r.files_ingested
            self.report.files_skipped += r.files_skipped
            for table, n in r.rows.items():
                self.report.add(table, n)
            if r.new:
                touched.add((run_id, r.rank))
        return touched

    def rank(self, run_id: int, run_name: str, unit: RankInput) -> bool:
        """Read the new files of one rank; True if any."""
        new = False
        for fmt, path, op_tag in _files(unit):
            claim = self.catalog.claim(run_id, None if fmt == "kineto" else unit.rank, fmt, path)
            if claim is None:
                continue
            f = SourceFile(claim.file_id, run_id, unit.rank, fmt, path, framework=unit.framework, op_tag=op_tag,
                           split=self.split, bar=self.bar, step_range_pattern=self.step_range_pattern,
                           assign_rank=lambda meta, fid=claim.file_id: self.kineto_meta(run_id, unit, fid, meta))
            n = self.read(f)
            if unit.rank is None or fmt == "kineto":
                unit.rank = f.rank
                self.catalog.settle(run_id, unit.rank, fmt, path)
            if fmt == "hccl_trace" and (dup := same_execution(self.con, run_id, unit.rank, f.file_id)):
                # the same HCCL execution exported twice (e.g. int and hex sizes): keep one
                self.con.execute("DELETE FROM link WHERE file_id = ?", [f.file_id])
                self.say(f"skip {path}: the same HCCL execution as {dup}")
                self.report.files_skipped.append(str(path))
                continue
            self.catalog.record(claim, run_id, unit.rank, fmt, path, n)
            self.report.files_ingested.append(str(path))
            if n:
                self.report.add(READERS[fmt].table, n)
            new = True
        if new:
            self.say(f"run {run_name}: rank {unit.rank} ({rank_origin(unit)}): {unit.source}")
            self.catalog.upsert_rank(run_id, unit)
        return new

    def kineto_meta(self, run_id: int, unit: RankInput, file_id: int, meta: dict) -> int:
        """A Kineto trace's top-level keys, once its reader has them: the rank (catalog) and
        the trace's own ``device`` rows (deviceProperties); returns the rank."""
        rank = self.catalog.kineto_rank(run_id, unit, meta)
        write_kineto_devices(self.con, file_id, run_id, rank, meta)
        return rank

    def derive(self, run_id: int, unit: RankInput) -> None:
        """The derive step of a rank; a failure (values the files allow but SQL cannot combine)
        becomes an InputError naming the rank's input."""
        try:
            derive.run(self.con, run_id, unit.rank)
        except duckdb.Error as e:
            if (oom := out_of_memory(e, str(unit.source))) is not None:
                raise oom from e
            raise InputError(f"cannot combine the files of rank {unit.rank}: {str(e).splitlines()[0]}",
                             file=str(unit.source), hint="a file of this rank holds values out of range; "
                                                         "re-export it from the profiler.") from e

    def read(self, f: SourceFile) -> int:
        """Run the file's reader; any failure becomes an InputError naming the file."""
        timed = f.format in _TIMED
        if timed:
            size = f.path.stat().st_size
            self.say(f"ingest {f.path} ({size / 1e6:.1f} MB, {f.format})")
            t0 = time.perf_counter()
        try:
            n = READERS[f.format].read(self.con, f)
        except (TracedbError, SplitReadFailed):
            raise
        except duckdb.Error as e:
            raise translate_read_error(e, str(f.path)) from e
        except Exception as e:   # noqa: BLE001 - the one error boundary of every reader
            raise InputError(f"cannot read: {type(e).__name__}: {str(e).splitlines()[0] if str(e) else ''}",
                             file=str(f.path), hint="the file is malformed; re-export it from the profiler.") from e
        if timed:
            dt = time.perf_counter() - t0
            rate = f", {size / 1e6 / dt:.0f} MB/s" if dt > 0.05 else ""
            self.say(f"  {n:,} rows in {dt:.1f} s{rate}")
        return n


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


def _checkpoint(con, progress: Callable[[str], None]) -> None:
    """CHECKPOINT after COMMIT, best effort: the data is committed (durable in the WAL) either way."""
    try:
        con.execute("CHECKPOINT")
    except duckdb.Error as e:
        progress(f"warning: the data is committed, but writing it into the database file failed "
                 f"({str(e).splitlines()[0]}); DuckDB completes it from the .wal file at the next open.")


def ingest(con: duckdb.DuckDBPyConnection, paths: list[str | Path], *, run: str | None = None,
           role: str | None = None, replace: bool = False, run_per_path: bool = False,
           allow_mixed_platforms: bool = False, progress: Callable[[str], None] = lambda s: None,
           bar: Bar | None = None, step_range_pattern: str | None = None, jobs: int | None = None,
           checkpoint: bool = True, id_floor: tuple[int, int] = (0, 0),
           schema_current: bool = False) -> IngestReport:
    """Ingest PATHs into the database in one transaction and install the view library.

    Args:
        con: read-write connection (see :func:`tracedb.db.connect`).
        paths: files or folders (see :func:`tracedb.ingest.detect.detect`).
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
            returning; False leaves that to the caller (``tracedb compare`` checkpoints once
            after both sides and the alignment).
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
    for split in (True, False):
        report = IngestReport()
        plans = plan_runs(paths, run, run_per_path)
        catalog = Catalog(con, replace=replace, say=progress, run_id_floor=id_floor[0], file_id_floor=id_floor[1])
        command = None
        try:
            with transaction(con):
                if not schema_current:
                    apply_schema(con)
                derive.install_session(con)
                command = _Command(con, catalog, report, progress, bar, split, step_range_pattern, jobs)
                touched = set()
                for plan in plans:
                    touched |= command.run(plan, role, allow_mixed_platforms)
                _derived_rows(con, touched, report)
                report.files_skipped += catalog.skipped
                if not schema_current:
                    registry.install_if_changed(con)
            break
        except SplitReadFailed:
            # DuckDB aborted the transaction (rolled back): start again, reading every file in one piece
            progress("parallel read failed; reading the files again in one piece")
        finally:
            catalog.close()
            if command is not None:
                command.cleanup()
    if checkpoint:
        _checkpoint(con, progress)
    report.seconds = time.perf_counter() - t0
    return report
