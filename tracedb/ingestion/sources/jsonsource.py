"""Hand a Chrome-trace JSON file to DuckDB's C++ JSON reader as one event array.

Ascend ``trace_view.json`` is a top-level array: DuckDB reads the file itself. Kineto
``*.pt.trace.json(.gz)`` is an object ``{..., "traceEvents": [...], ...}``; read as one JSON
value it is bounded by ``maximum_object_size`` (and 4 GiB), so a feeder thread copies only the
bytes of the ``traceEvents`` array into a FIFO that DuckDB reads with ``format='array'``.
The small keys around the array (``distributedInfo``, ``baseTimeNanoseconds`` ...) are parsed
with :mod:`json` from the head and the tail of the stream. Memory stays bounded by the chunk
size and the tail window, whatever the file size. The bytes of the file are read with
:mod:`.jsonbytes`; a large array file is cut into slices by :mod:`.jsonsplit`.
"""
from __future__ import annotations

import ctypes
import gzip
import json
import os
import re
import sys
import threading
import zlib
from contextlib import contextmanager
from pathlib import Path

from ...errors import InputError
from . import tempdirs
from .fifo import widen_pipe
from .jsonbytes import (BLANKS, BOM, CHUNK, EVENTS_KEY, HEAD_LIMIT, TAIL_WINDOW, array_end, blank, first_byte,
                        is_gzip, last_byte, loads, open_binary)

class ObjectEvents:
    """The ``traceEvents`` array of a JSON-object trace, streamed through a FIFO.

    Use as a context manager; ``path`` is what to give ``read_json(format='array')``, and after
    the read, ``meta`` holds every other top-level key and ``error`` any feeder failure.
    """

    def __init__(self, source: Path):
        self.source = source
        self.meta: dict = {}
        self.error: InputError | None = None
        self.array_offset = 0
        self._dir = tempdirs.make("fifo")
        self.path = os.path.join(self._dir, "traceEvents.json")
        os.mkfifo(self.path)
        self._thread = threading.Thread(target=self._feed, daemon=True)

    def __enter__(self):
        self._thread.start()
        return self

    def __exit__(self, *exc):
        if self._thread.is_alive():
            # DuckDB failed before or while reading: unblock the feeder so it can stop.
            try:
                fd = os.open(self.path, os.O_RDONLY | os.O_NONBLOCK)
                os.close(fd)
            except OSError:
                pass
            self._thread.join(timeout=10)
        try:
            os.remove(self.path)
            os.rmdir(self._dir)
        except OSError:
            pass
        return False

    def finish(self) -> dict:
        """Wait for the feeder; raise its error if it had one; return the top-level metadata."""
        self._thread.join()
        if self.error:
            raise self.error
        return self.meta

    # -- feeder thread -------------------------------------------------------------
    def _feed(self) -> None:
        try:
            with open(self.path, "wb") as dst:
                widen_pipe(dst.fileno())
                try:
                    self._copy(dst)
                except InputError as e:
                    self.error = e
                except (OSError, EOFError, gzip.BadGzipFile, zlib.error) as e:
                    if isinstance(e, BrokenPipeError):
                        return
                    place = "end of the compressed data" if isinstance(e, EOFError) else None
                    self.error = InputError(f"cannot read file: {e}", file=str(self.source), place=place,
                                            hint="the file is truncated or not gzip data; copy it again.")
                except Exception as e:   # noqa: BLE001 - any failure must reach the reader
                    # e.g. RecursionError on deeply nested metadata: without this the feeder
                    # dies, the FIFO closes empty and DuckDB reads an empty array (0 events)
                    self.error = InputError(f"cannot parse the keys around traceEvents: {type(e).__name__}",
                                            file=str(self.source),
                                            hint="the file is malformed (e.g. nested too deeply); re-export it.")
        except BrokenPipeError:
            pass
        except OSError as e:
            if self.error is None:
                self.error = InputError(f"cannot stream file: {e}", file=str(self.source))

    def _copy(self, dst) -> None:
        src_name = str(self.source)
        with open_binary(self.source) as src:
            buf = b""
            head = None
            skipped = 0             # blanks (and a BOM) before the object: any amount
            while head is None:
                data = src.read(CHUNK)
                if not data:
                    raise InputError('no "traceEvents" array found; not a Kineto/Chrome trace object, '
                                     "or the file is truncated.", file=src_name, place=f"byte {skipped + len(buf)}",
                                     hint="Kineto traces are JSON objects with a traceEvents array.")
                if not buf:
                    if not skipped and data.startswith(BOM):
                        data, skipped = data[len(BOM):], len(BOM)
                    lead = len(data) - len(data.lstrip(BLANKS))
                    data, skipped = data[lead:], skipped + lead
                    if not data:
                        continue
                buf += data
                for m in EVENTS_KEY.finditer(buf):
                    prefix = buf[:m.start()]
                    try:
                        loads(prefix.decode("utf-8", "replace") + '"_": 0}')
                    except ValueError:
                        continue
                    head = prefix
                    rest = buf[m.end() - 1:]   # starts with '['
                    self.array_offset = skipped + m.end() - 1
                    break
                if head is None and len(buf) > HEAD_LIMIT:
                    raise InputError('no "traceEvents" array in the first 64 MiB.', file=src_name,
                                     place=f"byte {skipped}")
            # stream the array, holding back a tail window to find where it ends. Chunks of
            # blanks only are held back as a count, so that any amount of whitespace (after
            # the object, or between its parts) keeps the end within the window: at the end of
            # the file they are dropped; before more content they go out again, exactly when
            # they are spaces (which a string may hold), else as one line break (a run with a
            # line break or a tab cannot be inside a JSON string, so it separates tokens)
            pending = rest
            blank_run, spaces_only = 0, True
            while True:
                data = src.read(CHUNK)
                if not data:
                    break
                if blank(data):
                    blank_run += len(data)
                    spaces_only = spaces_only and data.count(b" ") == len(data)
                    continue
                if blank_run:
                    if spaces_only:
                        for k in range(0, blank_run, CHUNK):
                            pending = self._hold(dst, pending + b" " * min(CHUNK, blank_run - k))
                    else:
                        pending += b"\n"
                    blank_run, spaces_only = 0, True
                pending = self._hold(dst, pending + data)
            total = self.array_offset + len(pending)  # not exact when data was written, fine for messages
            end = array_end(pending, src_name, TAIL_WINDOW)
            if end is None:
                raise InputError("truncated or malformed JSON: the traceEvents array has no end (the file is cut, or "
                                 "something other than whitespace follows the object).",
                                 file=src_name, place="end of file",
                                 hint="the profiler may have been killed while writing; re-export the trace.")
            dst.write(pending[:end + 1])
            tail = pending[end + 1:]
            try:
                self.meta = loads(head.decode("utf-8", "replace") + '"traceEvents": []'
                                       + tail.decode("utf-8", "replace"))
            except ValueError as e:
                raise InputError(f"malformed JSON around the traceEvents array: {e}", file=src_name,
                                 place=f"about byte {total}") from e

    @staticmethod
    def _hold(dst, pending: bytes) -> bytes:
        """Write all but the last :data:`TAIL_WINDOW` bytes once ``pending`` outgrows the window
        by a chunk; return what is held back."""
        if len(pending) > TAIL_WINDOW + CHUNK:
            cut = len(pending) - TAIL_WINDOW
            dst.write(pending[:cut])
            pending = pending[cut:]
        return pending


def check_array_closed(path: Path) -> None:
    """An array file must end with ``]`` (then any amount of whitespace). DuckDB's array reader
    accepts a file cut right after an event's comma (measured: ``[{…},`` reads as one event), so
    a truncation at an event boundary would load silently without this check."""
    last, size = last_byte(path)
    if last != b"]":
        where = f"byte {size} (decompressed)" if is_gzip(path) else f"byte {size}"
        raise InputError("the JSON array is not closed: the file is truncated (or something other than "
                         "whitespace follows the array).", file=str(path),
                         place=where, hint="re-export it from the profiler, or copy it again.")


@contextmanager
def event_array(path: Path):
    """Yield ``(read_path, source)``: a path for ``read_json(format='array')`` and, for object
    traces, the :class:`ObjectEvents` feeder (``None`` for array files)."""
    kind = first_byte(path)
    if kind == b"[":
        check_array_closed(path)
        yield str(path), None
    elif kind == b"{":
        with ObjectEvents(path) as src:
            yield src.path, src
    elif kind == b"":
        raise InputError("file is empty.", file=str(path), place="byte 0")
    else:
        raise InputError(f"not a JSON trace (starts with {kind!r}).", file=str(path), place="byte 0",
                         hint="expected a JSON array (trace_view.json) or object (Kineto).")


# -- metadata events of array files ---------------------------------------------------------
_DECODER = json.JSONDecoder()
_PH_KEY = re.compile(rb'"ph"\s*:\s*\Z')   # "ph": right before a hit
SCAN_CHUNK = 16 << 20


def scan_metadata(path: Path, start: int = 0) -> list[dict]:
    """The metadata (``"ph": "M"``) events of an uncompressed trace file, found by a byte scan
    from byte ``start`` to the end.

    Only a few hundred events name processes and threads. The file is read in chunks of up to
    16 MiB into one reused buffer (not a memory map: its pages would count as resident memory;
    no larger than the bytes to scan: a fresh 16 MiB buffer costs ~8 ms); the literal ``"M"``
    (rare outside ph values) is searched with :func:`_find_all`, each hit must follow
    ``"ph":``, and the innermost object that encloses it is decoded: torch_npu writes the
    Ascend Hardware metadata as ``{"name": …, "args": {"name": …}, "ph": "M"}``, where the
    nearest ``{`` before the hit opens ``args``. Missed events (before ``start``, or an event
    cut by it) are caught after the read (the chrome reader names threads from the rows, with
    two UPDATEs of the file's events), so this is an optimisation, never the source of truth.
    """
    found, seen = [], set()
    back, ahead = 4096, 65536          # an M event starts <= 4 KiB before "ph" and is < 64 KiB long
    try:
        todo = max(0, path.stat().st_size - start)
    except OSError:
        todo = SCAN_CHUNK
    chunk = max(1, min(SCAN_CHUNK, todo))
    buf = bytearray(chunk + back + ahead)
    view = memoryview(buf)
    with open(path, "rb") as f:
        f.seek(start)
        filled, base = 0, start        # buf[:filled] holds file bytes [base, base + filled)
        while True:
            got = f.readinto(view[filled:filled + chunk])
            filled += got
            end = filled if not got else max(0, filled - ahead)
            for hit in _find_all(buf, b'"M"', end):
                if not _PH_KEY.search(buf, max(0, hit - 64), hit):
                    continue
                begin, ev = _enclosing_object(buf, hit, max(0, hit - back), filled, ahead)
                if isinstance(ev, dict) and ev.get("ph") == "M" and base + begin not in seen:
                    seen.add(base + begin)
                    found.append(ev)
            if not got:
                view.release()
                return found
            keep = max(0, end - back)
            view[:filled - keep] = view[keep:filled]
            filled, base = filled - keep, base + keep


def _enclosing_object(buf: bytearray, hit: int, lo: int, filled: int, ahead: int) -> tuple[int, object]:
    """(start, decoded value) of the innermost JSON object in ``buf`` that opens at or after
    ``lo`` and encloses offset ``hit``; (-1, None) if none does. Tries each ``{`` before the hit,
    nearest first: one that decodes to a value ending before the hit (a nested ``args``) or
    does not decode (a brace inside a string) is passed over."""
    begin = buf.rfind(b"{", lo, hit)
    while begin >= 0:
        text = buf[begin:min(begin + ahead, filled)].decode("utf-8", "replace")
        try:
            ev, length = _DECODER.raw_decode(text)
        except (ValueError, RecursionError):
            ev, length = None, 0
        if ev is not None and len(text[:length].encode("utf-8", "replace")) > hit - begin:
            return begin, ev
        begin = buf.rfind(b"{", lo, begin)
    return -1, None


def _libc_memmem():
    try:
        fn = ctypes.CDLL(None).memmem
    except (AttributeError, OSError, TypeError):
        return None
    fn.restype = ctypes.c_void_p
    fn.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_char_p, ctypes.c_size_t]
    return fn


_MEMMEM = _libc_memmem() if sys.platform != "win32" else None


def _find_all(buf: bytearray, needle: bytes, end: int):
    """Offsets of ``needle`` in ``buf[:end]``. libc ``memmem`` where there is one: JSON is full
    of the quote character that ``bytes.find`` keys on, so it runs about 4x slower here."""
    if _MEMMEM is None or end <= 0:
        hit = buf.find(needle, 0, end)
        while hit != -1:
            yield hit
            hit = buf.find(needle, hit + len(needle), end)
        return
    base = ctypes.addressof(ctypes.c_char.from_buffer(buf))
    off = 0
    while off < end:
        r = _MEMMEM(base + off, end - off, needle, len(needle))
        if not r:
            return
        hit = r - base
        yield hit
        off = hit + len(needle)
