"""PyTorch Kineto ``*.pt.trace.json(.gz)`` (a JSON object with a ``traceEvents`` array) → ``event``.

The rank comes from the trace's ``distributedInfo`` (else the file name, else the next free
number: :meth:`tracedb.ingestion.catalog.Catalog.kineto_rank`), ``ts`` is offset by
``baseTimeNanoseconds``. Kernels, steps and ``[memory]`` rows are derived from the events.

A plain file: its metadata and the array's byte span come from its head and tail, then one
INSERT reads the array (in parallel slices). The plain files of a batch of ranks are read
together in one statement (:mod:`.trace_set`): their ranks come from their head and tail
before the read (:func:`prepare`). A gzip file (or a plain one whose array does not
end near its end): the array streams through a FIFO
under a placeholder rank; the keys after the array (``baseTimeNanoseconds``) are known only
at the end of the stream, so its rows then get their rank and base time in one UPDATE (the
one UPDATE of a reader's own fresh rows, kept because nothing cheaper reads the tail first).
"""
from __future__ import annotations

import re
from contextlib import contextmanager

from ...engine import duckdb

from ...errors import InputError
from ...progress import watch
from ..sources.csvsource import NS_LIMIT
from ..sources.errors import printable
from ..sources.file import SourceFile
from ..sources.jsonbytes import ArrayEndNotFound, is_gzip, object_span
from ..sources.jsonsource import event_array, scan_metadata
from ..sources.jsonsplit import SplitArray
from . import trace_set
from .chrome import TS_RAW, SplitReadFailed, insert_events

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
            meta, span = object_span(f.path, quick=f.split)
        except ArrayEndNotFound:
            meta = None     # truncated, or whitespace between the array and the end: read as a stream
        if meta is not None:
            f.rank = f.assign_rank(meta)
            scanned = scan_metadata(f.path, max(0, f.path.stat().st_size - META_TAIL))
            with watch(con, f.path.name, f.bar):
                try:
                    return insert_events(con, f, f.rank, span=span, meta=scanned,
                                         base_ns=base_time_ns(meta, f.path))
                except InputError as e:
                    if f.split:     # the quick end of the array may be wrong: again without it
                        raise SplitReadFailed(str(e)) from e
                    raise
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


def eligible(path) -> bool:
    """A plain (not gzip) trace: the files a set read takes (:func:`prepare` decides the rest)."""
    try:
        return not is_gzip(path)
    except OSError:
        return False


def prepare(f: SourceFile) -> bool:
    """Before a set read: set ``f.rank`` from the trace's keys around its array (head and tail);
    False for a trace whose array end is not found there (it is read on its own, as a stream).

    Raises:
        InputError: no traceEvents array, malformed JSON around it.
    """
    try:
        meta, span = object_span(f.path, quick=True)
    except ArrayEndNotFound:
        return False
    if _needs_raw_ts(f.path, span[0]):
        return False
    f.rank = f.assign_rank(meta)
    # assigned once (it writes the trace's device rows): a batch's only trace is read on its own
    f.assign_rank = lambda _meta, rank=f.rank: rank
    return True


def _needs_raw_ts(path, start: int) -> bool:
    """True if the first ts of the array (in its first 64 KiB) is a number the set read's typed
    columns cannot give exactly (epoch µs with decimals, as older Kineto writes them: the set
    read would mark the file and read it again; :func:`tracedb.ingestion.readers.chrome.fast_ts_text`)."""
    with open(path, "rb") as fh:
        fh.seek(start)
        m = re.search(TS_RAW.encode(), fh.read(64 << 10))
    if m is None:
        return False
    text = m.group(1).decode()
    if not any(c in text for c in ".eE"):
        return False
    try:
        return len(text) > 16 or abs(float(text)) >= 1e12
    except ValueError:
        return False


def member(f: SourceFile) -> trace_set.Member:
    """A plain Kineto trace as a member of a set read: its array's bytes through a FIFO, its
    metadata events, its baseTimeNanoseconds. The quick end of the array (object_span) is
    checked by the read: a wrong one fails it, and the ingest runs again file by file."""
    meta, span = object_span(f.path, quick=True)
    scanned = scan_metadata(f.path, max(0, f.path.stat().st_size - META_TAIL))
    return trace_set.Member(_fifo(f.path, span), scanned, base_time_ns(meta, f.path), span)


@contextmanager
def _fifo(path, span: tuple[int, int]):
    with SplitArray(path, 1, span) as whole:
        yield whole.paths[0]


def read_set(con: duckdb.DuckDBPyConnection, files: list[SourceFile]) -> dict[int, int]:
    """Insert the events of plain Kineto traces (each prepared) in one statement
    (:func:`tracedb.ingestion.readers.trace_set.read`); returns {file_id: events}."""
    return trace_set.read(con, files, "Kineto trace", member=member)
