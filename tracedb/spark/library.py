"""The view library on Apache Spark, over a ``tracedb export --parquet`` folder.

For clusters where one machine is not enough: the tables are the exported Parquet files, the
views are the same ``queries/**/*.sql`` files, transpiled from DuckDB SQL to Spark SQL by
sqlglot and registered as temporary views. Nothing is re-implemented for Spark.

Rewrites applied before transpiling (all in the sqlglot syntax tree):

* ``tracedb_internal.x`` → ``tracedb_internal__x`` (Spark temp views have no schema);
* a call of a table macro in FROM (``op_diff_between(a, b)``) → the macro body as a subquery
  with the parameters replaced by the call's arguments (Spark has no table macros).

A view that fails to transpile or to bind is reported in :class:`SparkLibrary.failed` with
its error (and the views that depend on it fail too); it is never skipped silently.

Requires the optional extra ``pip install 'tracedb[spark]'`` (pyspark, a Java 17+ runtime).
"""
from __future__ import annotations

import os
import re
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from .. import lazy
from ..errors import TracedbError
from ..store.library import INTERNAL_SCHEMA, SqlObject, load_library

if TYPE_CHECKING:
    from sqlglot import exp


@dataclass
class SparkLibrary:
    """What :func:`register` installed: tables and views that work, and views that failed."""

    tables: list[str] = field(default_factory=list)
    views: list[str] = field(default_factory=list)
    failed: dict[str, str] = field(default_factory=dict)   # view → error


def spark_name(name: str, schema: str | None) -> str:
    """The Spark temporary view name of a library object (Spark temp views have no schema)."""
    return f"{INTERNAL_SCHEMA}__{name}" if (schema or "").lower() == INTERNAL_SCHEMA else name


def _rewrite(tree: exp.Expression, macros: dict[str, tuple[list[str], exp.Expression]]) -> exp.Expression:
    exp = lazy.exp

    def fix(node: exp.Expression) -> exp.Expression:
        if isinstance(node, exp.Table):
            fn = node.this
            if isinstance(fn, exp.Anonymous) and fn.name.lower() in macros:
                params, body = macros[fn.name.lower()]
                args = dict(zip(params, fn.expressions))
                inlined = body.copy().transform(
                    lambda n: args[n.name].copy()
                    if isinstance(n, exp.Column) and not n.table and n.name in args else n)
                alias = node.alias or fn.name
                return exp.Subquery(this=inlined, alias=exp.TableAlias(this=exp.to_identifier(alias)))
            if node.db:
                return exp.Table(this=exp.to_identifier(spark_name(node.name, node.db)),
                                 alias=node.args.get("alias"))
        return node

    return tree.transform(fix)


def transpile_library(objects: list[SqlObject] | None = None) -> tuple[dict[str, str], dict[str, str]]:
    """Every view of the library as Spark SQL (a SELECT per view, in dependency order).

    Returns:
        (spark SQL by Spark view name, transpile error by view name).
    """
    objects = objects if objects is not None else load_library()
    macros: dict[str, tuple[list[str], exp.Expression]] = {}
    out: dict[str, str] = {}
    failed: dict[str, str] = {}
    for obj in objects:
        try:
            tree = _rewrite(obj.body, macros)
            if obj.kind == "table_macro":
                macros[obj.name.lower()] = (obj.parameters, tree)
                continue
            out[spark_name(obj.name, obj.schema)] = tree.sql(dialect="spark")
        except (lazy.sqlglot.errors.SqlglotError, ValueError) as e:
            failed[obj.name] = f"transpile: {str(e).splitlines()[0]}"
    return out, failed


def session(app: str = "tracedb"):
    """A local Spark session (both cores, UTC, no UI). Raises TracedbError without pyspark."""
    try:
        SparkSession = lazy.pyspark_sql.SparkSession
    except ImportError as e:
        raise TracedbError("pyspark is not installed.", hint="pip install 'tracedb[spark]' (needs Java 17+).") from e
    # Python tasks (tracedb.spark.ingest) run in this interpreter, which has duckdb and tracedb
    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    return (SparkSession.builder.master("local[2]").appName(app)
            .config("spark.sql.session.timeZone", "UTC")
            .config("spark.ui.enabled", "false")
            .config("spark.sql.shuffle.partitions", "4")
            # the view library's plans are deep (overall_summary inlines the step views): at
            # Spark's default 1g driver heap, registering every view ran out of memory, and at 3g
            # the value comparisons of tests/spark/test_spark.py did (the library grew: copies,
            # free_analysis, the cluster views); local mode runs in the driver
            .config("spark.driver.memory", "6g")
            .getOrCreate())


_TABLE_VIEW = re.compile(r'CREATE OR REPLACE VIEW "(\w+)" AS SELECT\n(.*?)\nFROM read_parquet', re.S)
_CAST = re.compile(r'CAST\("(\w+)" AS ([^)]+)\) AS "\w+"')


def table_columns(views_sql: str) -> dict[str, list[tuple[str, str]]]:
    """Each exported table's columns and DuckDB types, in order, from the export's views.sql."""
    return {m.group(1): _CAST.findall(m.group(2)) for m in _TABLE_VIEW.finditer(views_sql)}


def _read_table(spark, table_dir: Path, columns: list[tuple[str, str]] | None):
    """A table folder of the export as a DataFrame with the table's own columns in order.

    The hive keys (``run_name=…/rank=…``) are in the folder names only: Spark's partition
    discovery reads them as strings (type inference off, so a run named ``2024`` stays a name),
    ``rank`` is cast back to INT and ``run_name`` dropped (the tables carry ``run_id``)."""
    F = lazy.pyspark_sql.functions
    hive = any(p.is_dir() and "=" in p.name for p in table_dir.iterdir())
    if not hive:
        return spark.read.parquet(str(table_dir))
    spark.conf.set("spark.sql.sources.partitionColumnTypeInference.enabled", "false")
    df = spark.read.option("basePath", str(table_dir)).parquet(str(table_dir))
    if "rank" in df.columns:
        df = df.withColumn("rank", F.col("rank").cast("int"))
    if columns:
        df = df.select(*[c for c, _ in columns])
    elif "run_name" in df.columns:
        df = df.drop("run_name")
    return df


def register(spark, parquet_dir: str | Path) -> SparkLibrary:
    """Register the exported tables and the view library as temporary views of ``spark``.

    Args:
        spark: a SparkSession.
        parquet_dir: a folder written by ``tracedb export --parquet``.

    Returns:
        SparkLibrary listing the tables, the views that bound, and the views that failed.

    Raises:
        TracedbError: the folder is not a tracedb export.
    """
    root = Path(parquet_dir)
    if not (root / "views.sql").is_file():
        raise TracedbError("not a tracedb Parquet export (no views.sql).", file=str(root),
                           hint="write one with: tracedb export --parquet DIR")
    lib = SparkLibrary()
    columns = table_columns((root / "views.sql").read_text())
    for table_dir in sorted(p for p in root.iterdir() if p.is_dir()):
        df = _read_table(spark, table_dir, columns.get(table_dir.name))
        df.createOrReplaceTempView(table_dir.name)
        lib.tables.append(table_dir.name)
    views, lib.failed = transpile_library()
    for name, sql in views.items():
        try:
            spark.sql(f"CREATE OR REPLACE TEMPORARY VIEW {name} AS {sql}")
            lib.views.append(name)
        except Exception as e:   # noqa: BLE001 — pyspark raises several unrelated types
            lib.failed[name] = f"spark: {str(e).splitlines()[0]}"
    return lib
