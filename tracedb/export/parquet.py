"""Export the database as Parquet plus a ``views.sql`` that runs the same view library elsewhere.

Layout of the export folder::

    DIR/<table>/run_name=<run>/rank=<k>/data_0.parquet   tables with run_id and rank (zstd)
    DIR/<table>/run_name=<run>/data_0.parquet            tables with run_id only
    DIR/<table>/data_0.parquet                           run, other tables and empty tables
    DIR/views.sql                                        the schema as views over read_parquet,
                                                         then the view library with every comment

Folders are named by run name (hive style, as DuckDB writes them). The partition columns
``run_name`` and ``rank`` are in the folder names only, never also inside the files, so every
hive reader agrees on one type per column: ``pd.read_parquet("DIR/kernel")`` (pyarrow),
``read_parquet('DIR/kernel/**/*.parquet', hive_partitioning = true)`` in DuckDB, Spark's
partition discovery (ux-review F32). ``run_id`` stays inside the files. ns columns stay plain
INT64. ``EXPORT DATABASE`` is not used because it drops comments. Run ``views.sql`` from the
export folder (paths are relative): ``cd DIR && duckdb -c ".read views.sql" -c "FROM step_breakdown"``.

The files are written into a temporary folder beside DIR (``DIR.tmp-<pid>``), which becomes DIR
in one rename at the end: a failed or interrupted export leaves DIR as it was (empty, missing, or
with its earlier content under ``--overwrite``) and removes its temporary folder (a ``kill -9``
leaves it behind, named after the process, and DIR as it was). A run name whose folder
name (``run_name=`` and the name, percent-encoded as DuckDB writes it) would be longer than the
file system allows (255 bytes) is refused before anything is written: the folder names are the
run names, which the views read back, so a shortened name would change the data.
"""
from __future__ import annotations

import os
import shutil
from pathlib import Path
from urllib.parse import quote as url_quote

from ..engine import duckdb
from ..errors import TracedbError
from ..store.faults import DAMAGED, duckdb_first, storage_cause
from ..store.library import CREATE_INTERNAL_SCHEMA, comment_statements, load_library, quote


def base_tables(con: duckdb.DuckDBPyConnection) -> list[tuple[str, str | None]]:
    return con.execute("SELECT table_name, comment FROM duckdb_tables() WHERE schema_name = 'main' "
                       "ORDER BY table_name").fetchall()


def partition_columns(table: str, columns: set[str]) -> list[str]:
    """The hive keys of a table's export folder: run_name (from run_id), then rank; none for the
    run table itself (it holds the names)."""
    if table == "run" or "run_id" not in columns:
        return []
    return ["run_name", "rank"] if "rank" in columns else ["run_name"]


def _copy_table(con: duckdb.DuckDBPyConnection, out: Path, table: str, keys: list[str]) -> None:
    """COPY one table into ``out/<table>``: hive partitions by ``keys``, else one data_0.parquet."""
    target = out / table
    if keys:
        part = f"PARTITION_BY ({', '.join(keys)}), "
        source = (f'SELECT t.*, r.run_name FROM "{table}" AS t JOIN main.run AS r USING (run_id)')
    else:
        part = ""
        source = f'SELECT * FROM "{table}"'
        target.mkdir()
        target = target / "data_0.parquet"
    con.execute(f"COPY ({source}) TO '{target}' (FORMAT parquet, {part}COMPRESSION zstd)")


def prepare_folder(out_dir: str | Path, overwrite: bool = False) -> Path:
    """The export folder, created empty.

    Raises:
        TracedbError: ``out_dir`` exists and is not empty (unless overwrite).
    """
    out = Path(out_dir)
    if out.exists() and any(out.iterdir()):
        if not overwrite:
            raise TracedbError("export folder exists and is not empty.", file=str(out),
                               hint="choose a new folder or pass --overwrite.")
        shutil.rmtree(out)
    out.mkdir(parents=True, exist_ok=True)
    return out


def check_target(out: Path, overwrite: bool) -> None:
    """Refuse an export folder that is a file, or holds something (unless ``overwrite``)."""
    if out.exists() and not out.is_dir():
        raise TracedbError("the export folder is a file.", file=str(out), hint="choose a new folder name.")
    if out.is_dir() and any(out.iterdir()) and not overwrite:
        raise TracedbError("export folder exists and is not empty.", file=str(out),
                           hint="choose a new folder or pass --overwrite.")


def check_run_names(con: duckdb.DuckDBPyConnection, parent: Path) -> None:
    """Refuse a run name too long for a folder name ``run_name=<name>`` (percent-encoded)."""
    try:
        limit = os.pathconf(parent, "PC_NAME_MAX")
    except (OSError, ValueError):
        limit = 255
    for (name,) in con.execute("SELECT run_name FROM main.run ORDER BY run_id").fetchall():
        folder = "run_name=" + url_quote(name, safe="")
        if len(folder.encode()) > limit:
            raise TracedbError(f"run name {name[:40]!r}… is too long for a Parquet partition folder: "
                               f"'run_name=' and the name take {len(folder.encode())} bytes, the file system "
                               f"allows {limit}; nothing was written.",
                               hint="rename the run (tracedb runs rename OLD NEW) and export again.")


def export_parquet(con: duckdb.DuckDBPyConnection, out_dir: str | Path, overwrite: bool = False) -> dict[str, int]:
    """Write every table as Parquet under ``out_dir`` and the generated ``views.sql``: into a
    temporary folder beside it, renamed to ``out_dir`` at the end (see the module docstring).

    Returns:
        rows written per table.

    Raises:
        TracedbError: ``out_dir`` is a file, or exists and is not empty (unless overwrite); a
            run name too long for a folder name; the folder cannot be written.
    """
    out = Path(out_dir)
    check_target(out, overwrite)
    try:
        out.parent.mkdir(parents=True, exist_ok=True)
    except OSError as e:
        raise TracedbError(f"cannot create the folder: {e.strerror}.", file=str(out.parent)) from e
    check_run_names(con, out.parent)
    tmp = out.with_name(f"{out.name}.tmp-{os.getpid()}")
    old = out.with_name(f"{out.name}.old-{os.getpid()}")
    try:
        for stale in (tmp, old):                       # of an earlier process with this pid
            shutil.rmtree(stale, ignore_errors=True)
        tmp.mkdir()
        try:
            written = write_export(con, tmp)
        except duckdb.Error as e:
            if (storage_cause(e) or ("",))[0] == DAMAGED:
                raise                                  # the database's fault: named by the session
            raise TracedbError(f"cannot write the export: {duckdb_first(e)}; nothing was exported.",
                               file=str(out)) from e
        if out.exists():
            os.rename(out, old)       # empty, or replaced (--overwrite): out is absent only between the renames
        os.rename(tmp, out)
    except OSError as e:
        raise TracedbError(f"cannot write the export: {e.strerror or e}; nothing was exported.",
                           file=str(e.filename or out)) from e
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
        if old.exists() and not out.exists():
            os.rename(old, out)       # the last rename failed: the earlier content goes back
        shutil.rmtree(old, ignore_errors=True)
    return written


def write_export(con: duckdb.DuckDBPyConnection, out: Path, written_elsewhere: dict[str, int] | None = None
                 ) -> dict[str, int]:
    """Write the tables of ``con`` and ``views.sql`` into the (prepared) folder ``out``.

    ``written_elsewhere``: tables whose partitions others already wrote under ``out`` (the Spark
    ingest's executors, :mod:`tracedb.spark.executors`) with their row counts; they are not
    written here, only described in ``views.sql``."""
    elsewhere = written_elsewhere or {}
    written: dict[str, int] = {}
    lines = ["-- Generated by `tracedb export --parquet`: the tracedb schema as views over the Parquet files",
             "-- of this folder, then the tracedb view library with its documentation.",
             "-- Run it from this folder:  duckdb -c \".read views.sql\" -c \"FROM step_breakdown\"",
             f"{CREATE_INTERNAL_SCHEMA};", ""]
    for table, comment in base_tables(con):
        cols = con.execute("SELECT column_name, data_type, comment FROM duckdb_columns() "
                           "WHERE schema_name = 'main' AND table_name = ? ORDER BY column_index", [table]).fetchall()
        names = {c[0] for c in cols}
        if elsewhere.get(table):
            written[table] = elsewhere[table]
            keys = partition_columns(table, names)
        else:
            n = con.execute(f'SELECT count(*) FROM "{table}"').fetchone()[0]
            written[table] = n
            keys = partition_columns(table, names) if n else []
            _copy_table(con, out, table, keys)
        select = ",\n    ".join(f'CAST("{c}" AS {t}) AS "{c}"' for c, t, _ in cols)
        hive = ", hive_partitioning = true, hive_types_autocast = false" if keys else ", hive_partitioning = false"
        lines.append(f"CREATE OR REPLACE VIEW \"{table}\" AS SELECT\n    {select}\n"
                     f"FROM read_parquet('{table}/**/*.parquet'{hive});")
        lines.append(f"COMMENT ON VIEW \"{table}\" IS {quote(comment)};")
        for c, _, cc in cols:
            if cc:
                lines.append(f"COMMENT ON COLUMN \"{table}\".\"{c}\" IS {quote(cc)};")
        lines.append("")
    for obj in load_library():
        lines.append(obj.sql + ";")
        lines += [stmt + ";" for stmt in comment_statements(obj)]
        lines.append("")
    (out / "views.sql").write_text("\n".join(lines))
    return written
