"""Live progress of a long DuckDB statement (parsing a multi-GB trace), from ``query_progress()``.

A thread polls the connection while the statement runs and reports the percentage through a
callback; the CLI draws it in place on a terminal and stays silent otherwise.
"""
from __future__ import annotations

import threading
import time
from contextlib import contextmanager
from typing import Callable

from .engine import duckdb

Bar = Callable[[str, float | None], None]   # (label, percent or None when finished)


@contextmanager
def watch(con: duckdb.DuckDBPyConnection, label: str, bar: Bar | None, every: float = 0.5):
    """Report the progress of the statements run on ``con`` inside the block, every ``every`` s."""
    if bar is None:
        yield
        return
    con.execute("SET enable_progress_bar = true")
    con.execute("SET enable_progress_bar_print = false")
    stop = threading.Event()

    def poll() -> None:
        while not stop.wait(every):
            try:
                pct = con.query_progress()
            except duckdb.Error:
                continue
            if pct is not None and pct >= 0:
                bar(label, float(pct))

    t = threading.Thread(target=poll, daemon=True)
    t.start()
    try:
        yield
    finally:
        stop.set()
        t.join()
        bar(label, None)
        con.execute("SET enable_progress_bar = false")


def terminal_bar(stream) -> Bar:
    """A Bar drawing ``parsing label: 42.0% (3 s)`` in place on ``stream`` (a TTY). DuckDB's
    JSON reader reports progress coarsely, so the elapsed time shows that work goes on."""
    started: dict[str, float] = {}

    def draw(label: str, pct: float | None) -> None:
        if pct is None:
            started.pop(label, None)
            stream.write("\r\033[K")
        else:
            t0 = started.setdefault(label, time.monotonic())
            stream.write(f"\r  parsing {label}: {pct:5.1f}% ({time.monotonic() - t0:.0f} s)")
        stream.flush()
    return draw
