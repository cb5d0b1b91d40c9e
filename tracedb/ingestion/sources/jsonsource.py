"""Hand a Chrome-trace JSON file to DuckDB's C++ JSON reader as one event array.

Ascend ``trace_view.json`` is a top-level array: DuckDB reads the file itself. Kineto
``*.pt.trace.json(.gz)`` is an object ``{..., "traceEvents": [...], ...}``; read as one JSON
value it is bounded by ``maximum_object_size`` (and 4 GiB), so a feeder thread copies only the
bytes of the ``traceEvents`` array into a FIFO that DuckDB reads with ``format='array'``.
The small keys around the array (``distributedInfo``, ``baseTimeNanoseconds`` ...) are parsed
with :mod:`json` from the head and the tail of the stream. Memory stays bounded by the chunk
size and the tail window, whatever the file size.
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

CHUNK = 1 << 22            # 4 MiB copy chunks
TAIL_WINDOW = 8 << 20      # bytes kept back to find the end of the traceEvents array
HEAD_LIMIT = 64 << 20      # the traceEvents key must start within this many bytes
_KEY = re.compile(rb'"traceEvents"\s*:\s*\[')
PIPE_BYTES = 1 << 20       # FIFO buffer asked for (Linux default 64 KiB; 1 MiB = pipe-max-size)
_F_SETPIPE_SZ = 1031       # fcntl command (Linux >= 2.6.35)


def widen_pipe(fd: int) -> None:
    """Ask for a 1 MiB buffer on the FIFO ``fd`` (Linux; elsewhere, or when refused, nothing).

    With the default 64 KiB the feeder and DuckDB's reader hand over every 64 KiB: ~2 000
    context switches per 100 MB slice; with 1 MiB ~150, and the parse of a 100 MB
    trace_view.json takes less wall time (bench/RESULTS.md)."""
    if not sys.platform.startswith("linux"):
        return
    try:
        import fcntl
        fcntl.fcntl(fd, _F_SETPIPE_SZ, PIPE_BYTES)
    except (ImportError, OSError, ValueError):
        pass


def open_binary(path: Path):
    """Open a trace file for reading bytes, transparently gunzipping ``*.gz`` files."""
    with open(path, "rb") as f:
        magic = f.read(2)
    if magic == b"\x1f\x8b":
        return gzip.open(path, "rb")
    return open(path, "rb")


BLANKS = b" \t\r\n"        # JSON whitespace
BOM = b"\xef\xbb\xbf"


def first_byte(path: Path) -> bytes:
    """First non-blank byte of the (decompressed) file, skipping a UTF-8 BOM; b'' if the file
    is empty or blank (read until the first other byte: a file may start with any amount of
    JSON whitespace)."""
    try:
        with open_binary(path) as f:
            head = f.read(65536)
            if head.startswith(BOM):
                head = head[len(BOM):]
            while True:
                rest = head.lstrip(BLANKS)
                if rest or not head:
                    return rest[:1]
                head = f.read(CHUNK)
    except (OSError, EOFError, zlib.error) as e:
        raise InputError(f"cannot read file: {e}", file=str(path),
                         hint="a .gz file may be truncated or damaged; copy it again.") from e


def _blank(data: bytes) -> bool:
    """Whether a non-empty chunk holds JSON whitespace only (ends tested first: cheap for content)."""
    return data[:1] in (b" ", b"\t", b"\r", b"\n") and data[-1:] in (b" ", b"\t", b"\r", b"\n") \
        and not data.strip(BLANKS)


def last_byte(path: Path) -> tuple[bytes, int]:
    """(last non-blank byte, size) of the (decompressed) file: plain files are read backwards
    from the end in 1 MiB blocks over any amount of trailing whitespace; gzip files are
    decompressed once to their end (a cut gzip stream fails here).

    Raises:
        InputError: the gzip stream is truncated or damaged.
    """
    if is_gzip(path):
        last, size = b"", 0
        try:
            with open_binary(path) as f:
                while chunk := f.read(CHUNK):
                    size += len(chunk)
                    if not _blank(chunk):
                        last = chunk.rstrip(BLANKS)[-1:]
        except (OSError, EOFError, zlib.error) as e:
            raise InputError(f"cannot decompress: {e}", file=str(path), place=f"byte {size} (decompressed)",
                             hint="the gzip file is truncated or damaged.") from e
        return last, size
    size = path.stat().st_size
    with open(path, "rb") as f:
        end = size
        while end > 0:
            lo = max(0, end - (1 << 20))
            f.seek(lo)
            block = f.read(end - lo).rstrip(BLANKS)
            if block:
                return block[-1:], size
            end = lo
    return b"", size


def is_gzip(path: Path) -> bool:
    with open(path, "rb") as f:
        return f.read(2) == b"\x1f\x8b"


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
                for m in _KEY.finditer(buf):
                    prefix = buf[:m.start()]
                    try:
                        _loads(prefix.decode("utf-8", "replace") + '"_": 0}')
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
                if _blank(data):
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
            end = _array_end(pending, src_name)
            if end is None:
                raise InputError("truncated or malformed JSON: the traceEvents array has no end (the file is cut, or "
                                 "something other than whitespace follows the object).",
                                 file=src_name, place="end of file",
                                 hint="the profiler may have been killed while writing; re-export the trace.")
            dst.write(pending[:end + 1])
            tail = pending[end + 1:]
            try:
                self.meta = _loads(head.decode("utf-8", "replace") + '"traceEvents": []'
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


_DECODER = json.JSONDecoder()
_WS = " \t\r\n"


def _loads(text: str):
    """json.loads whose failure on deep nesting is a ValueError like any other malformed JSON;
    a UTF-8 byte order mark before the object is skipped (a BOM is legal at the start of a
    UTF-8 file and DuckDB skips it too)."""
    try:
        return json.loads(text[1:] if text.startswith("\ufeff") else text)
    except RecursionError as e:
        raise TooDeep("JSON nested too deeply") from e


class TooDeep(ValueError):
    """JSON nested deeper than Python's parser goes (a recursion limit): malformed for tracedb."""


def _skip_blanks(s: str, p: int) -> int:
    """The first index at or after ``p`` that is not JSON whitespace."""
    while p < len(s) and s[p] in _WS:
        p += 1
    return p


def _object_tail_ok(s: str, p: int) -> bool:
    """True if ``s[p:]`` is the end of a JSON object: (, "key": value)* } then blanks.

    Raises:
        TooDeep: a value there is nested too deeply to parse.
    """
    n = len(s)
    while True:
        p = _skip_blanks(s, p)
        if p >= n:
            return False
        if s[p] == "}":
            return _skip_blanks(s, p + 1) == n
        if s[p] != ",":
            return False
        p = _skip_blanks(s, p + 1)
        try:
            key, p = _DECODER.raw_decode(s, p)
        except ValueError:
            return False
        if not isinstance(key, str):
            return False
        p = _skip_blanks(s, p)
        if p >= n or s[p] != ":":
            return False
        p = _skip_blanks(s, p + 1)
        try:
            _, p = _DECODER.raw_decode(s, p)
        except ValueError:
            return False
        except RecursionError as e:
            raise TooDeep("JSON nested too deeply after the traceEvents array") from e


def _array_end(pending: bytes, source: str) -> int | None:
    """:func:`_find_array_end`, a too-deep value after the array being an InputError."""
    try:
        return _find_array_end(pending)
    except TooDeep as e:
        raise InputError(f"malformed JSON: {e}.", file=source, place="after the traceEvents array",
                         hint="re-export the trace from the profiler.") from e


def _find_array_end(pending: bytes) -> int | None:
    """Index of the ']' closing the events array: the leftmost ']' in the tail window after
    which the rest is a valid end of the enclosing object. Bytes are decoded as latin-1 so that
    character and byte positions agree (JSON structure is ASCII)."""
    s = pending.decode("latin-1")
    pos = s.find("]", max(0, len(s) - TAIL_WINDOW))
    while pos != -1:
        if _object_tail_ok(s, pos + 1):
            return pos
        pos = s.find("]", pos + 1)
    return None


SPLIT_MIN_BYTES = 64 << 20     # smaller arrays are read by one thread
_BOUNDARY = re.compile(rb'\}\s*,\s*\{\s*"(?:ph|name|pid|tid|ts|cat|dur|args|id|bp|s)"\s*:')


class SplitArray:
    """One uncompressed JSON array file cut into ``parts`` slices at event boundaries, each
    slice fed as ``[`` + slice + ``]`` through its own FIFO, so that one ``read_json`` call
    parses the slices on several threads (DuckDB parallelises across files, not within one).

    A cut is a ``}, {"key":`` seen near the fraction's offset. A cut that falls inside an
    event's nested value leaves a slice that is not valid JSON, so DuckDB rejects it; callers
    then re-run the ingest reading the file in one piece (:class:`tracedb.ingestion.events.SplitReadFailed`).
    """

    def __init__(self, source: Path, parts: int, span: tuple[int, int] | None = None):
        self.source = source
        self.dir = tempdirs.make("split")
        self.ranges = self._ranges(parts, span)
        self.paths = []
        self.threads = []
        for i, (lo, hi) in enumerate(self.ranges):
            fifo = os.path.join(self.dir, f"part{i}.json")
            os.mkfifo(fifo)
            self.paths.append(fifo)
            self.threads.append(threading.Thread(target=self._feed, args=(fifo, lo, hi), daemon=True))

    def _ranges(self, parts: int, span: tuple[int, int] | None) -> list[tuple[int, int]]:
        """Byte ranges of the array's content: ``span`` = (first byte after '[', index of ']'),
        by default the outermost brackets of an array file."""
        size = self.source.stat().st_size
        with open(self.source, "rb") as f:
            if span is None:
                head = f.read(65536)
                start = head.index(b"[") + 1
                f.seek(max(0, size - 65536))
                tail = f.read()
                end = size - len(tail) + tail.rindex(b"]")
            else:
                start, end = span
            ranges, lo = [], start
            for i in range(1, parts):
                f.seek(start + (end - start) * i // parts)
                base = f.tell()
                m = _BOUNDARY.search(f.read(1 << 20))
                if m is None or base + m.start() + 1 <= lo:
                    continue
                ranges.append((lo, base + m.start() + 1))
                lo = base + m.start() + m.group(0).index(b"{")
        ranges.append((lo, end))
        return ranges

    def _feed(self, fifo: str, lo: int, hi: int) -> None:
        try:
            with open(self.source, "rb") as src, open(fifo, "wb", buffering=0) as dst:
                widen_pipe(dst.fileno())
                dst.write(b"[")
                copy_range(src, dst, lo, hi)
                dst.write(b"]")
        except (BrokenPipeError, OSError):
            pass

    def __enter__(self):
        for t in self.threads:
            t.start()
        return self

    def __exit__(self, *exc):
        for fifo, t in zip(self.paths, self.threads):
            if t.is_alive():
                try:
                    os.close(os.open(fifo, os.O_RDONLY | os.O_NONBLOCK))
                except OSError:
                    pass
                t.join(timeout=10)
        for fifo in self.paths:
            try:
                os.remove(fifo)
            except OSError:
                pass
        try:
            os.rmdir(self.dir)
        except OSError:
            pass
        return False


def copy_range(src, dst, lo: int, hi: int) -> None:
    """Copy bytes [lo, hi) of file ``src`` into the pipe ``dst`` (unbuffered). Linux: the kernel
    moves the pages (``os.splice``: 0.16 CPU-s per GB against 0.81 for read + write, measured),
    which leaves that CPU to DuckDB's parser; elsewhere read + write in 4 MiB chunks."""
    if hasattr(os, "splice"):
        off = lo
        while off < hi:
            n = os.splice(src.fileno(), dst.fileno(), min(CHUNK, hi - off), offset_src=off)
            if n == 0:
                return
            off += n
        return
    src.seek(lo)
    left = hi - lo
    while left > 0:
        data = src.read(min(CHUNK, left))
        if not data:
            return
        left -= len(data)
        dst.write(data)


class ArrayEndNotFound(InputError):
    """No end of the traceEvents array within :data:`TAIL_WINDOW` of the file's last
    non-blank byte (a truncated file, or a long run of whitespace between the array and the
    end): the caller reads the file as a stream (:class:`ObjectEvents`), which tells them apart."""


def _content_bounds(f, size: int) -> tuple[int, int]:
    """(offset of the first, offset after the last) non-blank byte of a plain file (a BOM at
    the start skipped), reading blocks of 1 MiB from either end over any amount of whitespace."""
    f.seek(0)
    first = 3 if f.read(3) == BOM else 0
    lo = first
    while lo < size:
        f.seek(lo)
        block = f.read(1 << 20)
        rest = block.lstrip(BLANKS)
        if rest:
            first = lo + len(block) - len(rest)
            break
        lo += len(block)
    else:
        return size, size
    end = size
    while end > first:
        lo = max(first, end - (1 << 20))
        f.seek(lo)
        block = f.read(end - lo).rstrip(BLANKS)
        if block:
            return first, lo + len(block)
        end = lo
    return first, first


def object_span(path: Path) -> tuple[dict, tuple[int, int]]:
    """For an uncompressed object trace: the top-level metadata and the byte span of the
    ``traceEvents`` array's content, from the head and the tail of the file only (whitespace
    around the object skipped).

    Raises:
        InputError: no traceEvents array, malformed JSON around it.
        ArrayEndNotFound: no end of the array near the end of the file.
    """
    size = path.stat().st_size
    with open(path, "rb") as f:
        first, last = _content_bounds(f, size)
        f.seek(first)
        buf, head, start = b"", None, None
        while head is None:
            data = f.read(min(CHUNK, max(0, last - first - len(buf))))
            if not data:
                raise InputError('no "traceEvents" array found; not a Kineto/Chrome trace object, '
                                 "or the file is truncated.", file=str(path), place=f"byte {first + len(buf)}",
                                 hint="Kineto traces are JSON objects with a traceEvents array.")
            buf += data
            for m in _KEY.finditer(buf):
                try:
                    _loads(buf[:m.start()].decode("utf-8", "replace") + '"_": 0}')
                except ValueError:
                    continue
                head, start = buf[:m.start()], first + m.end()
                break
            if head is None and len(buf) > HEAD_LIMIT:
                raise InputError('no "traceEvents" array in the first 64 MiB.', file=str(path),
                                 place=f"byte {first}")
        f.seek(max(start, last - TAIL_WINDOW))
        tail_base = f.tell()
        tail = f.read(last - tail_base)
    end = _array_end(tail, str(path))
    if end is None:
        raise ArrayEndNotFound("truncated or malformed JSON: the traceEvents array has no end (the file is cut, "
                               "or something other than whitespace follows the object).", file=str(path),
                               place="end of file",
                               hint="the profiler may have been killed while writing; re-export the trace.")
    try:
        meta = _loads(head.decode("utf-8", "replace") + '"traceEvents": []'
                          + tail[end + 1:].decode("utf-8", "replace"))
    except ValueError as e:
        raise InputError(f"malformed JSON around the traceEvents array: {e}", file=str(path),
                         place=f"byte {tail_base + end}") from e
    return meta, (start, tail_base + end)


def split_parts(path: Path, threads: int) -> int:
    """How many slices to cut an array file into: one per thread for large plain files, else 1."""
    if threads < 2 or is_gzip(path) or path.stat().st_size < SPLIT_MIN_BYTES:
        return 1
    return threads


def _check_array_closed(path: Path) -> None:
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
        _check_array_closed(path)
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
