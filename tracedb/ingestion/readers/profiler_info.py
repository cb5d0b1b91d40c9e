"""``profiler_info_{rank}.json`` / ``profiler_metadata.json``: read at detection (rank, level,
versions: :mod:`tracedb.ingestion.metadata`); recorded as a source file with no rows of its own."""
from __future__ import annotations

from ...engine import duckdb

from ..sources.file import SourceFile


def read(con: duckdb.DuckDBPyConnection, f: SourceFile) -> int:
    """Nothing to insert: the rank row carries what these files say. Returns 0."""
    return 0
