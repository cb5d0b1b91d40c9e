"""Seeded fuzz campaign over the SQLite inputs (issue 40): the Nsight Systems export, the
torch_npu profiler DB and its analysis.db, as hand-made micro files (tests/ingest/sqlite_micro.py).

Each mutation (a hostile value in a random cell, a table turned into a view or a recursive
view, a table or column dropped or rebuilt, a repeated string id, a cut or damaged file, a
WAL-mode file, ...) is ingested, in-process, into a database that already holds a good run,
and must end in one of two ways (the contract of tests/test_fuzz.py):

* success, with as many rows as Python's sqlite3 counts in the mutated file (no row doubled
  or lost; ``sqlite_micro.expected_kernels``), and nothing written beside the file; or
* an :class:`~tracedb.errors.InputError` naming the file, with every table of the database as
  before.

A traceback, a message without the file name, a changed database, a silent loss or doubling
or a case running longer than ``TIMEOUT`` seconds (an alarm interrupts it) fails the test.
The default run takes a seeded sample of each seed's mutations; the slow sweep the rest.
"""
from __future__ import annotations

import importlib
import random
import shutil
import signal
import sqlite3
import time
from collections import Counter
from pathlib import Path

import pytest

from conftest import FIXTURES
from sqlite_micro import analysis_db, connect as sqlite_connect, expected_kernels, nsys_export, profiler_db
from tracedb.store.db import connect
from tracedb.errors import InputError, TracedbError

ingest_pkg = importlib.import_module("tracedb.ingestion")
TIMEOUT = 30
FAST = 4                   # cases per seed in the default run

VALUES = ["'abc'", "''", "' 12 '", "2.5", "-1", "NULL", "x'00ff'", "9223372036854775807", "-9223372036854775808",
          "1e308", "CAST(x'c328ff' AS TEXT)", "printf('%.*c', 1100000, 'y')", "'1e3'", "char(0)", "4611686018427387904"]


# ---- seeds -------------------------------------------------------------------------------------

def _seed(kind: str, folder: Path) -> tuple[Path, Path]:
    """(file, path to ingest) of a fresh seed of ``kind``."""
    if kind == "nsys":
        folder.mkdir(parents=True, exist_ok=True)
        f = nsys_export(folder / "n.sqlite")
        return f, f
    if kind == "ascend_db":
        f = profiler_db(folder / "r_ascend_pt" / "ASCEND_PROFILER_OUTPUT" / "ascend_pytorch_profiler_0.db")
        return f, f.parent.parent
    f = analysis_db(folder / "analysis.db")
    return f, f


def _tables(f: Path) -> list[tuple[str, list[str]]]:
    con = sqlite3.connect(f)
    try:
        names = [n for (n,) in con.execute("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")]
        return [(t, [r[1] for r in con.execute(f"PRAGMA table_info('{t}')")]) for t in names]
    finally:
        con.close()


# ---- mutations: functions of (file, rng) changing the file in place ------------------------------

def _sql(f: Path, *statements: str) -> None:
    con = sqlite_connect(f)
    try:
        for s in statements:
            con.execute(s)
        con.commit()
    finally:
        con.close()


def _pick(f: Path, rng: random.Random) -> tuple[str, list[str]]:
    return rng.choice([t for t in _tables(f) if t[1]])


def m_value(f: Path, rng: random.Random) -> str:
    table, cols = _pick(f, rng)
    col, value = rng.choice(cols), rng.choice(VALUES)
    con = sqlite_connect(f)
    try:
        rowids = [r for (r,) in con.execute(f'SELECT rowid FROM "{table}"')]
        if rowids:
            con.execute(f'UPDATE "{table}" SET "{col}" = {value} WHERE rowid = ?', [rng.choice(rowids)])
            con.commit()
    except sqlite3.IntegrityError:          # a primary key: a value of another type is refused by SQLite
        pass
    finally:
        con.close()
    return f"value {table}.{col} = {value[:24]}"


def m_view(f: Path, rng: random.Random) -> str:
    table, _ = _pick(f, rng)
    _sql(f, f'ALTER TABLE "{table}" RENAME TO "{table}_0"', f'CREATE VIEW "{table}" AS SELECT * FROM "{table}_0"')
    return f"view {table}"


def m_recursive_view(f: Path, rng: random.Random) -> str:
    table, cols = _pick(f, rng)
    select = ", ".join(f'n AS "{c}"' for c in cols)
    _sql(f, f'DROP TABLE "{table}"', f'CREATE VIEW "{table}" AS WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL '
                                     f'SELECT n + 1 FROM r) SELECT {select} FROM r')
    return f"recursive view {table}"


def m_drop_table(f: Path, rng: random.Random) -> str:
    table, _ = _pick(f, rng)
    _sql(f, f'DROP TABLE "{table}"')
    return f"drop table {table}"


def m_drop_column(f: Path, rng: random.Random) -> str:
    table, cols = _pick(f, rng)
    if len(cols) < 2:
        return "drop column (none)"
    col = rng.choice(cols)
    keep = ", ".join(f'"{c}"' for c in cols if c != col)
    _sql(f, f'CREATE TABLE "{table}_x" AS SELECT {keep} FROM "{table}"', f'DROP TABLE "{table}"',
         f'ALTER TABLE "{table}_x" RENAME TO "{table}"')
    return f"drop column {table}.{col}"


def m_generated_column(f: Path, rng: random.Random) -> str:
    """A column rebuilt as a generated one (computed by SQLite when read: never read)."""
    table, cols = _pick(f, rng)
    col = rng.choice(cols)
    defs = ", ".join(f'"{c}" AS (printf(\'%.*c\', 1000000, \'z\'))' if c == col else f'"{c}"' for c in cols)
    keep = ", ".join(f'"{c}"' for c in cols if c != col)
    _sql(f, f'CREATE TABLE "{table}_x" ({defs})', f'INSERT INTO "{table}_x" ({keep}) SELECT {keep} FROM "{table}"',
         f'DROP TABLE "{table}"', f'ALTER TABLE "{table}_x" RENAME TO "{table}"')
    return f"generated column {table}.{col}"


def m_without_rowid(f: Path, rng: random.Random) -> str:
    table, cols = _pick(f, rng)
    defs = ", ".join(f'"{c}"' for c in cols)
    _sql(f, f'CREATE TABLE "{table}_x" ({defs}, tracedb_pk INTEGER PRIMARY KEY) WITHOUT ROWID',
         f'INSERT INTO "{table}_x" SELECT *, rowid FROM "{table}"', f'DROP TABLE "{table}"',
         f'ALTER TABLE "{table}_x" RENAME TO "{table}"')
    return f"without rowid {table}"


def m_repeat_rows(f: Path, rng: random.Random) -> str:
    """Every row of a table twice (a primary key table rebuilt without it)."""
    table, cols = _pick(f, rng)
    defs = ", ".join(f'"{c}"' for c in cols)
    _sql(f, f'CREATE TABLE "{table}_x" ({defs})', f'INSERT INTO "{table}_x" SELECT {defs} FROM "{table}"',
         f'INSERT INTO "{table}_x" SELECT {defs} FROM "{table}"', f'DROP TABLE "{table}"',
         f'ALTER TABLE "{table}_x" RENAME TO "{table}"')
    return f"rows twice {table}"


def m_trigger_and_index(f: Path, rng: random.Random) -> str:
    table, cols = _pick(f, rng)
    _sql(f, f'CREATE INDEX "ix_{table}" ON "{table}" (abs("{cols[0]}"))',
         f'CREATE TRIGGER "tr_{table}" AFTER INSERT ON "{table}" BEGIN DELETE FROM "{table}"; END')
    return f"index and trigger on {table}"


def m_wal(f: Path, rng: random.Random) -> str:
    _sql(f, "PRAGMA journal_mode=WAL")
    return "wal mode"


def m_truncate(f: Path, rng: random.Random) -> str:
    data = f.read_bytes()
    cut = rng.choice([rng.randrange(1, len(data)), 4096 * rng.randrange(1, max(2, len(data) // 4096)), 100, 16])
    f.write_bytes(data[:cut])
    return f"truncate at {cut}"


def m_flip(f: Path, rng: random.Random) -> str:
    b = bytearray(f.read_bytes())
    for _ in range(rng.randint(1, 8)):
        b[rng.randrange(100, len(b))] = rng.randrange(256)
    f.write_bytes(bytes(b))
    return "flip bytes"


def m_zero_page(f: Path, rng: random.Random) -> str:
    b = bytearray(f.read_bytes())
    page = rng.randrange(1, max(2, len(b) // 4096))
    b[page * 4096:(page + 1) * 4096] = bytes(4096)
    f.write_bytes(bytes(b))
    return f"zero page {page}"


def m_empty(f: Path, rng: random.Random) -> str:
    f.write_bytes(b"")
    return "empty file"


MUTATIONS = [m_value] * 8 + [m_view, m_recursive_view, m_drop_table, m_drop_column, m_generated_column,
                             m_without_rowid, m_repeat_rows, m_trigger_and_index, m_wal, m_truncate, m_flip,
                             m_flip, m_zero_page, m_empty]


def cases(kind: str) -> list[tuple[int, object]]:
    """(index, mutation) of a seed, in a seeded shuffled order: every mutation kind once or more."""
    rng = random.Random(f"tracedb-fuzz-sqlite-{kind}")
    out = list(enumerate(MUTATIONS * 2))
    rng.shuffle(out)
    return out


# ---- the contract ------------------------------------------------------------------------------

def snapshot(con) -> list:
    """Count and content hash of every table (one statement)."""
    tables = con.execute("SELECT schema_name, table_name FROM duckdb_tables() WHERE NOT temporary "
                         "ORDER BY 1, 2").fetchall()
    return con.execute(" UNION ALL ".join(
        f"SELECT '{s}.{t}', count(*), sum(hash(x)::HUGEINT) FROM \"{s}\".\"{t}\" AS x" for s, t in tables)
        + " ORDER BY 1").fetchall()


@pytest.fixture(scope="module")
def good_db(tmp_path_factory):
    db = tmp_path_factory.mktemp("fuzz_sqlite") / "good.duckdb"
    con = connect(db)
    ingest_pkg.ingest(con, [str(FIXTURES / "ascend/level1/rank0_ascend_pt/ASCEND_PROFILER_OUTPUT/step_trace_time.csv")],
                      run="good")
    con.close()
    return db


class _Timeout(Exception):
    pass


def _alarm(signum, frame):
    raise _Timeout()


def _expected(kind: str, f: Path) -> int:
    if kind == "analysis_db":
        con = sqlite3.connect(f"file:{f}?mode=ro&immutable=1", uri=True)
        try:
            if not con.execute("SELECT count(*) FROM sqlite_master WHERE name = 'StepTraceTime'").fetchone()[0]:
                return 0            # a file with CommAnalyzerTime only: no step rows
            return con.execute("SELECT count(*) FROM StepTraceTime").fetchone()[0]
        finally:
            con.close()
    return expected_kernels(f, kind)


def run_case(con, kind: str, target: Path, f: Path, run: str, before: dict) -> str:
    """Ingest one case; 'ok' or 'refused'; assert the contract."""
    listing = sorted(p.name for p in f.parent.iterdir())
    old = signal.signal(signal.SIGALRM, _alarm)
    signal.alarm(TIMEOUT)
    try:
        ingest_pkg.ingest(con, [str(target)], run=run, checkpoint=False)
    except InputError as e:
        msg = str(e)
        assert str(f) in msg or str(target) in msg, msg
        assert "\x1b" not in msg and "\n" not in msg, repr(msg)
        assert snapshot(con) == before, f"database changed by a refused input: {msg}"
        return "refused"
    except _Timeout:
        raise AssertionError(f"no end within {TIMEOUT} s") from None
    except TracedbError as e:
        raise AssertionError(f"{type(e).__name__} for bad input: {e}") from e
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, old)
    assert sorted(p.name for p in f.parent.iterdir()) == listing, "files written beside the input"
    try:
        want = _expected(kind, f)
    except sqlite3.Error as e:
        raise AssertionError(f"accepted, but sqlite3 cannot read the file ({e})") from e
    table = "profiler_step_trace" if kind == "analysis_db" else "kernel"
    got = con.execute(f"SELECT count(*) FROM {table} WHERE file_id IN (SELECT file_id FROM source_file "
                      "WHERE path = ?)", [str(f.resolve())]).fetchone()[0]
    assert got == want, f"{got} rows, sqlite3 counts {want}"
    return "ok"


def campaign(kind: str, part: slice, good_db: Path, tmp_path: Path, monkeypatch) -> Counter:
    db = tmp_path / "t.duckdb"
    shutil.copy(good_db, db)
    monkeypatch.setattr(ingest_pkg.library, "install", lambda con, **kw: None)   # installed once, in good_db
    con = connect(db)
    outcomes, failures = Counter(), []
    before = snapshot(con)
    try:
        for i, mutate in cases(kind)[part]:
            rng = random.Random(f"tracedb-fuzz-sqlite-{kind}-{i}")
            f, target = _seed(kind, tmp_path / f"{i:02d}")
            what = mutate(f, rng)
            t0 = time.perf_counter()
            try:
                outcomes[run_case(con, kind, target, f, f"fuzz{i}", before)] += 1
                before = snapshot(con)
            except AssertionError as e:
                failures.append(f"{i} {what}: {e}")
                before = snapshot(con)
            except Exception as e:      # noqa: BLE001 - a traceback: what this campaign hunts
                failures.append(f"{i} {what}: TRACEBACK {type(e).__name__}: {e}")
                before = snapshot(con)
            assert time.perf_counter() - t0 < TIMEOUT + 5
    finally:
        con.close()
    assert not failures, "\n".join(failures)
    print(f"\n{kind} {part.start}-{part.stop}: {dict(outcomes)}")
    return outcomes


SEEDS = ["nsys", "ascend_db", "analysis_db"]


@pytest.mark.parametrize("kind", SEEDS)
def test_fuzz_sqlite(kind, good_db, tmp_path, monkeypatch):
    """The first FAST shuffled mutations of the seed."""
    out = campaign(kind, slice(0, FAST), good_db, tmp_path, monkeypatch)
    assert sum(out.values()) == FAST


@pytest.mark.slow
@pytest.mark.parametrize("kind", SEEDS)
def test_fuzz_sqlite_rest(kind, good_db, tmp_path, monkeypatch):
    """The other mutations of the seed (with the first part, every kind at least twice)."""
    out = campaign(kind, slice(FAST, None), good_db, tmp_path, monkeypatch)
    assert sum(out.values()) == len(MUTATIONS) * 2 - FAST
