"""Parallel ingest of new ranks: worker processes each read one rank into a staging DuckDB file;
the ingest command then publishes every staging file inside its own transaction.

Plan (main process, inside the command's transaction): the run row and its ``run_id`` come from
the catalog as for a sequential ingest, and every rank gets a range of ``file_id`` values
(the database's largest + the files of the ranks before it), so the keys the workers write never
collide. Only ranks the run does not hold yet go to workers (their derive step needs no rows
from earlier commands); a rank that already has files, a Kineto trace (its rank number is
known only once it is read) and ``--replace`` go the sequential way.

Worker (one process per rank, at most ``jobs`` at a time): a fresh DuckDB file with the schema,
the run row and the database's ``kernel_class_rule`` rows; the same readers, catalog checks
and derive steps as a sequential ingest (:class:`tracedb.ingestion.command.Command`), with
``memory_limit / jobs`` and ``threads / jobs``. Memory is bounded by the setting, not by the
number of ranks.

Publish (main process): every staging file is attached read-only and its rows of the
per-rank tables (every table with ``run_id`` and ``rank`` columns) are copied with
``INSERT … BY NAME SELECT``, in rank order, in the command's one transaction: a failure in any
worker or in the publish rolls everything back, as in a sequential ingest.
"""
from __future__ import annotations

import multiprocessing
import os
import re
import shutil
import tempfile
from concurrent.futures import FIRST_EXCEPTION, ProcessPoolExecutor, wait
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

from ..engine import duckdb
from ..store.schema import apply_schema
from . import derive
from .catalog import Catalog
from .command import Command, IngestReport, rank_files
from .detect import RankInput
from .readers import SplitReadFailed


@dataclass
class StagingJob:
    """What a worker needs to ingest one rank into its own DuckDB file (picklable)."""

    path: str                       # the staging DuckDB file to create
    run_id: int
    run_name: str
    run_row: tuple                  # the run table row (same run_id as the database's)
    unit: RankInput
    file_id_floor: int              # the rank's file_ids are floor + 1, floor + 2, …
    rules: str | None = None        # Parquet file of the database's kernel_class_rule rows
    threads: int = 1
    memory_limit: str | None = None
    step_range_pattern: str | None = None


@dataclass
class StagingResult:
    """What a worker did: the staging file and the lines / files / rows for the report."""

    path: str
    rank: int | None
    new: bool
    messages: list[str] = field(default_factory=list)
    files_ingested: list[str] = field(default_factory=list)
    files_skipped: list[str] = field(default_factory=list)
    rows: dict[str, int] = field(default_factory=dict)


def rank_tables(con: duckdb.DuckDBPyConnection, database: str | None = None) -> list[str]:
    """Tables with rows per (run, rank): every table with ``run_id`` and ``rank`` columns."""
    db = "current_database()" if database is None else "'" + database.replace("'", "''") + "'"
    return [t for (t,) in con.execute(f"""
        SELECT table_name FROM duckdb_columns()
        WHERE database_name = {db} AND schema_name = 'main' AND column_name IN ('run_id', 'rank')
        GROUP BY table_name HAVING count(*) = 2 ORDER BY table_name""").fetchall()]


_UNITS = {"b": 1, "bytes": 1, "kb": 10**3, "mb": 10**6, "gb": 10**9, "tb": 10**12,
          "kib": 2**10, "mib": 2**20, "gib": 2**30, "tib": 2**40}


def setting_bytes(text: str) -> int | None:
    """``1.3 GiB`` / ``1400MB`` → bytes; None when it is not a size."""
    m = re.fullmatch(r"\s*([0-9.]+)\s*([A-Za-z]*)\s*", text or "")
    if not m or (m.group(2).lower() or "b") not in _UNITS:
        return None
    return int(float(m.group(1)) * _UNITS[m.group(2).lower() or "b"])


def worker_settings(con: duckdb.DuckDBPyConnection, jobs: int) -> tuple[int, str | None]:
    """(threads, memory_limit) of each of ``jobs`` workers: the connection's shares."""
    threads, limit = con.execute("SELECT current_setting('threads'), current_setting('memory_limit')").fetchone()
    total = setting_bytes(str(limit))
    per = f"{max(total // jobs, 64 * 2**20) // 2**20}MiB" if total else None
    return max(1, int(threads) // jobs), per


def stage_rank(job: StagingJob) -> StagingResult:
    """Worker: ingest one rank into a new DuckDB file (reads, catalog checks, derive step)."""
    messages: list[str] = []
    for split in (True, False):
        for p in (Path(job.path), Path(job.path + ".wal")):
            p.unlink(missing_ok=True)
        config = {"threads": job.threads, "storage_compatibility_version": "latest"}
        if job.memory_limit:
            config["memory_limit"] = job.memory_limit
        con = duckdb.connect(job.path, config=config)
        catalog = None
        try:
            con.execute("SET enable_progress_bar = false")
            apply_schema(con)
            derive.install_session(con)
            con.execute("BEGIN TRANSACTION")
            con.execute("INSERT INTO run VALUES (?, ?, ?, ?, ?, ?)", list(job.run_row))
            if job.rules:
                con.execute("DELETE FROM kernel_class_rule")
                con.execute("INSERT INTO kernel_class_rule BY NAME SELECT * FROM read_parquet(?)", [job.rules])
            catalog = Catalog(con, replace=False, say=messages.append, file_id_floor=job.file_id_floor)
            report = IngestReport()
            command = Command(con, catalog, report, messages.append, None, split, job.step_range_pattern)
            new = command.rank(job.run_id, job.run_name, job.unit)
            if new:
                command.derive(job.run_id, [job.unit])
            con.execute("COMMIT")
            return StagingResult(job.path, job.unit.rank, new, messages, report.files_ingested,
                                 report.files_skipped + catalog.skipped, report.rows)
        except SplitReadFailed:
            messages.append("parallel read failed; reading the files again in one piece")
            continue
        finally:
            if catalog is not None:
                catalog.close()
            con.close()
    raise AssertionError("unreachable: the one-piece read does not raise SplitReadFailed")


def staging_dir(con: duckdb.DuckDBPyConnection) -> Path:
    """A new folder for the staging files: beside the database file (same file system, room
    for about the database's size), else the system's temporary folder."""
    row = con.execute("SELECT path FROM duckdb_databases() WHERE database_name = current_database()").fetchone()
    parent = Path(row[0]).resolve().parent if row and row[0] else None
    return Path(tempfile.mkdtemp(prefix=".tracedb-staging-", dir=parent if parent and os.access(parent, os.W_OK)
                                 else None))


def run_workers(jobs: list[StagingJob], workers: int,
                on_done: Callable[[StagingResult], None] = lambda r: None) -> list[StagingResult]:
    """Run ``stage_rank`` for every job in at most ``workers`` processes (spawned: DuckDB's
    threads do not survive a fork), largest rank first. The first failure stops the rest (jobs
    not started are cancelled) and is raised; results come back in job order."""
    order = sorted(range(len(jobs)), key=lambda i: -sum(
        path.stat().st_size for _f, path, _t in rank_files(jobs[i].unit) if path.exists()))
    ctx = multiprocessing.get_context("spawn")
    results: dict[int, StagingResult] = {}
    pool = ProcessPoolExecutor(max_workers=min(workers, len(jobs)), mp_context=ctx)
    try:
        futures = {pool.submit(stage_rank, jobs[i]): i for i in order}
        pending = set(futures)
        while pending:
            done, pending = wait(pending, return_when=FIRST_EXCEPTION)
            for f in done:
                results[futures[f]] = r = f.result()    # raises the worker's error
                on_done(r)
    except BaseException:
        # a failed rank or an interrupt: the other workers' ranks are of no use, stop them now
        # rather than wait for them (their staging files go with the folder)
        for proc in list((getattr(pool, "_processes", None) or {}).values()):
            proc.terminate()
        pool.shutdown(wait=True, cancel_futures=True)
        raise
    pool.shutdown(wait=True)
    return [results[i] for i in range(len(jobs))]


def publish(con: duckdb.DuckDBPyConnection, results: list[StagingResult]) -> list[str]:
    """Copy the per-rank tables of every staging file into the database (inside the caller's
    transaction). Returns the attached aliases (detach them after COMMIT / ROLLBACK).

    An attached database is seen by every connection of the DuckDB instance, so each alias
    names its run and rank (``tracedb compare`` publishes both sides' files at the same time)."""
    tables = rank_tables(con)
    aliases = []
    for r in results:
        if not r.new:
            continue
        alias = f"tracedb_staging_{Path(r.path).stem}"          # run<id>_rank<n>: see Staging.run
        con.execute(f"ATTACH '{r.path.replace(chr(39), chr(39) * 2)}' AS {alias} (READ_ONLY)")
        aliases.append(alias)
        have = set(rank_tables(con, alias))
        for table in tables:
            if table in have:
                con.execute(f'INSERT INTO main."{table}" BY NAME SELECT * FROM {alias}."{table}"')
    return aliases


def cleanup(con: duckdb.DuckDBPyConnection, aliases: list[str], folder: Path | None) -> None:
    """Detach the staging files (after COMMIT / ROLLBACK) and remove their folder."""
    for alias in aliases:
        try:
            con.execute(f"DETACH {alias}")
        except duckdb.Error:
            pass
    if folder is not None:
        shutil.rmtree(folder, ignore_errors=True)


class Staging:
    """The staging side of one ingest attempt: which new ranks go to workers, running them, and
    the staging files to detach and remove after COMMIT or ROLLBACK."""

    def __init__(self, command: Command, jobs: int):
        self.command, self.con, self.jobs = command, command.con, jobs
        self.folder: Path | None = None
        self.attached: list[str] = []

    def parallel_units(self, run_id: int, units: list[RankInput]) -> list[RankInput]:
        """The ranks that go to staging workers (see :mod:`tracedb.ingestion.staging`): with
        ``jobs`` > 1 and at least two of them, the ranks this run does not hold yet whose rank
        number is known before reading (not Kineto traces)."""
        if self.jobs <= 1 or self.command.catalog.replace:
            return []
        held = self.command.catalog.taken_ranks(run_id) | {r for (r,) in self.con.execute(
            "SELECT DISTINCT rank FROM source_file WHERE run_id = ? AND rank IS NOT NULL", [run_id]).fetchall()}
        units = [u for u in units if u.rank is not None and u.layout != "kineto" and "kineto" not in u.files
                 and u.rank not in held]
        return units if len(units) >= 2 else []

    def run(self, run_id: int, run_name: str, units: list[RankInput]) -> set[tuple[int, int]]:
        """Ingest new ranks in worker processes, then publish their staging files here."""
        if self.folder is None:
            self.folder = staging_dir(self.con)
        folder = self.folder
        threads, memory = worker_settings(self.con, self.jobs)
        run_row = tuple(self.con.execute("SELECT run_id, run_name, role, platform, source_path, ingested_at "
                                         "FROM run WHERE run_id = ?", [run_id]).fetchone())
        rules = folder / f"rules_{run_id}.parquet"
        self.con.execute(f"COPY kernel_class_rule TO '{str(rules).replace(chr(39), chr(39) * 2)}' (FORMAT parquet)")
        floor = self.command.catalog.top_file_id()
        jobs = []
        for unit in units:
            jobs.append(StagingJob(str(folder / f"run{run_id}_rank{unit.rank}.duckdb"), run_id, run_name,
                                   run_row, unit, floor, str(rules), threads, memory,
                                   self.command.step_range_pattern))
            floor += len(rank_files(unit))
        self.command.say(f"run {run_name}: {len(units)} new ranks in {min(self.jobs, len(units))} worker "
                         f"processes ({threads} thread(s), memory limit {memory} each)")
        results = run_workers(jobs, self.jobs, on_done=lambda r: [self.command.say(m) for m in r.messages])
        self.attached += publish(self.con, results)
        self.command.catalog.forget_files()
        touched = set()
        for unit, r in zip(units, results):
            unit.rank = r.rank
            self.command.report.files_ingested += r.files_ingested
            self.command.report.files_skipped += r.files_skipped
            for table, n in r.rows.items():
                self.command.report.add(table, n)
            if r.new:
                touched.add((run_id, r.rank))
        return touched

    def cleanup(self) -> None:
        """Detach and remove the staging files (after COMMIT or ROLLBACK)."""
        cleanup(self.con, self.attached, self.folder)
        self.attached, self.folder = [], None
