"""The catalog: ``run``, ``rank`` and ``source_file`` rows, content dedupe, ``--replace`` and
rank numbering. One job: decide whether a file goes in, under which (run, rank, file_id).

A file whose content (SHA-256) the run already has for that rank and format is skipped. A
(run, rank) holds one file per format (except HCCL .trace files and msprof timeline slices,
one per path): a different file of the same format is another capture and is refused unless
``replace``, which drops the recorded file's rows first.
"""
from __future__ import annotations

import datetime as _dt
import hashlib
import os
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from ..engine import duckdb

from ..errors import InputError
from .detect import TEXT_FORMS, RankInput
from .metadata import fill_kineto_rank
from .readers import MULTI_FILE_FORMATS

# every table with rows of an input file (file_id); the rows of a dropped file go from all
# the DB and the text form of an Ascend capture are two forms of one capture: a rank holds one
DB_FORMS = ("ascend_db", "analysis_db")
ROLES = ("baseline", "comparison")


def _same_capture_slot(fmt: str, path: str, old_fmt: str, old_path: str) -> bool:
    """Whether a recorded file (``old_fmt`` at ``old_path``) of a rank holds the place a new file
    (``fmt`` at ``path``) would take: the same path of a multi-file format; else the same
    format, the other platform (Kineto against Ascend files) or the other form of an Ascend
    capture (DB export against text files)."""
    if fmt in MULTI_FILE_FORMATS:
        return old_fmt == fmt and old_path == path
    return (old_fmt == fmt or (old_fmt == "kineto") != (fmt == "kineto")
            or (old_fmt in DB_FORMS and fmt in TEXT_FORMS) or (old_fmt in TEXT_FORMS and fmt in DB_FORMS))


def now() -> str:
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


def rank_origin(unit: RankInput) -> str:
    """Where a rank number came from, in words: ``profiler_info_3.json``, ``file name``, …"""
    if unit.rank_source == "profiler_info" and "profiler_info" in unit.files:
        return unit.files["profiler_info"].name
    return {"distributedInfo": "distributedInfo in the trace", "file_name": "file name",
            "profiler_info": "profiler_info"}.get(unit.rank_source, "guessed: no rank in the file")


@dataclass
class Claim:
    """A file admitted into the run: its new file_id and its SHA-256 (or a Future of it)."""

    file_id: int
    sha: str | Future


class Catalog:
    """Catalog rows of one ingest command (inside its transaction)."""

    def __init__(self, con: duckdb.DuckDBPyConnection, *, replace: bool, say: Callable[[str], None],
                 file_id_floor: int = 0, run_id_floor: int = 0):
        self.con = con
        # a staging worker's file_ids start above the range the main process gave its rank;
        # tracedb compare's second side, ingested at the same time as the first, starts its
        # run and file ids above the first side's (a transaction does not see the other's rows)
        self.file_id_floor = file_id_floor
        self.run_id_floor = run_id_floor
        self.replace = replace
        self.say = say
        self.skipped: list[str] = []
        self.dropped_ranks: set[tuple[int, int]] = set()
        # this transaction's source_file rows of one run, (file_id, rank, format, path,
        # size_bytes), and the highest file id: read once, kept up to date by record and
        # dropped by drop_file / forget_files (a small rank's ~10 files took 30 lookups)
        self._files: tuple[int, list[tuple]] | None = None
        self._top = 0
        # hashes files while they are parsed (see claim); hashlib releases the GIL
        self.hasher = ThreadPoolExecutor(1, thread_name_prefix="tracedb-sha256")
        # files recorded before they are read (:meth:`reserve`): file_id -> (format, size, hash)
        self.pending: dict[int, tuple[str, int, Future]] = {}

    def close(self) -> None:
        self.hasher.shutdown(cancel_futures=True)

    # -- runs and ranks ---------------------------------------------------------------
    def run_id(self, name: str, platform: str, source: Path, role: str | None, allow_mixed: bool) -> int:
        """The run's id, creating the run; a run holds one platform unless ``allow_mixed``."""
        row = self.con.execute("SELECT run_id, platform FROM run WHERE run_name = ?", [name]).fetchone()
        if row:
            run_id, old = row
            if old != platform and not allow_mixed:
                raise InputError(f"run {name!r} holds {old} ranks; this input is {platform}.", file=str(source),
                                 hint="ingest it as its own run (--run NAME), or pass --allow-mixed-platforms.")
            if old != platform:
                self.con.execute("UPDATE run SET platform = 'mixed' WHERE run_id = ?", [run_id])
        else:
            run_id = self.con.execute("SELECT greatest(coalesce(max(run_id), 0), ?) + 1 FROM run",
                                      [self.run_id_floor]).fetchone()[0]
            self.con.execute("INSERT INTO run VALUES (?, ?, NULL, ?, ?, ?)",
                             [run_id, name, platform, str(source.resolve()), now()])
        if role:
            self.con.execute("UPDATE run SET role = NULL WHERE role = ? AND run_id <> ?", [role, run_id])
            self.con.execute("UPDATE run SET role = ? WHERE run_id = ?", [role, run_id])
        return run_id

    def taken_ranks(self, run_id: int) -> set[int]:
        return {r for (r,) in self.con.execute("SELECT rank FROM rank WHERE run_id = ?", [run_id]).fetchall()}

    def number_ranks(self, run_id: int, units: list[RankInput]) -> None:
        """Give Ascend/MindSpore ranks without a number the next free one, in folder order;
        refuse two folders of one command that claim the same rank."""
        taken = self.taken_ranks(run_id)
        known = {u.rank for u in units if u.rank is not None}
        for u in units:
            if u.rank is None and u.layout != "kineto":
                u.rank = min(set(range(len(known) + len(taken) + 1)) - known - taken)
                u.rank_source = "default"
                known.add(u.rank)
        seen: dict[int, Path] = {}
        for u in units:
            if u.layout == "kineto" or u.rank is None:
                continue
            if u.rank in seen and seen[u.rank] != u.source:
                raise InputError(f"two inputs resolve to rank {u.rank} (also {seen[u.rank]}).", file=str(u.source),
                                 hint="each rank folder needs its profiler_info_{rank}.json; or ingest the "
                                      "captures as separate runs (--run NAME, or --run-per-path).")
            seen[u.rank] = u.source

    def kineto_rank(self, run_id: int, unit: RankInput, meta: dict) -> int:
        """Rank of a Kineto trace: distributedInfo, else the file name, else the next free number."""
        fill_kineto_rank(unit, meta)
        if unit.rank is None:
            taken = self.taken_ranks(run_id) | {r for (r,) in self.con.execute(
                "SELECT DISTINCT rank FROM source_file WHERE run_id = ?", [run_id]).fetchall()}
            unit.rank = min(set(range(len(taken) + 1)) - taken)
            unit.rank_source = "default"
        return unit.rank

    def upsert_rank(self, run_id: int, unit: RankInput) -> None:
        """The rank row: what this input says, keeping what an earlier input said where this one is
        silent. The device id is the derive step's."""
        self.con.execute("""
            INSERT INTO rank (run_id, rank, rank_source, world_size, profiler_level, framework_version, source_dir)
            VALUES (?, ?, ?, ?, ?, ?, ?)
            ON CONFLICT (run_id, rank) DO UPDATE SET
                rank_source = excluded.rank_source,
                world_size = coalesce(excluded.world_size, rank.world_size),
                profiler_level = coalesce(excluded.profiler_level, rank.profiler_level),
                framework_version = coalesce(excluded.framework_version, rank.framework_version),
                source_dir = excluded.source_dir
        """, [run_id, unit.rank, unit.rank_source, unit.world_size, unit.profiler_level, unit.framework_version,
              str(unit.source.resolve())])

    # -- files --------------------------------------------------------------------------
    def claim(self, run_id: int, rank: int | None, fmt: str, path: Path) -> Claim | None:
        """Admit ``path`` as a file of (run, rank, format), or None when the run already has its
        content. ``rank`` None (a Kineto trace before it is read): checked by :meth:`settle`.

        The file can only repeat one of the same size, so only then is its SHA-256 computed
        here; otherwise on a second thread while the file is parsed (:meth:`record` waits).

        Raises:
            InputError: unreadable, or another capture of a one-file format on this rank.
        """
        if not os.access(path, os.R_OK):
            raise InputError("cannot read file (permission denied).", file=str(path))
        size = path.stat().st_size
        if any(f[2] == fmt and f[4] == size for f in self._run_files(run_id)):
            self._hash_pending(fmt, size)
            sha = sha256_of(path)
            dup = self.con.execute("SELECT path FROM source_file WHERE run_id = ? AND format = ? AND sha256 = ? "
                                   "AND (? IS NULL OR rank = ?)", [run_id, fmt, sha, rank, rank]).fetchone()
            if dup:
                self.skipped.append(str(path))       # said once for all of them, at the end of the ingest
                return None
        else:
            sha = self.hasher.submit(sha256_of, path)
        file_id = self._top + 1
        if rank is not None:
            self.settle(run_id, rank, fmt, path)
        return Claim(file_id, sha)

    def _run_files(self, run_id: int) -> list[tuple]:
        """The run's source_file rows as this transaction sees them (see ``_files``)."""
        if self._files is None or self._files[0] != run_id:
            self._files = (run_id, self.con.execute(
                "SELECT file_id, rank, format, path, size_bytes FROM source_file WHERE run_id = ? ORDER BY file_id",
                [run_id]).fetchall())
            self._top = self.top_file_id()
        return self._files[1]

    def forget_files(self) -> None:
        """Read the run's files again at the next claim: source_file changed behind the
        catalog (staging workers' rows published)."""
        self._files = None

    def top_file_id(self) -> int:
        """The highest file id taken: in the database (this transaction's view) or below the floor.
        Read with fetchall: a result left open (fetchone) holds the connection, and DuckDB then
        refuses the next reader's work on it (e.g. registering an Arrow stream)."""
        return self.con.execute("SELECT greatest(coalesce(max(file_id), 0), ?) FROM source_file",
                                [self.file_id_floor]).fetchall()[0][0]

    def settle(self, run_id: int, rank: int, fmt: str, path: Path) -> None:
        """Refuse a second capture on (run, rank): another file of a one-file format (or another
        content at the same path of a multi-file format); with ``replace``, drop it instead."""
        # a file of the same one-per-rank format, the same path of a multi-file format, or a
        # file of the other platform (a Kineto trace on a rank with Ascend files, or the reverse)
        # or the other form of an Ascend capture (DB export / text files)
        resolved = str(path.resolve())
        old = [(file_id, old_path) for file_id, old_rank, old_fmt, old_path, _ in self._run_files(run_id)
               if old_rank == rank and _same_capture_slot(fmt, resolved, old_fmt, old_path)]
        if not old:
            return
        if not self.replace:
            name = self.con.execute("SELECT run_name FROM run WHERE run_id = ?", [run_id]).fetchone()[0]
            what = "changed since it was ingested" if old[0][1] == resolved else \
                f"another capture: rank {rank} of run {name!r} already has {old[0][1]}"
            raise InputError(f"{what}.", file=str(path),
                             hint="ingest it as a new run (--run NAME), or pass --replace to replace the "
                                  "recorded file.")
        for file_id, old_path in old:
            self.say(f"replace {old_path}")
            self.drop_file(file_id)
            self.dropped_ranks.add((run_id, rank))

    def drop_file(self, file_id: int) -> None:
        # every table holding rows of an input file has a file_id column (source_file aside)
        tables = [t for (t,) in self.con.execute(
            "SELECT table_name FROM duckdb_columns() WHERE database_name = current_database() "
            "AND schema_name = 'main' AND column_name = 'file_id' AND table_name <> 'source_file' "
            "ORDER BY table_name").fetchall()]
        for table in tables:
            self.con.execute(f'DELETE FROM "{table}" WHERE file_id = ?', [file_id])
        self.con.execute("DELETE FROM source_file WHERE file_id = ?", [file_id])
        self.forget_files()

    def reserve(self, claim: Claim, run_id: int, rank: int, fmt: str, path: Path) -> None:
        """Record a claimed file before it is read, for a reader of many files at once: the
        catalog sees it as any recorded file (its rank's slot, the next file id, the run's
        contents); :meth:`finish` sets its rows (and its hash, computed meanwhile)."""
        if isinstance(claim.sha, Future):
            self.pending[claim.file_id] = (fmt, path.stat().st_size, claim.sha)
            claim = Claim(claim.file_id, "")       # the hash comes with finish
        self.record(claim, run_id, rank, fmt, path, 0)

    def finish(self, file_id: int, rows: int) -> None:
        """The rows (and the hash) of a file :meth:`reserve` recorded."""
        pending = self.pending.pop(file_id, None)
        sha = pending[2].result() if pending else None
        self.con.execute("UPDATE source_file SET row_count = ?, sha256 = coalesce(?, sha256) WHERE file_id = ?",
                         [rows, sha, file_id])

    def _hash_pending(self, fmt: str, size: int) -> None:
        """The hashes of the reserved files a new file of ``fmt`` and ``size`` may repeat, in
        source_file before the content check looks there."""
        for file_id, (f, n, sha) in list(self.pending.items()):
            if f == fmt and n == size:
                del self.pending[file_id]
                self.con.execute("UPDATE source_file SET sha256 = ? WHERE file_id = ?", [sha.result(), file_id])

    def record(self, claim: Claim, run_id: int, rank: int, fmt: str, path: Path, rows: int) -> None:
        sha = claim.sha.result() if isinstance(claim.sha, Future) else claim.sha
        resolved, size = str(path.resolve()), path.stat().st_size
        self.con.execute("INSERT INTO source_file VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                         [claim.file_id, run_id, rank, fmt, resolved, size, sha, rows, now()])
        if self._files is not None and self._files[0] == run_id:
            self._files[1].append((claim.file_id, rank, fmt, resolved, size))
        self._top = max(self._top, claim.file_id)
