"""CANN msprof timeline slices (``PROF_*/device_*/timeline/*.json``, trace_view.json form) →
``event``; their HCCL link tasks are derived like trace_view.json's. The slices are small and
read in one piece."""
from __future__ import annotations

from ...engine import duckdb

from ..sources.file import SourceFile
from . import trace_view


def read(con: duckdb.DuckDBPyConnection, f: SourceFile) -> int:
    """See :func:`tracedb.ingestion.readers.trace_view.read`."""
    f.split = False
    return trace_view.read(con, f)
