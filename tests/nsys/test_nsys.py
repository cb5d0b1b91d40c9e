"""Nsight Systems SQLite exports: the corpus export (nsys 2025.5.2, schema 3.24.0) and small
exports written here in the older schema generation (no TARGET_INFO_SESSION_START_TIME, no
ENUM tables, NVTX text inline) and with NVTX step ranges."""
from __future__ import annotations

import sqlite3
import subprocess
import sys

import pytest

from conftest import corpus_path, ingest_paths, rows
from tracedb.errors import InputError

NSYS = "flameox/tests/fixtures/nsight_systems/nsight-2025.5.2.sqlite"


def _sqlite(path, sql: str):
    con = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    try:
        return con.execute(sql).fetchall()
    finally:
        con.close()


@pytest.mark.corpus
def test_corpus_counts_equal_the_cupti_tables(db_path):
    path = corpus_path(NSYS)
    ingest_paths(db_path, path, run="nsys")
    n_kernel = _sqlite(path, "SELECT count(*) FROM CUPTI_ACTIVITY_KIND_KERNEL")[0][0]
    n_memcpy = _sqlite(path, "SELECT count(*) FROM CUPTI_ACTIVITY_KIND_MEMCPY")[0][0]
    got = dict(rows(db_path, "SELECT coalesce(copy_kind, 'kernel'), count(*) FROM kernel GROUP BY 1"))
    assert got == {"kernel": n_kernel, "HtoD": n_memcpy} == {"kernel": 3, "HtoD": 1}
    assert rows(db_path, "SELECT DISTINCT source FROM kernel") == [("nsys",)]


@pytest.mark.corpus
def test_corpus_values_by_hand(db_path):
    """Values read off the export with sqlite3: session start utcEpochNs 1785620044423518993;
    kernel correlationId 129 start 339316740 end 339318180, gridX 4, blockX 256, stream 13,
    launched by cudaLaunchKernel_v7000 [339271720, 339317645) on tid 945961 (globalTid
    297345569681193 & 0xFFFFFF); the memcpy (corr 124) moves 4096 bytes, copyKind 1 = HtoD."""
    ingest_paths(db_path, corpus_path(NSYS), run="nsys")
    t0 = 1785620044423518993
    k = rows(db_path, "SELECT name, op_type, stream_id, device_id, ts_ns, dur_ns, grid_x, grid_y, grid_z, block_x, "
                      "block_y, block_z, launch_name, launch_tid, launch_ts_ns, launch_dur_ns, is_communication "
                      "FROM kernel WHERE correlation_id = 129")
    assert k == [("add_one(const float *, float *, int)", "add_one", "13", 0, t0 + 339316740, 1440, 4, 1, 1, 256, 1, 1,
                  "cudaLaunchKernel_v7000", "945961", t0 + 339271720, 339317645 - 339271720, False)]
    m = rows(db_path, "SELECT name, copy_kind, size_bytes, ts_ns, dur_ns, launch_name FROM kernel "
                      "WHERE correlation_id = 124")
    assert m == [("Memcpy HtoD", "HtoD", 4096, t0 + 339231173, 864, "cudaMemcpyAsync_v3020")]


@pytest.mark.corpus
def test_corpus_every_launch_links_to_its_kernel(db_path):
    path = corpus_path(NSYS)
    ingest_paths(db_path, path, run="nsys")
    # every kernel and copy has the runtime call of its correlation id
    assert rows(db_path, "SELECT count(*) FROM kernel WHERE launch_name IS NULL") == [(0,)]
    want = sorted(_sqlite(path, """
        SELECT k.correlationId, s.value FROM CUPTI_ACTIVITY_KIND_KERNEL k
        JOIN CUPTI_ACTIVITY_KIND_RUNTIME r ON r.correlationId = k.correlationId
        JOIN StringIds s ON s.id = r.nameId"""))
    got = rows(db_path, "SELECT correlation_id, launch_name FROM kernel WHERE copy_kind IS NULL ORDER BY 1")
    assert got == want


def _export(path, *, old: bool, nvtx: list[tuple], memset: bool = True) -> None:
    """A small Nsight export. ``old``: the older schema generation (no session start table, no
    ENUM tables, no NVTX textId / globalPid columns)."""
    con = sqlite3.connect(path)
    strings = ["add_one", "ncclDevKernel_AllReduce_Sum_f32_RING_LL", "cudaLaunchKernel_v7000",
               "cudaMemsetAsync_v3020", "registered text"]
    con.execute("CREATE TABLE StringIds (id INTEGER PRIMARY KEY, value TEXT NOT NULL)")
    con.executemany("INSERT INTO StringIds VALUES (?, ?)", list(enumerate(strings)))
    pid_col = "" if old else ", globalPid INTEGER"
    gpid = 0x10000000000 + (4242 << 24)          # hw 1, pid 4242
    con.execute(f"CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL (start INTEGER, end INTEGER, deviceId INTEGER, "
                f"streamId INTEGER, correlationId INTEGER{pid_col}, demangledName INTEGER, shortName INTEGER, "
                f"gridX INTEGER, gridY INTEGER, gridZ INTEGER, blockX INTEGER, blockY INTEGER, blockZ INTEGER)")
    kernels = [(2000, 3000, 1, 7, 1, 0), (6000, 6500, 1, 7, 2, 0), (7000, 8000, 1, 9, 3, 1)]
    for s, e, d, st, c, n in kernels:
        vals = [s, e, d, st, c] + ([] if old else [gpid]) + [n, n, 8, 1, 1, 128, 1, 1]
        con.execute(f"INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES ({', '.join('?' * len(vals))})", vals)
    if memset:
        con.execute(f"CREATE TABLE CUPTI_ACTIVITY_KIND_MEMSET (start INTEGER, end INTEGER, deviceId INTEGER, "
                    f"streamId INTEGER, correlationId INTEGER{pid_col}, value INTEGER, bytes INTEGER)")
        vals = [3500, 3600, 1, 7, 4] + ([] if old else [gpid]) + [0, 64]
        con.execute(f"INSERT INTO CUPTI_ACTIVITY_KIND_MEMSET VALUES ({', '.join('?' * len(vals))})", vals)
    con.execute("CREATE TABLE CUPTI_ACTIVITY_KIND_RUNTIME (start INTEGER, end INTEGER, eventClass INTEGER, "
                "globalTid INTEGER, correlationId INTEGER, nameId INTEGER, returnValue INTEGER)")
    tid = gpid + 4243
    con.executemany("INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES (?, ?, 0, ?, ?, ?, 0)",
                    [(1100, 1150, tid, 1, 2), (5100, 5150, tid, 2, 2), (5200, 5250, tid, 3, 2), (1200, 1210, tid, 4, 3)])
    text_col = "" if old else ", textId INTEGER"
    con.execute(f"CREATE TABLE NVTX_EVENTS (start INTEGER, end INTEGER, eventType INTEGER, text TEXT, "
                f"globalTid INTEGER{text_col})")
    for s, e, typ, text, text_id in nvtx:
        vals = [s, e, typ, text, tid] + ([] if old else [text_id])
        con.execute(f"INSERT INTO NVTX_EVENTS VALUES ({', '.join('?' * len(vals))})", vals)
    if not old:
        con.execute("CREATE TABLE TARGET_INFO_SESSION_START_TIME (utcEpochNs INTEGER, utcTime TEXT, localTime TEXT)")
        con.execute("INSERT INTO TARGET_INFO_SESSION_START_TIME VALUES (1700000000000000000, '', '')")
    con.commit()
    con.close()


STEPS = [(1000, 5000, 59, "ProfilerStep#1", None), (5000, 9000, 59, "ProfilerStep#2", None),
         (1050, 1300, 59, "forward", None), (5500, None, 34, "a mark", None)]


def test_older_generation_nvtx_steps_and_step_breakdown(tmp_path, db_path):
    """Older schema: no session start (ts stay session-relative ns), NVTX text inline, no
    globalPid (launches matched on correlation id alone). Step 2 by hand: computing [6000,
    6500) = 500, the NCCL kernel [7000, 8000) = 1000 communication, not overlapped;
    span 6000..8000 = 2000, free 2000 − 500 − 1000 = 500, preparing 6000 − 5000 = 1000."""
    src = tmp_path / "old.sqlite"
    _export(src, old=True, nvtx=STEPS)
    ingest_paths(db_path, src, run="old")
    assert rows(db_path, "SELECT step, host_start_ns, host_end_ns FROM step ORDER BY step") == [
        (1, 1000, 5000), (2, 5000, 9000)]
    assert rows(db_path, "SELECT correlation_id, step, launch_ts_ns, is_communication, copy_kind, size_bytes "
                         "FROM kernel ORDER BY correlation_id") == [
        (1, 1, 1100, False, None, None), (2, 2, 5100, False, None, None), (3, 2, 5200, True, None, None),
        (4, 1, 1200, False, "Memset", 64)]
    got = rows(db_path, "SELECT computing_ns, communication_ns, communication_not_overlapped_ns, free_ns, "
                        "preparing_ns, e2e_ns, kernel_count, communication_op_count FROM step_breakdown WHERE step = 2")
    assert got == [(500, 1000, 1000, 500, 1000, 2000, 2, 1)]
    ev = rows(db_path, "SELECT ph, name, dur_ns, json_extract_string(args, '$.nvtx_text') FROM event "
                       "WHERE cat = 'nvtx' ORDER BY ts_ns")
    assert ev == [("X", "ProfilerStep#1", 4000, "ProfilerStep#1"), ("X", "forward", 250, None),
                  ("X", "ProfilerStep#2", 4000, "ProfilerStep#2"), ("i", "a mark", None, None)]


def test_newer_generation_epoch_text_id_and_user_pattern(tmp_path, db_path):
    """Newer schema: ts = utcEpochNs + session ns; NVTX text through textId; a user pattern
    with a group names the steps by its number."""
    src = tmp_path / "new.sqlite"
    _export(src, old=False, nvtx=[(1000, 5000, 59, "train_iter 7", None), (5000, 9000, 60, None, 4)])
    con = sqlite3.connect(src)
    con.execute("UPDATE StringIds SET value = 'train_iter 8' WHERE id = 4")
    con.commit()
    con.close()
    ingest_paths(db_path, src, run="new", step_range_pattern=r"^train_iter (\d+)$")
    t0 = 1700000000000000000
    assert rows(db_path, "SELECT step, host_start_ns, host_end_ns FROM step ORDER BY step") == [
        (7, t0 + 1000, t0 + 5000), (8, t0 + 5000, t0 + 9000)]
    assert rows(db_path, "SELECT correlation_id, step, launch_tid FROM kernel ORDER BY 1") == [
        (1, 7, "4243"), (2, 8, "4243"), (3, 8, "4243"), (4, 7, "4243")]


def test_pattern_without_group_numbers_ranges_in_order(tmp_path, db_path):
    src = tmp_path / "iter.sqlite"
    _export(src, old=True, nvtx=[(5000, 9000, 59, "iteration", None), (1000, 5000, 59, "iteration", None)])
    ingest_paths(db_path, src, run="it", step_range_pattern="^iteration$")
    assert rows(db_path, "SELECT step, host_start_ns FROM step ORDER BY step") == [(1, 1000), (2, 5000)]


def test_not_an_nsys_export_is_refused(tmp_path, db_path):
    src = tmp_path / "other.sqlite"
    con = sqlite3.connect(src)
    con.execute("CREATE TABLE t (x INTEGER)")
    con.commit()
    con.close()
    with pytest.raises(InputError, match="not an Nsight Systems export"):
        ingest_paths(db_path, src)
    # rolled back, nothing half-written: the new file is removed again, or holds no table
    assert not db_path.exists() or rows(db_path, "SELECT count(*) FROM duckdb_tables()") == [(0,)]


def test_not_sqlite_is_refused(tmp_path, db_path):
    src = tmp_path / "report.sqlite"
    src.write_text("hello")
    with pytest.raises(InputError, match="not a SQLite database"):
        ingest_paths(db_path, src)


def test_bad_step_pattern_is_refused(tmp_path, db_path):
    src = tmp_path / "old.sqlite"
    _export(src, old=True, nvtx=STEPS)
    with pytest.raises(InputError, match="step-range-pattern"):
        ingest_paths(db_path, src, step_range_pattern="(unclosed")


@pytest.mark.corpus
def test_export_version_kept(db_path, tmp_path):
    """META_DATA_EXPORT of the corpus file: EXPORT_SCHEMA_VERSION 3.24.0, product 2025.5.2.266;
    an older export without the table records NULLs."""
    ingest_paths(db_path, corpus_path(NSYS), run="nsys")
    assert rows(db_path, "SELECT args->>'schema_version', args->>'product_version' FROM event "
                         "WHERE name = 'nsys_export'") == [("3.24.0", "2025.5.2.266")]
    old = tmp_path / "old.sqlite"
    _export(old, old=True, nvtx=STEPS)
    db2 = tmp_path / "old.duckdb"
    ingest_paths(db2, old, run="old")
    assert rows(db2, "SELECT args->>'schema_version' FROM event WHERE name = 'nsys_export'") == [(None,)]


@pytest.mark.parametrize("fieldmap, reader", [("nsys", "nsys"), ("mindspore_timeline", "mindspore_timeline"),
                                             ("minddata", "minddata")])
def test_new_fieldmaps_follow_the_fieldmap_rules(fieldmap, reader):
    """The rules tests/ingest/test_fieldmaps.py applies to every map: known kinds, version tags,
    and no raw name spelled inline in the reader."""
    import importlib
    import inspect

    from tests.ingest.test_fieldmaps import KINDS, VERSION, fields_of
    fm = importlib.import_module(f"tracedb.ingestion.fieldmaps.{fieldmap}")
    fields = fields_of(fm)
    assert fields
    for f in fields:
        assert f.names and f.kind in KINDS and (f.since is None or VERSION.match(f.since)), f
    source = inspect.getsource(importlib.import_module(f"tracedb.ingestion.readers.{reader}"))
    names = {n for f in fields for n in f.names if len(n) > 5}
    assert sorted(n for n in names if f'"{n}"' in source or f"'{n}'" in source) == []


def test_registered_strings_after_many_inline_nulls(tmp_path, db_path):
    """A column the driver first sees as NULL must still take text later: 3000 NVTX marks with
    neither text nor textId, then the step ranges (the SQLite driver types a column from its
    first rows)."""
    src = tmp_path / "late.sqlite"
    marks = [(100 + i, None, 34, None, None) for i in range(3000)]
    _export(src, old=False, nvtx=marks + [(1000, 5000, 59, None, 4)])
    con = sqlite3.connect(src)
    con.execute("UPDATE StringIds SET value = 'ProfilerStep#3' WHERE id = 4")
    con.commit()
    con.close()
    ingest_paths(db_path, src, run="late")
    assert rows(db_path, "SELECT step FROM step") == [(3,)]
    assert rows(db_path, "SELECT count(*) FROM event WHERE cat = 'nvtx' AND name IS NULL") == [(3000,)]


@pytest.mark.process
@pytest.mark.corpus
def test_the_cli_reads_an_export_in_its_own_process(tmp_path):
    """`tracedb ingest` as users run it: a fresh interpreter, where tracedb has loaded DuckDB's
    engine module without the duckdb package. DuckDB 2.0 scans the reader's Arrow tables only
    after the package is imported, and this test process imports it (conftest), which hid a
    failure of every CLI ingest of an Nsight export."""
    path = corpus_path(NSYS)
    db = tmp_path / "t.duckdb"
    res = subprocess.run([sys.executable, "-m", "tracedb.cli", "-q", "ingest", "--db", str(db), str(path)],
                         capture_output=True, text=True, timeout=300)
    assert res.returncode == 0, res.stderr
    n_kernel = _sqlite(path, "SELECT count(*) FROM CUPTI_ACTIVITY_KIND_KERNEL")[0][0]
    n_memcpy = _sqlite(path, "SELECT count(*) FROM CUPTI_ACTIVITY_KIND_MEMCPY")[0][0]
    assert rows(db, "SELECT count(*) - count(copy_kind), count(copy_kind) FROM kernel") == [(n_kernel, n_memcpy)]
