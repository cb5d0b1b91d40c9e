"""tracedb on Apache Spark: the view library over a ``tracedb export --parquet`` folder
(:mod:`.library`: ``session``, ``register``) and ingest with one Spark task per rank
(:mod:`.executors`: ``ingest``). Needs the ``spark`` extra (pyspark, Java 17+)."""
from .executors import SparkIngestReport, ingest
from .library import SparkLibrary, register, session, table_columns, transpile_library

__all__ = ["SparkIngestReport", "SparkLibrary", "ingest", "register", "session", "table_columns",
           "transpile_library"]
