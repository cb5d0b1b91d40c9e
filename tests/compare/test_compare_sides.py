"""``tracedb compare PATH PATH`` ingests its two sides at the same time (two threads, two
connections, two transactions): the database ends up as if they had been ingested one after the
other, a failing side is rolled back alone, and an interrupt rolls back both."""
from __future__ import annotations

import shutil
import signal
import threading
from pathlib import Path

import duckdb
import pytest

from conftest import LEVEL1_2024, corpus_path, rows
from tracedb import api
from tracedb.compare.command import run_compare
from tracedb.errors import InputError

pytestmark = pytest.mark.corpus          # every test reads ../shared/corpus

L1 = "msinsight/test/data/pytorch/text/level1"
OTHER = LEVEL1_2024


def _tables(db) -> dict[str, list[tuple]]:
    """Every table's rows, sorted, without the ingest time stamps."""
    con = duckdb.connect(str(db), read_only=True)
    try:
        out = {}
        for (t,) in con.execute("SELECT table_name FROM duckdb_tables() WHERE schema_name = 'main' "
                                "ORDER BY 1").fetchall():
            cols = [c for (c,) in con.execute("SELECT column_name FROM duckdb_columns() WHERE schema_name = 'main' "
                                              "AND table_name = ? AND column_name <> 'ingested_at' "
                                              "ORDER BY column_index", [t]).fetchall()]
            out[t] = sorted(con.execute(f'SELECT {", ".join(chr(34) + c + chr(34) for c in cols)} FROM "{t}"')
                            .fetchall(), key=repr)
        return out
    finally:
        con.close()


def test_both_sides_at_once_equal_one_after_the_other(tmp_path):
    """Run and file ids, rows and alignment equal ingesting the baseline, then the comparison,
    into a database that already holds a run (so the ids start above it)."""
    r0, r1, other = corpus_path(f"{L1}/rank0_ascend_pt"), corpus_path(f"{L1}/rank1_ascend_pt"), OTHER
    at_once, in_turn = tmp_path / "at_once.duckdb", tmp_path / "in_turn.duckdb"
    for db in (at_once, in_turn):
        api.ingest([other], db, run="other")
    said = []
    report = run_compare(str(r0), str(r1), at_once,
                         progress=lambda s: said.append((threading.current_thread().name, s)))
    sides = {t for t, _ in said if t.startswith("tracedb-side")}
    assert len(sides) == 2                                              # the two sides ran in two threads
    # their lines interleave, so each says its side: rank 0 has 10 112 trace events, rank 1 9 969
    assert all(s.startswith(("baseline: ", "comparison: ")) for t, s in said if t in sides)
    assert any(s.startswith("baseline:   10,112 rows") for _, s in said)
    assert any(s.startswith("comparison:   9,969 rows") for _, s in said)
    api.ingest([r0], in_turn, run="rank0_ascend_pt", role="baseline")
    api.ingest([r1], in_turn, run="rank1_ascend_pt", role="comparison")
    run_compare("rank0_ascend_pt", "rank1_ascend_pt", in_turn)
    got, want = _tables(at_once), _tables(in_turn)
    assert want["run"][1:] == [(2, "rank0_ascend_pt", "baseline", "npu", str(r0.resolve())),
                               (3, "rank1_ascend_pt", "comparison", "npu", str(r1.resolve()))]
    assert len(want["op_match"]) == 115
    assert got == want
    # the report's overall section (read during the alignment, by run name) is the view's rows
    view, columns, overall = report.sections[0]
    con = duckdb.connect(str(at_once), read_only=True)
    try:
        cur = con.execute("SELECT * FROM overall_comparison")
        assert (view, columns, overall) == ("overall_comparison", [d[0] for d in cur.description], cur.fetchall())
    finally:
        con.close()
    assert len(overall) > 10 and [s[0] for s in report.sections] == ["overall_comparison", "op_diff"]


@pytest.mark.parametrize("bad", [0, 1])
def test_a_failing_side_is_rolled_back_and_the_other_kept(tmp_path, bad):
    sides = [corpus_path(f"{L1}/rank0_ascend_pt"), tmp_path / "rank1_ascend_pt"]
    shutil.copytree(corpus_path(f"{L1}/rank1_ascend_pt"), sides[1])
    if bad == 0:
        sides.reverse()
    trace = sides[bad] / "ASCEND_PROFILER_OUTPUT" / "trace_view.json"
    trace.write_bytes(trace.read_bytes()[:100_000])                   # cut inside an event
    db = tmp_path / "c.duckdb"
    with pytest.raises(InputError) as e:
        run_compare(str(sides[0]), str(sides[1]), db)
    assert e.value.file == str(trace)
    good = sides[1 - bad].name
    assert rows(db, "SELECT run_name FROM run") == [(good,)]
    assert rows(db, "SELECT count(DISTINCT run_id), count(*) > 10000 FROM event") == [(1, True)]
    assert rows(db, "SELECT count(*) FROM source_file WHERE path = ?", [str(trace)]) == [(0,)]


def test_an_interrupt_rolls_back_both_sides(tmp_path):
    """SIGINT while both sides are being read (sent when the first file starts): nothing of
    either side stays, and the file opens clean."""
    r0, r1 = corpus_path(f"{L1}/rank0_ascend_pt"), corpus_path(f"{L1}/rank1_ascend_pt")
    db = tmp_path / "c.duckdb"
    sent = threading.Event()

    def progress(line: str) -> None:
        if line.startswith(("baseline: ingest /", "comparison: ingest /")) and not sent.is_set():
            sent.set()
            signal.pthread_kill(threading.main_thread().ident, signal.SIGINT)

    # Python's own SIGINT handler: a test run started in the background of a non-interactive
    # shell inherits SIGINT ignored, and then the signal would never arrive
    before = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        with pytest.raises(KeyboardInterrupt):
            run_compare(str(r0), str(r1), db, progress=progress)
    finally:
        signal.signal(signal.SIGINT, before)
    assert sent.is_set()
    assert rows(db, "SELECT (SELECT count(*) FROM run), (SELECT count(*) FROM event), "
                    "(SELECT count(*) FROM source_file)") == [(0, 0, 0)]


def test_compare_leaves_the_vacuum_setting_as_it_found_it(tmp_path):
    """compare's checkpoints skip DuckDB's vacuum (a global setting): a connection of the same
    process to the same database sees the setting back afterwards."""
    from tracedb.store import db as _db
    r0, r1 = corpus_path(f"{L1}/rank0_ascend_pt"), corpus_path(f"{L1}/rank1_ascend_pt")
    db = tmp_path / "c.duckdb"
    api.ingest([r0], db, run="r0")
    api.ingest([r1], db, run="r1")
    keep = _db.connect(db)
    try:
        keep.execute("SET max_vacuum_tasks = 7")
        run_compare("r0", "r1", db)
        assert keep.execute("SELECT current_setting('max_vacuum_tasks')").fetchone() == (7,)
    finally:
        keep.close()


def test_memory_limit_decides_at_once_or_in_turn(tmp_path, monkeypatch):
    """compare runs under tracedb ingest's memory limit by default; sides whose files together
    take more than half of it are ingested one after the other, in this thread."""
    import tracedb.ingestion as _ingest
    from tracedb.compare import concurrency
    r0, r1 = corpus_path(f"{L1}/rank0_ascend_pt"), corpus_path(f"{L1}/rank1_ascend_pt")
    limits = []
    connect = concurrency.connect
    monkeypatch.setattr(concurrency, "connect", lambda *a, **k: limits.append(k.get("memory_limit")) or connect(*a, **k))
    # the files tracedb reads of a level1 rank (not api_statistic, l2_cache, op_statistic, operator_details)
    read = [r0 / n for n in ("profiler_info_0.json", "profiler_metadata.json")] + [
        r0 / "ASCEND_PROFILER_OUTPUT" / n for n in (
            "trace_view.json", "kernel_details.csv", "step_trace_time.csv", "communication.json",
            "communication_matrix.json", "memory_record.csv", "operator_memory.csv", "npu_module_mem.csv")]
    assert _ingest.input_size([r0]) == (10, sum(p.stat().st_size for p in read))
    threads = set()
    run_compare(str(r0), str(r1), tmp_path / "a.duckdb", progress=lambda s: threads.add(threading.current_thread().name))
    assert limits == [api.DEFAULT_INGEST_MEMORY] and len(threads) == 2
    # files of 2 x 300 MB against a 1000MB limit: one after the other
    monkeypatch.setattr(_ingest, "input_size", lambda paths: (12, 300 << 20))
    threads.clear()
    run_compare(str(r0), str(r1), tmp_path / "b.duckdb", memory_limit="1000MB",
                progress=lambda s: threads.add(threading.current_thread().name))
    assert limits[-1] == "1000MB" and threads == {threading.main_thread().name}


def test_a_compare_of_two_paths_runs_one_duckdb_thread_fewer(tmp_path, monkeypatch):
    """DuckDB's ``threads`` counts the thread that runs a statement: while two of the command's
    threads run statements (the two sides, then overall_comparison beside the alignment) it is
    one lower (on 2 cores, 1: no worker thread shared by the sides), lowered once for both, and
    restored at the end, also when a side fails."""
    import tracedb.ingestion as pkg
    from tracedb.compare import command as compare, concurrency
    r0, r1 = corpus_path(f"{L1}/rank0_ascend_pt"), corpus_path(f"{L1}/rank1_ascend_pt")
    seen, sets = [], []

    def threads(con):
        return con.execute("SELECT current_setting('threads')").fetchone()[0]

    class Spy:          # the command's connection, opened with 3 threads
        def __init__(self, con):
            self._con = con

        def __getattr__(self, name):
            return getattr(self._con, name)

        def execute(self, sql, *args):
            if str(sql).startswith("SET threads"):
                sets.append(str(sql))
            return self._con.execute(sql, *args)

        def close(self):
            seen.append(("close", threads(self._con)))
            self._con.close()

    connect, ingest, overall = concurrency.connect, pkg.ingest, compare.overall_section
    monkeypatch.setattr(concurrency, "connect", lambda *a, **k: Spy(connect(*a, **{**k, "threads": 3})))
    monkeypatch.setattr(pkg, "ingest", lambda cur, *a, **k: (seen.append(("side", threads(cur))),
                                                              ingest(cur, *a, **k))[1])
    monkeypatch.setattr(compare, "overall_section", lambda cur, *a: (seen.append(("overall", threads(cur))),
                                                              overall(cur, *a))[1])
    compare.run_compare(str(r0), str(r1), tmp_path / "a.duckdb")
    assert seen == [("side", 2), ("side", 2), ("overall", 2), ("close", 3)]
    assert sets == ["SET threads = 2", "SET threads = 3"]
    bad = tmp_path / "bad_ascend_pt"
    shutil.copytree(r1, bad)
    (bad / "ASCEND_PROFILER_OUTPUT" / "trace_view.json").write_text('[{"ph": "X", "ts": ')
    seen.clear(), sets.clear()
    with pytest.raises(InputError):
        compare.run_compare(str(r0), str(bad), tmp_path / "b.duckdb")
    assert seen == [("side", 2), ("side", 2), ("close", 3)]
    assert sets == ["SET threads = 2", "SET threads = 3"]


def test_sides_check_the_schema_once(tmp_path, monkeypatch):
    """The tables and the view library are checked once per command, not again by each side:
    not at all in a database just filled from the template, once (upgraded to current) in an
    older one."""
    from tracedb.ingestion import derive
    from tracedb.store import library as registry
    calls = []
    for mod, name in ((derive, "apply_schema"), (registry, "install_if_changed")):
        monkeypatch.setattr(mod, name, lambda *a, __f=getattr(mod, name), __n=name, **k: calls.append(
            (__n, threading.current_thread().name)) or __f(*a, **k))
    r0, r1 = corpus_path(f"{L1}/rank0_ascend_pt"), corpus_path(f"{L1}/rank1_ascend_pt")
    old = tmp_path / "old.duckdb"
    api.ingest([OTHER], old, run="other")        # builds the template first if this session has none
    calls.clear()
    run_compare(str(r0), str(r1), tmp_path / "new.duckdb")
    assert calls == []
    con = duckdb.connect(str(old))
    con.execute("UPDATE tracedb_meta SET value = 'older' WHERE key IN ('schema_hash', 'library_hash')")
    con.close()
    calls.clear()
    run_compare(str(r0), str(r1), old)
    assert sorted(n for n, t in calls) == ["apply_schema", "install_if_changed"]
    assert {t for _, t in calls} == {threading.main_thread().name}
    con = duckdb.connect(str(old), read_only=True)
    assert con.execute("SELECT count(*) FROM tracedb_meta WHERE value = 'older'").fetchone() == (0,)
    con.close()


def test_out_of_memory_says_which_setting_to_raise(tmp_path):
    """DuckDB's out-of-memory error is not blamed on the file ("truncated, re-export"): it names
    --memory-limit, and nothing of the failed side stays."""
    from tracedb.errors import InputError as _InputError, TracedbError
    db = tmp_path / "c.duckdb"
    with pytest.raises(TracedbError) as e:
        api.ingest([corpus_path(f"{L1}/rank0_ascend_pt")], db, memory_limit="8MB")
    assert not isinstance(e.value, _InputError)
    assert e.value.message.startswith("out of memory") and "--memory-limit" in e.value.hint
    assert not db.exists()


@pytest.mark.process
def test_two_sides_with_worker_processes_at_once(tmp_path, monkeypatch):
    """On a machine with cores for worker processes, both sides stage their ranks in workers
    at the same time and publish them through their own attached staging files."""
    import tracedb.ingestion as pkg
    monkeypatch.setattr(pkg, "default_jobs", lambda: 4)             # 2 workers per side
    base = corpus_path(L1)                                         # rank0 + rank1
    comp = tmp_path / "level1_copy"
    shutil.copytree(base, comp)
    said = []
    db = tmp_path / "c.duckdb"
    run_compare(str(base), str(comp), db, progress=said.append)
    assert sum("worker processes" in s for s in said) == 2
    assert rows(db, "SELECT r.run_name, count(DISTINCT e.rank), count(*) FROM event e JOIN run r USING (run_id) "
                    "GROUP BY ALL ORDER BY 1") == [("level1", 2, 20_081), ("level1_copy", 2, 20_081)]


def test_an_unrecognised_path_stops_before_either_side_is_read(tmp_path):
    (tmp_path / "notes").mkdir()
    (tmp_path / "notes" / "readme.txt").write_text("not a profiler output\n")
    db = tmp_path / "c.duckdb"
    with pytest.raises(InputError) as e:
        run_compare(str(corpus_path(f"{L1}/rank0_ascend_pt")), str(tmp_path / "notes"), db)
    assert e.value.file == str(tmp_path / "notes")
    # the database is opened (and a new one seeded) while the paths are detected: a refused
    # path leaves no new file behind, and an existing database as it was
    assert not db.exists() and not Path(str(db) + ".wal").exists()
    run_compare(str(corpus_path(f"{L1}/rank0_ascend_pt")), str(corpus_path(f"{L1}/rank1_ascend_pt")), db)
    before = db.read_bytes()
    with pytest.raises(InputError):
        run_compare(str(tmp_path / "notes"), str(corpus_path(f"{L1}/rank1_ascend_pt")), db)
    assert db.read_bytes() == before and not Path(str(db) + ".wal").exists()
