"""Scale-out ingest on Apache Spark: ``tracedb.spark.ingest(spark, paths, out_dir)``.

The driver plans, the executors ingest, the result is a ``tracedb export --parquet`` folder
that :func:`tracedb.spark.register` (or the DuckDB shell with ``views.sql``) reads:

1. **Plan (driver).** The PATHs are detected as for ``tracedb ingest`` (one run per command,
   or one per PATH); each run gets its ``run_id`` (1, 2, … in PATH order) and every rank a
   range of ``file_id`` values (the files of the ranks before it), so the integer keys the
   executors write are unique across executors without any coordination.
2. **Ingest (one Spark task per rank).** Each task runs tracedb's own staging ingest
   (:func:`tracedb.ingestion.staging.stage_rank`: readers, catalog checks, derive steps) into a
   DuckDB file in the executor's local temporary folder, then writes the rank's rows of every
   per-rank table as ``OUT/<table>/run_name=<run>/rank=<k>/data_0.parquet`` (DuckDB's own hive
   partition writer, the layout of ``tracedb export --parquet``) and deletes the DuckDB file.
3. **Finish (driver).** The run table, the other tables (``kernel_class_rule``, the view
   library) and ``views.sql`` are written as ``tracedb export --parquet`` writes them.

PATHs and ``out_dir`` must be paths every executor sees at the same place (a shared file
system: NFS, Lustre, a FUSE mount of object storage); tasks write only their own rank's
folders. A failed task fails the job (Spark's retries rerun a task; it rewrites its own
folders); ``out_dir`` then holds a partial export without ``views.sql``, which ``register``
refuses.
"""
from __future__ import annotations

import shutil
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

from ..engine import duckdb
from ..errors import InputError
from ..export.parquet import prepare_folder, write_export
from ..ingestion.catalog import Catalog
from ..ingestion.command import plan_runs, rank_files
from ..ingestion.staging import StagingJob, rank_tables, stage_rank
from ..store import library
from ..store.schema import apply_schema


@dataclass
class SparkIngestReport:
    """What :func:`ingest` wrote."""

    runs: list[str] = field(default_factory=list)
    ranks: int = 0
    files_ingested: list[str] = field(default_factory=list)
    files_skipped: list[str] = field(default_factory=list)
    rows: dict[str, int] = field(default_factory=dict)       # rows per table, every rank


def _task(job_and_out) -> dict:
    """Executor: ingest one rank into a local DuckDB file and write its Parquet partitions."""
    job, out = job_and_out
    local = Path(tempfile.mkdtemp(prefix="tracedb-spark-"))
    try:
        job.path = str(local / "rank.duckdb")
        result = stage_rank(job)
        rows: dict[str, int] = {}
        con = duckdb.connect(job.path, read_only=True)
        try:
            con.execute(f"SET threads = {int(job.threads)}")
            for table in rank_tables(con):
                if table == "run":
                    continue
                n = con.execute(f'SELECT count(*) FROM "{table}"').fetchone()[0]
                if not n:
                    continue
                rows[table] = n
                # DuckDB's hive writer names the folders (run_name escaped as export does);
                # written beside, then moved into the shared folder file by file
                part = local / "parts" / table
                part.parent.mkdir(parents=True, exist_ok=True)
                con.execute(f"""COPY (SELECT t.*, r.run_name FROM "{table}" AS t JOIN run AS r USING (run_id))
                                TO '{str(part).replace("'", "''")}'
                                (FORMAT parquet, PARTITION_BY (run_name, rank), COMPRESSION zstd)""")
                for f in part.rglob("*.parquet"):
                    target = Path(out) / table / f.relative_to(part)
                    target.parent.mkdir(parents=True, exist_ok=True)
                    shutil.move(str(f), str(target))
        finally:
            con.close()
        return {"rank": result.rank, "run_id": job.run_id, "source": str(job.unit.source), "rows": rows,
                "files_ingested": result.files_ingested, "files_skipped": result.files_skipped,
                "messages": result.messages}
    finally:
        shutil.rmtree(local, ignore_errors=True)


def ingest(spark, paths, out_dir, *, run: str | None = None, run_per_path: bool = False,
           overwrite: bool = False, memory_limit: str = "1400MB", threads: int = 1,
           step_range_pattern: str | None = None) -> SparkIngestReport:
    """Ingest PATHs on a Spark cluster into a Parquet folder in the ``tracedb export`` layout.

    Args:
        spark: a SparkSession.
        paths: rank folders, folders of rank folders or trace files, as for ``tracedb ingest``,
            on storage every executor reads at the same path.
        out_dir: the output folder (shared storage); ``register(spark, out_dir)`` reads it.
        run: run name (default: the PATHs' common folder), as ``tracedb ingest --run``.
        run_per_path: one run per PATH, named after it.
        overwrite: replace a non-empty ``out_dir``.
        memory_limit, threads: DuckDB settings of each task (one rank at a time per task).
        step_range_pattern: as ``tracedb ingest --step-range-pattern``.

    Returns:
        SparkIngestReport.

    Raises:
        InputError: bad input (the executor's error, naming the file), two inputs of one rank.
        TracedbError: ``out_dir`` not empty (without ``overwrite``).
    """
    out = prepare_folder(out_dir, overwrite).resolve()
    con = duckdb.connect()              # the driver's catalog: run rows and the other tables
    report = SparkIngestReport()
    try:
        apply_schema(con)
        library.install_if_changed(con)
        catalog = Catalog(con, replace=False, say=lambda s: None)
        jobs: list[StagingJob] = []
        floor = 0
        try:
            for plan in plan_runs(list(paths), run, run_per_path):
                platforms = {u.platform for u in plan.ranks}
                if len(platforms) > 1:
                    raise InputError("this input holds GPU and NPU ranks; a run holds one platform.",
                                     file=str(plan.source), hint="ingest them as separate runs (run_per_path).")
                run_id = catalog.run_id(plan.run, platforms.pop(), plan.source, None, False)
                catalog.number_ranks(run_id, plan.ranks)
                run_row = tuple(con.execute("SELECT run_id, run_name, role, platform, source_path, ingested_at "
                                            "FROM run WHERE run_id = ?", [run_id]).fetchone())
                report.runs.append(plan.run)
                for unit in plan.ranks:
                    jobs.append(StagingJob("", run_id, plan.run, run_row, unit, floor, None, threads,
                                           memory_limit, step_range_pattern))
                    floor += len(rank_files(unit))
        finally:
            catalog.close()
        if not jobs:
            raise InputError("no rank found in the PATHs.", file=str(paths[0]) if paths else None)
        results = (spark.sparkContext.parallelize([(j, str(out)) for j in jobs], len(jobs))
                   .map(_task).collect())
        seen: dict[tuple[int, int], str] = {}
        for r in results:
            key = (r["run_id"], r["rank"])
            if key in seen:
                raise InputError(f"two inputs resolve to rank {r['rank']} (also {seen[key]}).", file=r["source"],
                                 hint="ingest them as separate runs (run_per_path).")
            seen[key] = r["source"]
            report.files_ingested += r["files_ingested"]
            report.files_skipped += r["files_skipped"]
            for table, n in r["rows"].items():
                report.rows[table] = report.rows.get(table, 0) + n
        report.ranks = len(results)
        write_export(con, out, written_elsewhere=report.rows)
    except BaseException:
        # no views.sql: register() refuses the partial folder
        (out / "views.sql").unlink(missing_ok=True)
        raise
    finally:
        con.close()
    return report
