#!/usr/bin/env python3
"""Where an ingest's time goes: wall and CPU seconds of each phase of one ``tracedb.api.ingest``
(the readers by format, the one read of a batch's trace_view.json files, every derive step
summed over its runs, COMMIT, CHECKPOINT, the view library) and per rank.

Works on any checkout since the derive step became a set of numbered files: run it with
that checkout first on the path. CPU seconds are the process's (every DuckDB thread included);
on a loaded machine they are the figure to compare.

    PYTHONPATH=. python bench/ingest_profile.py /tmp/p.duckdb /work/benchdata/cluster/sub8/ascend
    PYTHONPATH=/path/to/old python bench/ingest_profile.py /tmp/p.duckdb PATH --ranks 8

A benchmark, never a test.
"""
from __future__ import annotations

import argparse
import collections
import os
import resource
import time
from contextlib import contextmanager

W: dict[str, float] = collections.defaultdict(float)
C: dict[str, float] = collections.defaultdict(float)
N: collections.Counter = collections.Counter()


@contextmanager
def phase(key: str):
    w, c = time.perf_counter(), time.process_time()
    try:
        yield
    finally:
        W[key] += time.perf_counter() - w
        C[key] += time.process_time() - c
        N[key] += 1


def wrap(obj, name: str, key) -> None:
    """Time every call of ``obj.name`` under ``key`` (a string, or a function of the arguments)."""
    orig = getattr(obj, name, None)
    if orig is None:
        return

    def timed(*a, **kw):
        k = key(*a, **kw) if callable(key) else key
        if k is None:           # not a phase of its own (its parts are timed)
            return orig(*a, **kw)
        with phase(k):
            return orig(*a, **kw)
    setattr(obj, name, timed)


def instrument() -> None:
    import tracedb.ingestion as ingestion
    from tracedb.ingestion import command, derive
    from tracedb.store import library
    wrap(command.Command, "read", lambda self, f: f"read {f.format}")
    wrap(command.Command, "read_together", lambda self, fmt, files:
         f"read {fmt} ({len(files)} files, one statement)" if len(files) > 1 else None)
    steps = {s.sql: s.name for s in derive._steps()}
    guards = {s.guard: s.name for s in derive._steps() if s.guard}
    execute = derive.execute

    def timed_execute(con, sql, *a):
        name = steps.get(sql) or (guards.get(sql) and guards[sql] + " (guard)")
        if name is None:
            return execute(con, sql, *a)
        with phase(f"derive {name}"):
            return execute(con, sql, *a)
    derive.execute = timed_execute
    wrap(library, "install_if_changed", "view library")
    wrap(ingestion, "_checkpoint", "checkpoint")                 # before main's store.faults
    wrap(ingestion, "checkpoint_after_commit", "checkpoint")
    transaction = ingestion.transaction

    @contextmanager
    def timed_transaction(con):
        # the body runs inside; the COMMIT is the last statement of the context
        con.execute("BEGIN TRANSACTION")
        try:
            yield con
            with phase("commit"):
                con.execute("COMMIT")
        except BaseException:
            try:
                con.execute("ROLLBACK")
            except Exception:           # noqa: BLE001 - as the original
                pass
            raise
    assert transaction is not None
    ingestion.transaction = timed_transaction


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("db")
    ap.add_argument("paths", nargs="+")
    ap.add_argument("--ranks", type=int, default=0, help="divide by this many ranks for a per-rank column")
    a = ap.parse_args()
    instrument()
    from tracedb import api
    for p in (a.db, a.db + ".wal"):
        if os.path.exists(p):
            os.remove(p)
    t0, c0 = time.perf_counter(), time.process_time()
    api.ingest(a.paths, a.db)
    wall, cpu = time.perf_counter() - t0, time.process_time() - c0
    per = f" | CPU s per rank" if a.ranks else ""
    print(f"whole ingest: wall {wall:.2f} s, CPU {cpu:.2f} s, peak RSS "
          f"{resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024:.0f} MiB, load {os.getloadavg()[0]:.1f}\n")
    print(f"| phase | runs | wall s | CPU s{per} |")
    print("|---|---:|---:|---:|" + ("---:|" if a.ranks else ""))
    tw = tc = 0.0
    for k in sorted(W, key=lambda k: -C[k]):
        tw, tc = tw + W[k], tc + C[k]
        extra = f" | {C[k] / a.ranks * 1000:.1f} ms" if a.ranks else ""
        print(f"| {k} | {N[k]} | {W[k]:.3f} | {C[k]:.3f}{extra} |")
    extra = f" | {(cpu - tc) / a.ranks * 1000:.1f} ms" if a.ranks else ""
    print(f"| rest (catalog, metadata, plans, Python) | | {wall - tw:.3f} | {cpu - tc:.3f}{extra} |")


if __name__ == "__main__":
    main()
