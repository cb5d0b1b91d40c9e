"""Ingest: detect → per-format reader → one transaction for the whole command.

A failure anywhere rolls the whole command back: the database is exactly as it was. A file
whose content (SHA-256) is already part of the run is skipped; ``replace=True`` re-ingests a
file whose content changed (same run, rank, format and path), dropping its old rows first.
"""
from __future__ import annotations

import datetime as _dt
import hashlib
import os
import time
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

import duckdb

from .. import registry
from ..progress import Bar, watch
from ..errors import InputError, TracedbError
from ..schema import apply_schema
from . import events as ev
from . import mindspore as ms
from . import kernels as kn
from .detect import RankInput, detect
from .jsonsource import event_array, is_gzip, object_span
from .communication import ingest_communication, ingest_communication_matrix
from .kernel_details import ingest_kernel_details
from .links import insert_links, set_link_steps
from .memory import INGESTORS as MEMORY_INGESTORS, insert_kineto_memory
from .metadata import fill_kineto_rank
from .step_trace import ingest_step_trace_time

ROLES = ("baseline", "comparison")
DATA_TABLES = ("event", "kernel", "link", "memory", "profiler_step_trace", "profiler_comm_op",
               "profiler_comm_bandwidth", "profiler_comm_matrix")


@dataclass
class IngestReport:
    """What one ingest command did."""

    runs: list[str] = field(default_factory=list)
    files_ingested: list[str] = field(default_factory=list)
    files_skipped: list[str] = field(default_factory=list)
    rows: dict[str, int] = field(default_factory=dict)
    seconds: float = 0.0
    bytes_read: int = 0

    def add(self, table: str, n: int) -> None:
        self.rows[table] = self.rows.get(table, 0) + n


def _now() -> str:
    return _dt.datetime.now(_dt.timezone.utc).replace(microsecond=0).isoformat()


def sha256_of(path: Path) -> str:
    h = hashlib.sha256()
    try:
        with open(path, "rb") as f:
            while chunk := f.read(1 << 22):
                h.update(chunk)
    except OSError as e:
        raise InputError(f"cannot read file: {e.strerror}", file=str(path)) from e
    return h.hexdigest()


# Kineto writes its metadata events (process and thread names) after all activities, at the
# end of traceEvents (every Kineto trace of the corpus); this much of the file's end is scanned.
KINETO_META_TAIL = 16 << 20


def scan(path: Path, tail: int | None = None) -> list[dict] | None:
    """The metadata events of an uncompressed trace file
    (:func:`tracedb.ingest.events.scan_metadata`) — of the whole file, or of its last ``tail``
    bytes; ``None`` for gzip files and unreadable ones (claim_file reports those)."""
    if is_gzip(path) or not os.access(path, os.R_OK):
        return None
    return ev.scan_metadata(path, 0 if tail is None else max(0, path.stat().st_size - tail))


class _Ingest:
    def __init__(self, con, run: str | None, role: str | None, replace: bool, progress: Callable[[str], None],
                 bar: Bar | None = None, split: bool = True):
        self.con = con
        self.split = split
        self.bar = bar
        self.run = run
        self.role = role
        self.replace = replace
        self.say = progress
        self.report = IngestReport()
        # hashes files while they are parsed (see claim_file); hashlib releases the GIL
        self.hasher = ThreadPoolExecutor(1, thread_name_prefix="tracedb-sha256")

    # -- runs, ranks, files ---------------------------------------------------------
    def run_id(self, name: str, platform: str, source: Path) -> int:
        row = self.con.execute("SELECT run_id FROM run WHERE run_name = ?", [name]).fetchone()
        if row:
            run_id = row[0]
        else:
            run_id = self.con.execute("SELECT coalesce(max(run_id), 0) + 1 FROM run").fetchone()[0]
            self.con.execute("INSERT INTO run VALUES (?, ?, NULL, ?, ?, ?)",
                             [run_id, name, platform, str(source.resolve()), _now()])
        if self.role:
            self.con.execute("UPDATE run SET role = NULL WHERE role = ? AND run_id <> ?", [self.role, run_id])
            self.con.execute("UPDATE run SET role = ? WHERE run_id = ?", [self.role, run_id])
        if name not in self.report.runs:
            self.report.runs.append(name)
        return run_id

    def upsert_rank(self, run_id: int, unit: RankInput) -> None:
        old = self.con.execute("SELECT device_id, world_size, profiler_level, framework_version FROM rank "
                               "WHERE run_id = ? AND rank = ?", [run_id, unit.rank]).fetchone()
        vals = [unit.device_id, unit.world_size, unit.profiler_level, unit.framework_version]
        if old:
            vals = [v if v is not None else o for v, o in zip(vals, old)]
            self.con.execute("DELETE FROM rank WHERE run_id = ? AND rank = ?", [run_id, unit.rank])
        self.con.execute("INSERT INTO rank VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                         [run_id, unit.rank, vals[0], unit.rank_source, vals[1], vals[2], vals[3],
                          str(unit.source.resolve())])

    def claim_file(self, run_id: int, rank: int | None, fmt: str,
                   path: Path) -> tuple[int | None, str | Future]:
        """Return (file_id, sha) for a new file, or (None, sha) if this run already has its content.

        A file can only repeat one of the run's files of the same format and size, so only then
        is its sha256 computed here; otherwise ``sha`` is a Future of it, computed on a second
        thread while the file is parsed (:meth:`record_file` waits for it; measured 0.75 s per GB
        alone, about 0.5 s of wall time saved per GB of trace on 2 cores)."""
        if not os.access(path, os.R_OK):
            raise InputError("cannot read file (permission denied).", file=str(path))
        same_size = self.con.execute("SELECT count(*) FROM source_file WHERE run_id = ? AND format = ? "
                                     "AND size_bytes = ?", [run_id, fmt, path.stat().st_size]).fetchone()[0]
        if same_size:
            sha = sha256_of(path)
            dup = self.con.execute("SELECT path FROM source_file WHERE run_id = ? AND format = ? AND sha256 = ? "
                                   "AND (? IS NULL OR rank = ?)", [run_id, fmt, sha, rank, rank]).fetchone()
            if dup:
                self.say(f"skip {path}: already ingested (same content as {dup[0]})")
                self.report.files_skipped.append(str(path))
                return None, sha
        else:
            sha = self.hasher.submit(sha256_of, path)
        if rank is not None:
            old = self.con.execute("SELECT file_id FROM source_file WHERE run_id = ? AND rank = ? AND format = ? "
                                   "AND path = ?", [run_id, rank, fmt, str(path.resolve())]).fetchone()
            if old:
                if not self.replace:
                    raise InputError("changed since it was ingested into this run.", file=str(path),
                                     hint="pass --replace to re-ingest it, or --run NAME for a new run.")
                self.drop_file(old[0])
        file_id = self.con.execute("SELECT coalesce(max(file_id), 0) + 1 FROM source_file").fetchone()[0]
        return file_id, sha

    def drop_file(self, file_id: int) -> None:
        for table in DATA_TABLES:
            self.con.execute(f"DELETE FROM {table} WHERE file_id = ?", [file_id])
        self.con.execute("DELETE FROM source_file WHERE file_id = ?", [file_id])

    def record_file(self, file_id: int, run_id: int, rank: int, fmt: str, path: Path, sha: str | Future,
                    rows: int) -> None:
        size = path.stat().st_size
        if isinstance(sha, Future):
            sha = sha.result()
        self.con.execute("INSERT INTO source_file VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                         [file_id, run_id, rank, fmt, str(path.resolve()), size, sha, rows, _now()])
        self.report.files_ingested.append(str(path))
        self.report.bytes_read += size

    def timed(self, path: Path, what: str):
        size = path.stat().st_size
        self.say(f"ingest {path} ({size / 1e6:.1f} MB, {what})")
        return time.perf_counter(), size

    def done(self, t0: float, size: int, rows: int, unit: str) -> None:
        dt = time.perf_counter() - t0
        rate = f", {size / 1e6 / dt:.0f} MB/s" if dt > 0.05 else ""
        self.say(f"  {rows:,} {unit} in {dt:.1f} s{rate}")

    def small_file(self, run_id: int, rank: int, fmt: str, path: Path, read: Callable, table: str) -> None:
        """Claim, read and record one file whose reader is ``read(con, path, run_id, rank,
        file_id) -> rows`` (CSVs and reference JSONs); skipped when already ingested."""
        file_id, sha = self.claim_file(run_id, rank, fmt, path)
        if file_id is not None:
            n = read(self.con, path, run_id, rank, file_id)
            self.record_file(file_id, run_id, rank, fmt, path, sha, n)
            self.report.add(table, n)

    # -- ranks ------------------------------------------------------------------------
    def ascend(self, run_id: int, unit: RankInput) -> None:
        """One Ascend rank folder. Order matters: the kernels of kernel_details.csv join the
        trace's tasks on in their INSERT, and the HCCL link tasks take their ops' steps from the
        kernels, so nothing new is UPDATEd (an UPDATE of rows of this transaction sends the whole
        table through the WAL at COMMIT: 1.2 s per 1 GB rank, measured)."""
        files = unit.files
        rank = unit.rank
        trace = None             # file_id of a trace_view.json ingested now
        if "trace_view" in files:
            path = files["trace_view"]
            file_id, sha = self.claim_file(run_id, rank, "trace_view", path)
            if file_id is not None:
                meta = scan(path)
                t0, size = self.timed(path, "trace_view")
                with event_array(path) as (read_path, _), watch(self.con, path.name, self.bar):
                    n = ev.insert_events(self.con, path, read_path, run_id, rank, file_id, split=self.split,
                                         meta=meta)
                ev.insert_steps(self.con, run_id, rank, file_id)
                dev = ev.npu_device_id(self.con, file_id)
                if dev is not None:
                    unit.device_id = dev
                self.record_file(file_id, run_id, rank, "trace_view", path, sha, n)
                self.report.add("event", n)
                self.done(t0, size, n, "events")
                trace = file_id
            else:
                self.backfill_links(run_id, rank, sha)
        new_kd = False
        if "kernel_details" in files:
            path = files["kernel_details"]
            file_id, sha = self.claim_file(run_id, rank, "kernel_details", path)
            if file_id is not None:
                t0, size = self.timed(path, "kernel_details")
                n = ingest_kernel_details(self.con, path, run_id, rank, file_id)
                # kernels derived from a trace earlier are replaced by the profiler's own table
                self.con.execute("DELETE FROM kernel WHERE run_id = ? AND rank = ? AND source = 'trace_view'",
                                 [run_id, rank])
                self.record_file(file_id, run_id, rank, "kernel_details", path, sha, n)
                self.report.add("kernel", n)
                self.done(t0, size, n, "kernels")
                new_kd = True
                if unit.device_id is None:
                    d = self.con.execute("SELECT min(device_id) FROM kernel WHERE file_id = ?", [file_id]).fetchone()[0]
                    unit.device_id = d
        if trace is not None:
            has_kd = new_kd or self.con.execute(
                "SELECT count(*) FROM kernel WHERE run_id = ? AND rank = ? AND source = 'kernel_details'",
                [run_id, rank]).fetchone()[0] > 0
            if not has_kd:
                n = kn.npu_kernels_from_trace(self.con, run_id, rank, trace, unit.device_id)
                self.say(f"  no kernel_details.csv: {n:,} kernels taken from trace_view.json tasks")
                self.report.add("kernel", n)
            elif not new_kd:
                kn.link_kernel_details_to_trace(self.con, run_id, rank)   # kernel_details came first
        kn.refresh_step_windows(self.con, run_id, rank)
        if trace is not None:
            links = insert_links(self.con, run_id, rank, trace)
            if links:
                self.say(f"  {links:,} HCCL link tasks")
                self.report.add("link", links)
        set_link_steps(self.con, run_id, rank)
        readers = [("step_trace_time", ingest_step_trace_time, "profiler_step_trace"),
                   ("communication", ingest_communication, "profiler_comm_op"),
                   ("communication_matrix", ingest_communication_matrix, "profiler_comm_matrix")]
        readers += [(fmt, read, "memory") for fmt, read in MEMORY_INGESTORS.items()]
        for fmt, read, table in readers:
            if fmt in files:
                self.small_file(run_id, rank, fmt, files[fmt], read, table)
        for meta in ("profiler_info", "profiler_metadata"):
            if meta in files:
                file_id, sha = self.claim_file(run_id, rank, meta, files[meta])
                if file_id is not None:
                    self.record_file(file_id, run_id, rank, meta, files[meta], sha, 0)
        self.upsert_rank(run_id, unit)

    def backfill_links(self, run_id: int, rank: int, sha: str) -> None:
        """A trace ingested by a tracedb older than the HCCL link ingest has events but no link
        rows: derive them now from its events (nothing to do when it has no Plane threads)."""
        row = self.con.execute("SELECT file_id FROM source_file WHERE run_id = ? AND rank = ? AND format = 'trace_view' "
                               "AND sha256 = ?", [run_id, rank, sha]).fetchone()
        if row is None or self.con.execute("SELECT count(*) FROM link WHERE file_id = ?", row).fetchone()[0]:
            return
        if self.con.execute("SELECT count(*) FROM (SELECT 1 FROM event WHERE file_id = ? AND thread_name LIKE 'Plane %' "
                            "LIMIT 1)", row).fetchone()[0]:
            n = insert_links(self.con, run_id, rank, row[0])
            self.say(f"  {n:,} HCCL link tasks added from the trace ingested earlier")
            self.report.add("link", n)

    def mindspore(self, run_id: int, unit: RankInput) -> None:
        """A rank of a MindSpore flat profiler/ folder: step_trace_raw first (the .trace files
        take their steps from its windows), then hccl_raw and the HCCL .trace files."""
        rank = unit.rank
        for fmt, read, table in (("step_trace_raw", ms.ingest_step_trace_raw, "step"),
                                 ("hccl_raw", ms.ingest_hccl_raw, "link")):
            if fmt in unit.files:
                self.small_file(run_id, rank, fmt, unit.files[fmt], read, table)
        for path in unit.timelines:
            # CANN msprof timeline slice: a JSON array in trace_view.json form (numeric ts)
            file_id, sha = self.claim_file(run_id, rank, "msprof_timeline", path)
            if file_id is not None:
                with event_array(path) as (read_path, _):
                    n = ev.insert_events(self.con, path, read_path, run_id, rank, file_id, split=False)
                links = insert_links(self.con, run_id, rank, file_id)
                self.record_file(file_id, run_id, rank, "msprof_timeline", path, sha, n)
                self.report.add("event", n)
                self.report.add("link", links)
        for op_tag, path in unit.hccl_traces:
            file_id, sha = self.claim_file(run_id, rank, "hccl_trace", path)
            if file_id is not None:
                n = ms.ingest_hccl_trace(self.con, path, op_tag, run_id, rank, file_id)
                dup = ms.same_execution(self.con, run_id, rank, file_id)
                if dup:
                    # the same HCCL execution exported twice (e.g. int and hex sizes): keep one
                    self.con.execute("DELETE FROM link WHERE file_id = ?", [file_id])
                    self.say(f"skip {path}: the same HCCL execution as {dup}")
                    self.report.files_skipped.append(str(path))
                    continue
                self.record_file(file_id, run_id, rank, "hccl_trace", path, sha, n)
                self.report.add("link", n)
        self.upsert_rank(run_id, unit)

    def kineto(self, run_id: int, unit: RankInput, taken: set[int]) -> None:
        path = unit.files["kineto"]
        file_id, sha = self.claim_file(run_id, None, "kineto", path)
        if file_id is None:
            return
        # only the file's end is scanned for metadata events (measured on 1 GB: 0.03 s instead of
        # 0.75 s); names of metadata found elsewhere are set after the read
        scanned = scan(path, KINETO_META_TAIL)
        t0, size = self.timed(path, "kineto")
        if self.con.execute("SELECT count(*) FROM source_file WHERE run_id = ? AND format = 'kineto' AND path = ?",
                            [run_id, str(path.resolve())]).fetchone()[0]:
            if not self.replace:
                raise InputError("changed since it was ingested into this run.", file=str(path),
                                 hint="pass --replace to re-ingest it, or --run NAME for a new run.")
            old = self.con.execute("SELECT file_id, rank FROM source_file WHERE run_id = ? AND format = 'kineto' "
                                   "AND path = ?", [run_id, str(path.resolve())]).fetchone()
            self.drop_file(old[0])
            taken.discard(old[1])
        if not is_gzip(path):
            # plain file: metadata (rank, base time) and the array's span from its head and tail,
            # then one INSERT of the array, in parallel slices
            meta, span = object_span(path)
            rank, base_ns = self._kineto_rank(unit, meta, taken, path)
            with watch(self.con, path.name, self.bar):
                n = ev.insert_events(self.con, path, None, run_id, rank, file_id, base_ns, split=self.split,
                                     span=span, meta=scanned)
        else:
            # gzip: stream the array through a FIFO under a placeholder rank; the metadata around it
            # is known at the end of the stream
            placeholder = -1 - file_id
            with event_array(path) as (read_path, feeder), watch(self.con, path.name, self.bar):
                try:
                    n = ev.insert_events(self.con, path, read_path, run_id, placeholder, file_id)
                except InputError:
                    if feeder is not None and feeder.error:
                        feeder.finish()   # the feeder's message is the precise one
                    raise
                meta = feeder.finish() if feeder is not None else {}
            rank, base_ns = self._kineto_rank(unit, meta, taken, path)
            self.con.execute("UPDATE event SET rank = ?, ts_ns = ts_ns + ? WHERE file_id = ?", [rank, base_ns, file_id])
        ev.insert_steps(self.con, run_id, rank, file_id)
        k = kn.kineto_kernels(self.con, run_id, rank, file_id)
        m = insert_kineto_memory(self.con, file_id)
        if m:
            self.report.add("memory", m)
        kn.refresh_step_windows(self.con, run_id, rank)
        if unit.device_id is None:
            unit.device_id = self.con.execute("SELECT min(device_id) FROM kernel WHERE file_id = ?",
                                              [file_id]).fetchone()[0]
        self.record_file(file_id, run_id, rank, "kineto", path, sha, n)
        self.report.add("event", n)
        self.report.add("kernel", k)
        self.done(t0, size, n, f"events, {k:,} kernels")
        self.upsert_rank(run_id, unit)

    def _kineto_rank(self, unit: RankInput, meta: dict, taken: set[int], path: Path) -> tuple[int, int]:
        """Rank (distributedInfo, file name, else the next free number) and baseTimeNanoseconds."""
        fill_kineto_rank(unit, meta)
        if unit.rank is None:
            unit.rank = min(set(range(len(taken) + 1)) - taken)
            unit.rank_source = "default"
        if unit.rank in taken:
            raise InputError(f"rank {unit.rank} of this run already has a trace.", file=str(path),
                             hint="ingest each run into its own --run NAME (one trace per rank).")
        taken.add(unit.rank)
        base = meta.get("baseTimeNanoseconds")
        base_ns = int(base) if isinstance(base, (int, float, str)) and str(base).strip().isdigit() else 0
        return unit.rank, base_ns

    def path(self, path: Path) -> None:
        run_input = detect(path)
        name = self.run or run_input.default_name
        platforms = {u.platform for u in run_input.ranks}
        run_id = self.run_id(name, "npu" if platforms == {"npu"} else ("gpu" if platforms == {"gpu"} else "mixed"),
                             path)
        taken = {r for (r,) in self.con.execute("SELECT rank FROM rank WHERE run_id = ?", [run_id]).fetchall()}
        ascend = [u for u in run_input.ranks if u.layout == "ascend"]
        seen: dict[int, Path] = {u.rank: u.source for u in ascend if u.rank is not None}
        for u in ascend:
            if u.rank is None:
                # no profiler_info and no rank in the name: 0, or the next free number in folder order
                u.rank = min(set(range(len(seen) + len(taken) + 1)) - set(seen) - taken)
                u.rank_source = "default"
                seen[u.rank] = u.source
                if len(ascend) > 1:
                    self.say(f"warning: {u.source}: no profiler_info_{{rank}}.json; using rank {u.rank}")
        seen = {}
        for u in ascend:
            if u.rank in seen:
                raise InputError(f"two rank folders resolve to rank {u.rank} (also {seen[u.rank]}).",
                                 file=str(u.source),
                                 hint="each rank folder needs its profiler_info_{rank}.json; "
                                      "ingest them as separate runs otherwise.")
            seen[u.rank] = u.source
        for u in ascend:
            self.ascend(run_id, u)
            taken.add(u.rank)
        for u in run_input.ranks:
            if u.layout == "mindspore":
                self.mindspore(run_id, u)
                taken.add(u.rank)
        for u in run_input.ranks:
            if u.layout == "kineto":
                self.kineto(run_id, u, taken)


def ingest(con: duckdb.DuckDBPyConnection, paths: list[str | Path], *, run: str | None = None,
           role: str | None = None, replace: bool = False,
           progress: Callable[[str], None] = lambda s: None, bar: Bar | None = None) -> IngestReport:
    """Ingest PATHs into the database in one transaction and install the view library.

    Args:
        con: read-write connection (see :func:`tracedb.db.connect`).
        paths: files or folders (see :func:`tracedb.ingest.detect.detect`).
        run: run name for every PATH (default: each PATH's folder name).
        role: ``baseline`` or ``comparison`` for the run(s) (moves the role from any other run).
        replace: re-ingest files whose content changed since they were ingested.
        progress: called with one line of progress text at a time (stderr in the CLI).
        bar: called with (file name, percent parsed) while a trace is parsed (a terminal bar).

    Returns:
        IngestReport (runs, files ingested/skipped, rows per table, seconds, bytes).

    Raises:
        InputError: bad input; nothing was written.
    """
    if role is not None and role not in ROLES:
        raise TracedbError(f"unknown role {role!r}; use baseline or comparison.")
    t0 = time.perf_counter()
    for split in (True, False):
        job = _Ingest(con, run, role, replace, progress, bar, split=split)
        con.execute("BEGIN TRANSACTION")
        try:
            apply_schema(con)
            for p in paths:
                job.path(Path(p))
            registry.install(con)
            con.execute("COMMIT")
            break
        except ev.SplitReadFailed:
            # DuckDB aborted the transaction: start again, reading every file in one piece
            con.execute("ROLLBACK")
            progress("parallel read failed; reading the files again in one piece")
        except BaseException:
            try:
                con.execute("ROLLBACK")
            except duckdb.Error:
                pass
            raise
        finally:
            job.hasher.shutdown(cancel_futures=True)
    con.execute("CHECKPOINT")
    job.report.seconds = time.perf_counter() - t0
    return job.report
