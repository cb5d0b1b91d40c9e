"""One uncompressed JSON array cut into slices at event boundaries, each fed through its own
FIFO, so that one ``read_json`` call parses the slices on several threads."""
from __future__ import annotations

import os
import re
import threading
from pathlib import Path

from . import tempdirs
from .fifo import copy_range, widen_pipe
from .jsonbytes import is_gzip

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


def split_parts(path: Path, threads: int) -> int:
    """How many slices to cut an array file into: one per thread for large plain files, else 1."""
    if threads < 2 or is_gzip(path) or path.stat().st_size < SPLIT_MIN_BYTES:
        return 1
    return threads
