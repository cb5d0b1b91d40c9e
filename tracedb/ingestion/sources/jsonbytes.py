"""The bytes of a JSON trace file: opening it (gzip or not), its first and last non-blank
bytes, the end of a Kineto object's ``traceEvents`` array and the keys around it.

Any amount of JSON whitespace may stand before, inside and after a document; a UTF-8 byte order
mark may open it. Only the head and the tail of a file are read here: the events themselves are
DuckDB's to parse.
"""
from __future__ import annotations

import gzip
import json
import re
import zlib
from pathlib import Path

from ...errors import InputError

CHUNK = 1 << 22            # 4 MiB copy chunks
TAIL_WINDOW = 8 << 20      # bytes kept back to find the end of the traceEvents array
QUICK_WINDOW = 64 << 10    # where object_span(quick=True) looks first (see there)
HEAD_LIMIT = 64 << 20      # the traceEvents key must start within this many bytes
EVENTS_KEY = re.compile(rb'"traceEvents"\s*:\s*\[')
BLANKS = b" \t\r\n"        # JSON whitespace
BOM = b"\xef\xbb\xbf"


def open_binary(path: Path):
    """Open a trace file for reading bytes, transparently gunzipping ``*.gz`` files."""
    with open(path, "rb") as f:
        magic = f.read(2)
    if magic == b"\x1f\x8b":
        return gzip.open(path, "rb")
    return open(path, "rb")


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


def blank(data: bytes) -> bool:
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
                    if not blank(chunk):
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


_DECODER = json.JSONDecoder()
_WS = " \t\r\n"


def loads(text: str):
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


def array_end(pending: bytes, source: str, window: int = TAIL_WINDOW) -> int | None:
    """:func:`find_array_end`, a too-deep value after the array being an InputError."""
    try:
        return find_array_end(pending, window)
    except TooDeep as e:
        raise InputError(f"malformed JSON: {e}.", file=source, place="after the traceEvents array",
                         hint="re-export the trace from the profiler.") from e


def find_array_end(pending: bytes, window: int = TAIL_WINDOW) -> int | None:
    """Index of the ']' closing the events array: the leftmost ']' in the last ``window`` bytes
    after which the rest is a valid end of the enclosing object. Bytes are decoded as latin-1 so that
    character and byte positions agree (JSON structure is ASCII)."""
    s = pending.decode("latin-1")
    pos = s.find("]", max(0, len(s) - window))
    while pos != -1:
        if _object_tail_ok(s, pos + 1):
            return pos
        pos = s.find("]", pos + 1)
    return None


class ArrayEndNotFound(InputError):
    """No end of the traceEvents array within :data:`TAIL_WINDOW` of the file's last
    non-blank byte (a truncated file, or a long run of whitespace between the array and the
    end): the caller reads the file as a stream (:class:`ObjectEvents`), which tells them apart."""


def content_bounds(f, size: int) -> tuple[int, int]:
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


def object_span(path: Path, quick: bool = False) -> tuple[dict, tuple[int, int]]:
    """For an uncompressed object trace: the top-level metadata and the byte span of the
    ``traceEvents`` array's content, from the head and the tail of the file only (whitespace
    around the object skipped).

    The end of the array is looked for in the last :data:`TAIL_WINDOW` bytes (every ``]`` there
    is a candidate: ~30 ms for a 4 MB Kineto trace); with ``quick``, in the last
    :data:`QUICK_WINDOW` first (~1 ms). The quick end is the array's unless the keys after the
    array take more than that window and one of their values is an array; then it may be that
    value's end, and
    DuckDB's read of the span fails (content after the array): callers pass ``quick`` only
    where that failure is retried without it (:class:`~tracedb.ingestion.readers.chrome.SplitReadFailed`).

    Raises:
        InputError: no traceEvents array, malformed JSON around it.
        ArrayEndNotFound: no end of the array near the end of the file.
    """
    size = path.stat().st_size
    with open(path, "rb") as f:
        first, last = content_bounds(f, size)
        f.seek(first)
        buf, head, start = b"", None, None
        while head is None:
            data = f.read(min(CHUNK, max(0, last - first - len(buf))))
            if not data:
                raise InputError('no "traceEvents" array found; not a Kineto/Chrome trace object, '
                                 "or the file is truncated.", file=str(path), place=f"byte {first + len(buf)}",
                                 hint="Kineto traces are JSON objects with a traceEvents array.")
            buf += data
            for m in EVENTS_KEY.finditer(buf):
                try:
                    loads(buf[:m.start()].decode("utf-8", "replace") + '"_": 0}')
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
    end = array_end(tail[-QUICK_WINDOW:], str(path)) if quick else None
    if end is not None:
        end += max(0, len(tail) - QUICK_WINDOW)
    else:
        end = array_end(tail, str(path))
    if end is None:
        raise ArrayEndNotFound("truncated or malformed JSON: the traceEvents array has no end (the file is cut, "
                               "or something other than whitespace follows the object).", file=str(path),
                               place="end of file",
                               hint="the profiler may have been killed while writing; re-export the trace.")
    try:
        meta = loads(head.decode("utf-8", "replace") + '"traceEvents": []'
                          + tail[end + 1:].decode("utf-8", "replace"))
    except ValueError as e:
        raise InputError(f"malformed JSON around the traceEvents array: {e}", file=str(path),
                         place=f"byte {tail_base + end}") from e
    return meta, (start, tail_base + end)
