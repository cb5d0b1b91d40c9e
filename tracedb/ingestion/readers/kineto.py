"""PyTorch Kineto ``*.pt.trace.json(.gz)`` (a JSON object with a ``traceEvents`` array) → ``event``.

The rank comes from the trace's ``distributedInfo`` (else the file name, else the next free
number: :meth:`tracedb.ingestion.catalog.Catalog.kineto_rank`), ``ts`` is offset by
``baseTimeNanoseconds``. Kernels, steps and ``[memory]`` rows are derived from the events.

A plain file: its metadata and the array's byte span come from its head and tail, then one
INSERT reads the array (in parallel slices). A gzip file (or a plain one whose array does not
end near its end): the array streams through a FIFO
under a placeholder rank; the keys after the array (``baseTimeNanoseconds``) are known only
at the end of the stream, so its rows then get their rank and base time in one UPDATE (the
one UPDATE of a reader's own fresh rows, kept because nothing cheaper reads the tail first).
"""
from __future__ import annotations

import re

from ...engine import duckdb

from ...errors import InputError
from ...progress import watch
from ..sources.csvsource import NS_LIMIT
from ..sources.errors import printable
from ..sources.file import SourceFile
from ..sources.jsonbytes import ArrayEndNotFound, is_gzip, object_span
from ..sources.jsonsource import event_array, scan_metadata
from .chrome import insert_events

# Kineto writes its metadata events (process and thread names) after all activities, at the
# end of traceEvents; this much of the file's end is scanned for them.
META_TAIL = 16 << 20


def base_time_ns(meta: dict, path=None) -> int:
    """``baseTimeNanoseconds`` (a non-negative integer below 2^62, or its text) → int; 0 when
    absent or null.

    Raises:
        InputError: any other value (it would shift every timestamp of the trace).
    """
    base = meta.get("baseTimeNanoseconds")
    if base is None:
        return 0
    text = str(base).strip() if isinstance(base, (int, str)) and not isinstance(base, bool) else ""
    if re.fullmatch(r"[0-9]{1,19}", text) and int(text) < NS_LIMIT:
        return int(text)
    raise InputError(f"baseTimeNanoseconds holds {printable(repr(base), 40)}, not a time in ns (an integer "
                     f"from 0 to 2^62).", file=str(path), place="baseTimeNanoseconds",
                     hint="the file was edited or corrupted; re-export the trace.")


def read(con: duckdb.DuckDBPyConnection, f: SourceFile) -> int:
    """Insert one Kineto trace's events; sets ``f.rank``; returns the number of events.

    Raises:
        InputError: no traceEvents array, truncated or malformed JSON (the place named).
        SplitReadFailed: the parallel read failed (the ingest retries in one piece).
    """
    if not is_gzip(f.path):
        try:
            meta, span = object_span(f.path)
        except ArrayEndNotFound:
            meta = None     # truncated, or whitespace between the array and the end: read as a stream
        if meta is not None:
            f.rank = f.assign_rank(meta)
            scanned = scan_metadata(f.path, max(0, f.path.stat().st_size - META_TAIL))
            with watch(con, f.path.name, f.bar):
                return insert_events(con, f, f.rank, span=span, meta=scanned, base_ns=base_time_ns(meta, f.path))
    placeholder = -1 - f.file_id
    with event_array(f.path) as (fifo, feeder), watch(con, f.path.name, f.bar):
        try:
            n = insert_events(con, f, placeholder, fifo=fifo)
        except InputError:
            if feeder is not None and feeder.error:
                feeder.finish()   # the feeder's message is the precise one
            raise
        meta = feeder.finish() if feeder is not None else {}
    f.rank = f.assign_rank(meta)
    con.execute("UPDATE event SET rank = ?, ts_ns = ts_ns + ? WHERE file_id = ?",
                [f.rank, base_time_ns(meta, f.path), f.file_id])
    return n
