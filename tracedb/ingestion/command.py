"""One ingest command's work inside its transaction: claim each file of a rank in the catalog,
run its reader, record it; the derive step of a batch of ranks. :mod:`tracedb.ingestion` runs
it batch by batch; :mod:`tracedb.ingestion.staging` runs it in a worker process per rank."""
from __future__ import annotations

import os
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

from ..engine import duckdb
from ..errors import InputError, TracedbError, out_of_memory
from ..progress import Bar
from ..store.faults import storage_cause
from . import derive
from .catalog import Catalog, rank_origin
from .detect import RankInput, detect
from .metadata import write_kineto_devices
from .readers import READERS, SET_READERS, SplitReadFailed
from .readers.hccl_trace import same_execution
from .sources.errors import translate_read_error
from .sources.file import SourceFile

# files whose reading is worth a progress line with size and speed
TIMED = ("trace_view", "kineto", "kernel_details", "nsys", "mindspore_timeline", "ascend_db")


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
class Plan:
    run: str
    source: Path
    ranks: list[RankInput]


def plan_runs(paths: list[str | Path], run: str | None, run_per_path: bool) -> list[Plan]:
    """Detect every PATH and group the ranks into runs: one run for the command (named ``run``,
    else the PATHs' common folder), or one per PATH when ``run_per_path``."""
    inputs = [detect(Path(p)) for p in paths]
    if run_per_path:
        return [Plan(run or ri.default_name, Path(p), ri.ranks) for p, ri in zip(paths, inputs)]
    name = run
    if name is None:
        folders = {ri.folder for ri in inputs}
        name = inputs[0].default_name
        if len(folders) > 1 and None not in folders:
            name = Path(os.path.commonpath([str(f) for f in folders])).name or name
    return [Plan(name, Path(paths[0]), [u for ri in inputs for u in ri.ranks])]


def rank_files(unit: RankInput) -> list[tuple[str, Path, str | None]]:
    """(format, path, op tag) of every file of a rank."""
    out = [(fmt, path, None) for fmt, path in unit.files.items()]
    out += [("msprof_timeline", path, None) for path in unit.timelines]
    out += [("hccl_trace", path, tag) for tag, path in unit.hccl_traces]
    return out


class DeriveFailed(Exception):
    """The derive step of a batch of ranks failed in DuckDB (the transaction is aborted): the
    caller runs the ingest again rank by rank, where a failure names its rank."""


class Command:
    """One attempt at an ingest command inside its transaction: the ranks' reads and derive steps.

    ``batch_bytes``: the input bytes of the ranks read before one derive over them
    (:func:`tracedb.ingestion.batches`); 0 derives each rank right after its files."""

    def __init__(self, con, catalog: Catalog, report: IngestReport, say: Callable[[str], None],
                 bar: Bar | None, split: bool, step_range_pattern: str | None = None, batch_bytes: int = 0):
        self.con, self.catalog, self.report, self.say, self.bar, self.split = con, catalog, report, say, bar, split
        self.step_range_pattern, self.batch_bytes = step_range_pattern, batch_bytes

    def ranks(self, run_id: int, run_name: str, units: list[RankInput]) -> list[RankInput]:
        """Read the new files of a batch of ranks; returns the ranks that got any. When the
        ranks are batched (``batch_bytes``), the files of a format with a reader of many files
        (:data:`.readers.SET_READERS`) are read together, after the others; every other file on
        its own, in rank order."""
        together: dict[str, list[SourceFile]] | None = {} if self.batch_bytes and self.split else None
        new = [u for u in units if self.rank(run_id, run_name, u, together)]
        for fmt, files in (together or {}).items():
            self.read_together(fmt, files)
        return new

    def rank(self, run_id: int, run_name: str, unit: RankInput,
             together: dict[str, list[SourceFile]] | None = None) -> bool:
        """Read the new files of one rank; True if any. ``together``: where a file that a reader
        of many files takes goes, per format, claimed and recorded now, to be read with the
        batch's others (:meth:`read_together`)."""
        new = False
        for fmt, path, op_tag in rank_files(unit):
            claim = self.catalog.claim(run_id, None if fmt == "kineto" else unit.rank, fmt, path)
            if claim is None:
                continue
            f = SourceFile(claim.file_id, run_id, unit.rank, fmt, path, framework=unit.framework, op_tag=op_tag,
                           split=self.split, bar=self.bar, step_range_pattern=self.step_range_pattern,
                           assign_rank=lambda meta, fid=claim.file_id: self.kineto_meta(run_id, unit, fid, meta))
            if together is not None and self.read_later(run_id, unit, f):
                self.catalog.reserve(claim, run_id, unit.rank, fmt, path)
                together.setdefault(fmt, []).append(f)
                self.report.files_ingested.append(str(path))
                new = True
                continue
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

    def read_later(self, run_id: int, unit: RankInput, f: SourceFile) -> bool:
        """True if a reader of many files takes ``f`` (:data:`.readers.SET_READERS`) with the
        rank known: the input's, or the one the reader's ``prepare`` reads from the file."""
        reader = SET_READERS.get(f.format)
        if reader is None or not reader.takes(f.path):
            return False
        if reader.prepare is None:
            return unit.rank is not None
        if not reader.prepare(f):
            return False
        unit.rank = f.rank
        self.catalog.settle(run_id, unit.rank, f.format, f.path)
        return True

    def read_together(self, fmt: str, files: list[SourceFile]) -> None:
        """Read the reserved files of one format of a batch: in one statement, or one alone the
        usual way (a large trace in parallel slices); their rows go into the catalog."""
        if len(files) == 1:
            rows = {files[0].file_id: self.read(files[0])}
        else:
            size = sum(f.path.stat().st_size for f in files)
            self.say(f"ingest {len(files)} {fmt} files ({size / 1e6:.1f} MB) in one read")
            t0 = time.perf_counter()
            try:
                rows = SET_READERS[fmt].read(self.con, files)
            except (TracedbError, SplitReadFailed):
                raise
            except Exception as e:   # noqa: BLE001 - as Command.read: the one error boundary
                raise SplitReadFailed(f"{type(e).__name__}: {e}") from e
            dt = time.perf_counter() - t0
            self.say(f"  {sum(rows.values()):,} rows in {dt:.1f} s" + (f", {size / 1e6 / dt:.0f} MB/s" if dt > 0.05 else ""))
        for f in files:
            self.catalog.finish(f.file_id, rows[f.file_id])
            if rows[f.file_id]:
                self.report.add(READERS[fmt].table, rows[f.file_id])

    def kineto_meta(self, run_id: int, unit: RankInput, file_id: int, meta: dict) -> int:
        """A Kineto trace's top-level keys, once its reader has them: the rank (catalog) and
        the trace's own ``device`` rows (deviceProperties); returns the rank."""
        rank = self.catalog.kineto_rank(run_id, unit, meta)
        write_kineto_devices(self.con, file_id, run_id, rank, meta)
        return rank

    def derive(self, run_id: int, units: list[RankInput]) -> None:
        """The derive step of ranks of a run, once over all of them; a failure (values the files
        allow but SQL cannot combine) becomes an InputError naming the rank's input, or, for
        more than one rank, :class:`DeriveFailed` (the ingest runs again rank by rank)."""
        if not units:
            return
        try:
            derive.run_set(self.con, [(run_id, u.rank) for u in units])
        except duckdb.Error as e:
            if storage_cause(e) is not None:
                raise       # the database's fault (damaged, disk full), not the input's: named by store.session
            if len(units) > 1:
                raise DeriveFailed(str(e)) from e
            unit = units[0]
            if (oom := out_of_memory(e, str(unit.source))) is not None:
                raise oom from e
            raise InputError(f"cannot combine the files of rank {unit.rank}: {str(e).splitlines()[0]}",
                             file=str(unit.source), hint="a file of this rank holds values out of range; "
                                                         "re-export it from the profiler.") from e

    def read(self, f: SourceFile) -> int:
        """Run the file's reader; any failure becomes an InputError naming the file."""
        timed = f.format in TIMED
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


