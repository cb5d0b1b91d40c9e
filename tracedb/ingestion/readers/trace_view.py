"""Ascend ``trace_view.json`` (torch_npu / MindSpore, a JSON array) → ``event``.

Only the file's own events are written; steps, kernels without kernel_details.csv, HCCL link
tasks and the device id are derived from them by the derive step.
"""
from __future__ import annotations

from ...engine import duckdb

from ...progress import watch
from ..sources.file import SourceFile
from ..sources.jsonbytes import is_gzip
from ..sources.jsonsource import event_array, scan_metadata
from .chrome import insert_events


def read(con: duckdb.DuckDBPyConnection, f: SourceFile) -> int:
    """Insert the events of one Chrome-trace array file; returns the number of events.

    Raises:
        InputError: empty, truncated or malformed JSON (the place in the message).
        SplitReadFailed: the parallel read failed (the ingest retries in one piece).
    """
    with event_array(f.path) as (read_path, feeder), watch(con, f.path.name, f.bar):
        if feeder is not None:      # an object trace under an array file's name: stream its events
            n = insert_events(con, f, f.rank, fifo=read_path)
            feeder.finish()
            return n
        meta = None if is_gzip(f.path) else scan_metadata(f.path)
        return insert_events(con, f, f.rank, meta=meta)
