"""The concurrency of ``tracedb compare``: DuckDB's threads and vacuum around the command, the
database opened in a helper thread, and the two sides ingested at the same time.

Two sides whose files together take at most half of DuckDB's memory limit are ingested at the
same time, each in its own thread, connection and transaction: DuckDB runs the statements of
both, and a side's own statements keep both cores busy only while a large trace is parsed
(bench/RESULTS.md has the wall times).
"""
from __future__ import annotations

import threading
from concurrent.futures import ThreadPoolExecutor, wait
from contextlib import contextmanager
from pathlib import Path
from typing import Callable

from .. import ingestion as ingest_pkg
from ..engine import duckdb
from ..ingestion.staging import setting_bytes
from ..store import library, template
from ..store.db import connect, transaction
from ..store.session import remove_created


@contextmanager
def threads_set(con: duckdb.DuckDBPyConnection, n: int | None):
    """DuckDB's ``threads`` set to ``n`` inside the block (None: left as it is), restored after.
    A failed restore cannot hide the block's own error (the caller closes the connection)."""
    if n is None:
        yield
        return
    before = con.execute("SELECT current_setting('threads')").fetchone()[0]
    con.execute(f"SET threads = {int(n)}")
    try:
        yield
    finally:
        try:
            con.execute(f"SET threads = {int(before)}")
        except duckdb.Error:
            pass


def pause_vacuum(con: duckdb.DuckDBPyConnection) -> int | None:
    """Let this command's checkpoints write the new rows as they are (``max_vacuum_tasks = 0``,
    a global DuckDB setting; returns its value to restore, None if this DuckDB lacks it).

    Each side's ingest leaves a partial last row group in every table it fills; the first
    checkpoint that may vacuum merges neighbouring partial row groups, re-compressing them
    (a quarter of a second for two 100 MB ranks, on the path of every ``tracedb compare``).
    Leaving them costs one more row group per table and side; the next ``tracedb ingest``
    merges them.
    """
    try:
        before = con.execute("SELECT current_setting('max_vacuum_tasks')").fetchone()[0]
        con.execute("SET max_vacuum_tasks = 0")
        return int(before)
    except duckdb.Error:
        return None


def open_seeded(db: str | Path | None, memory_limit: str) -> tuple[duckdb.DuckDBPyConnection, int | None, bool]:
    """(connection, vacuum setting to restore, seeded) for a command that ingests: the database
    opened read-write, its vacuum paused (:func:`pause_vacuum`) and, when new, seeded from the
    cached template (:func:`tracedb.store.template.seed`)."""
    con = connect(db, memory_limit=memory_limit)
    try:
        vacuum = pause_vacuum(con)
        return con, vacuum, template.seed(con)
    except BaseException:
        con.close()
        raise


def discard(opening, created: tuple[Path, bool] | None) -> None:
    """Close the database :func:`open_seeded` opened (or failed to), and remove it as a failed
    ``tracedb ingest`` does when ``created`` is (its path, whether a .wal was there before):
    the file this command created."""
    try:
        opening.result()[0].close()
    except BaseException:
        pass
    if created is not None:
        remove_created(*created)


def ingest_sides(con: duckdb.DuckDBPyConnection, sides: list[tuple[str, str, str]],
                  progress: Callable[[str], None], seeded: bool = False, threads: int | None = None) -> None:
    """Ingest the sides given as paths ((path, run name, role) each).

    Two sides whose files together take at most half of DuckDB's memory limit are ingested at
    the same time, each in its own thread, connection and transaction: DuckDB runs the
    statements of both, and a side's own statements keep both cores busy only while a large
    trace is parsed (bench/RESULTS.md has the wall times). The caller gives DuckDB one thread
    fewer than it has (see :func:`tracedb.compare.command.run_compare`). Larger sides go one after the other, as their
    memory would add up, each with DuckDB's ``threads`` set to ``threads`` (None: as it is).
    The ids are the ones a sequential ingest gives (the comparison's above every id the
    baseline can take).

    A side that fails is rolled back and the other is kept, as when they run one after the
    other; the baseline's error is raised first (a path tracedb does not recognise is refused
    before the database is opened, see :func:`_side_name`). An interrupt (Ctrl-C, SIGTERM)
    rolls back both sides. ``seeded``: the database was just filled from the template
    (:func:`tracedb.store.template.seed`), so its tables and view library are current.

    Raises:
        InputError: a side cannot be ingested.
    """
    pkg = ingest_pkg
    if len(sides) == 2:
        sizes = [pkg.input_size([path]) for path, _, _ in sides]
        limit = setting_bytes(str(con.execute("SELECT current_setting('memory_limit')").fetchone()[0]))
    if len(sides) < 2 or (limit and 2 * (sizes[0][1] + sizes[1][1]) > limit):
        with threads_set(con, threads):
            for path, name, role in sides:
                progress(f"ingesting {path} as run {name} ({role})")
                pkg.ingest(con, [path], run=name, role=role, progress=progress, checkpoint=False)
        return
    # an older file gets its tables and views here, once, not in both transactions
    if not seeded:
        with transaction(con):
            pkg.derive.upgrade(con)
            library.install_if_changed(con)
    new_run, top_run = con.execute("SELECT count(*) FILTER (WHERE run_name = ?) = 0, coalesce(max(run_id), 0) "
                                   "FROM run", [sides[0][1]]).fetchone()
    top_file = con.execute("SELECT coalesce(max(file_id), 0) FROM source_file").fetchone()[0]
    floors = [(0, 0), (top_run + new_run, top_file + sizes[0][0])]
    jobs = max(1, pkg.default_jobs() // 2)      # worker processes of a side with many ranks
    cursors = [con.cursor() for _ in sides]
    stop = threading.Event()

    def side(cur, floor: tuple[int, int], path: str, name: str, role: str) -> None:
        def say(line: str) -> None:
            if stop.is_set():       # between two statements: roll this side back
                raise KeyboardInterrupt
            progress(f"{role}: {line}")         # the two sides' lines interleave

        say(f"ingesting {path} as run {name}")
        pkg.ingest(cur, [path], run=name, role=role, progress=say, checkpoint=False, id_floor=floor, jobs=jobs,
                   schema_current=True)

    try:
        with ThreadPoolExecutor(2, thread_name_prefix="tracedb-side") as pool:
            futures = [pool.submit(side, cur, floor, *s) for cur, floor, s in zip(cursors, floors, sides)]
            try:
                wait(futures)
            except BaseException:
                stop.set()
                while not all(f.done() for f in futures):   # an interrupt reaches a running statement only
                    for cur in cursors:
                        cur.interrupt()
                    wait(futures, timeout=0.05)
                raise
        for f in futures:
            f.result()
    finally:
        for cur in cursors:
            cur.close()
