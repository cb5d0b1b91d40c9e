"""The FIFOs through which readers hand bytes to DuckDB's readers: a wider pipe buffer, a
byte range of a file copied into a pipe by the kernel."""
from __future__ import annotations

import os
import sys

try:
    import fcntl
except ImportError:        # not on Windows
    fcntl = None

CHUNK = 1 << 22            # 4 MiB copy chunks
PIPE_BYTES = 1 << 20       # FIFO buffer asked for (Linux default 64 KiB; 1 MiB = pipe-max-size)
_F_SETPIPE_SZ = 1031       # fcntl command (Linux >= 2.6.35)


def widen_pipe(fd: int) -> None:
    """Ask for a 1 MiB buffer on the FIFO ``fd`` (Linux; elsewhere, or when refused, nothing).

    With the default 64 KiB the feeder and DuckDB's reader hand over every 64 KiB: ~2 000
    context switches per 100 MB slice; with 1 MiB ~150, and the parse of a 100 MB
    trace_view.json takes less wall time (bench/RESULTS.md)."""
    if fcntl is None or not sys.platform.startswith("linux"):
        return
    try:
        fcntl.fcntl(fd, _F_SETPIPE_SZ, PIPE_BYTES)
    except (OSError, ValueError):
        pass


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
