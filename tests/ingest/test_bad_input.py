"""Bad input: one line naming the file and the place, exit 1, no traceback, database unchanged.

Each case builds a broken copy of a real fixture (or a hand-made file) and ingests it into a
database that already holds a good run.
"""
from __future__ import annotations

import gzip
import json
import os
import random
import shutil
from pathlib import Path

import duckdb
import pytest
from typer.testing import CliRunner

from conftest import FIXTURES, RANK0, RANK1, ingest_paths, ingested, rows
from tracedb.cli import app

runner = CliRunner()
TRACE = RANK0 / "ASCEND_PROFILER_OUTPUT/trace_view.json"
KERNELS = RANK0 / "ASCEND_PROFILER_OUTPUT/kernel_details.csv"
KINETO = FIXTURES / "kineto/sampled_rank-0.json.gz"


def fingerprint(db: Path):
    """(table, row count) of every table, read on one connection (a connection per table cost
    more than the ingest of a bad case)."""
    con = duckdb.connect(str(db), read_only=True)
    try:
        tables = [t for (t,) in con.execute("SELECT table_name FROM duckdb_tables() ORDER BY 1").fetchall()]
        return [(t, con.execute(f'SELECT count(*) FROM "{t}"').fetchone()[0]) for t in tables]
    finally:
        con.close()


@pytest.fixture(scope="module")
def good_db(tmp_path_factory):
    db = tmp_path_factory.mktemp("good") / "good.duckdb"
    ingested(db, RANK1)
    return db


def assert_rejected(good_db, tmp_path, target: Path, bad_file: Path, *words):
    db = tmp_path / "t.duckdb"
    shutil.copy(good_db, db)
    before = fingerprint(db)
    res = runner.invoke(app, ["ingest", str(target), "--db", str(db)])
    assert res.exit_code == 1, res.output
    assert isinstance(res.exception, SystemExit), res.exception     # no uncaught exception
    err = res.stderr.strip().splitlines()[-1]
    assert "Traceback" not in res.stderr and err.startswith("tracedb: error: ")
    assert str(bad_file) in err, err
    for w in words:
        assert w in err, (w, err)
    assert fingerprint(db) == before
    return err


def rank_with(tmp_path, name: str, content: bytes) -> tuple[Path, Path]:
    d = tmp_path / "bad_ascend_pt"
    shutil.copytree(RANK0, d)
    f = d / "ASCEND_PROFILER_OUTPUT" / name
    f.write_bytes(content)
    return d, f


CASES = {
    "empty_trace": ("trace_view.json", b"", ("empty", "byte 0")),
    "garbage_trace": ("trace_view.json", b"\x00\x01garbage", ("byte 0",)),
    "csv_as_trace": ("trace_view.json", KERNELS.read_bytes()[:2000], ("byte 0",)),
    "truncated_trace": ("trace_view.json", TRACE.read_bytes()[:700_001], ("not closed", "byte 700001")),
    "non_utf8_trace": ("trace_view.json",
                       b'[{"ph":"X","name":"a\xff\xfe","ts":"1.0","dur":1,"pid":1,"tid":1}]', ("event",)),
    "json_scalar_trace": ("trace_view.json", b"42", ("byte 0",)),
    "empty_kernels": ("kernel_details.csv", b"", ("empty", "line 1")),
    "kernels_missing_column": ("kernel_details.csv", b"Name,Type\nx,y\n", ("Start Time(us)", "line 1")),
    "kernels_na_duration": ("kernel_details.csv",
                            b"Name,Type,Accelerator Core,Start Time(us),Duration(us)\n"
                            b"a,A,AI_CORE,\"1736408883704643.212\t\",1.5\n"
                            b"b,B,AI_CORE,\"1736408883704645.212\t\",N/A\n", ("Duration(us)", "line 3")),
    "kernels_empty_start": ("kernel_details.csv",
                            b"Name,Type,Accelerator Core,Start Time(us),Duration(us)\na,A,AI_CORE,,1.5\n",
                            ("Start Time(us)", "line 2")),
    "kernels_negative_duration": ("kernel_details.csv",
                                  b"Name,Type,Accelerator Core,Start Time(us),Duration(us)\n"
                                  b"a,A,AI_CORE,1736408883704643.212,-1.5\n", ("negative", "line 2")),
    "step_trace_missing_column": ("step_trace_time.csv", b"Step,Computing\n50,1.0\n", ("Free", "line 1")),
    "malformed_profiler_info": (None, b"{not json", ("line 1",)),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_bad_rank_folder_file(case, good_db, tmp_path):
    name, content, words = CASES[case]
    if name is None:   # profiler_info_0.json
        d = tmp_path / "bad_ascend_pt"
        shutil.copytree(RANK0, d)
        f = d / "profiler_info_0.json"
        f.write_bytes(content)
    else:
        d, f = rank_with(tmp_path, name, content)
    assert_rejected(good_db, tmp_path, d, f, *words)


def test_extra_csv_columns_and_tab_numbers_are_fine(tmp_path):
    f = tmp_path / "kernel_details.csv"
    f.write_text("Name,Type,Accelerator Core,Start Time(us),Duration(us),Brand New Column\n"
                 "a,A,AI_CORE,\"1736408883704643.212\t\",\"1.5\t\",whatever\n")
    db = tmp_path / "t.duckdb"
    ingest_paths(db, f, run="r")
    assert rows(db, "SELECT ts_ns, dur_ns FROM kernel") == [(1736408883704643212, 1500)]


def test_unknown_ph_and_huge_flow_ids_are_kept(tmp_path):
    f = tmp_path / "trace_view.json"
    f.write_text(json.dumps([{"ph": "Z", "name": "odd", "ts": "1.0", "pid": 1, "tid": 1},
                             {"ph": "s", "name": "flow", "id": 2 ** 70, "ts": "2.0", "pid": 1, "tid": 1}]))
    db = tmp_path / "t.duckdb"
    ingest_paths(db, f, run="r")
    assert sorted(rows(db, "SELECT ph, flow_id FROM event")) == [("Z", None), ("s", str(2 ** 70))]


def test_kineto_truncated_plain_and_gzip(good_db, tmp_path):
    data = gzip.decompress(KINETO.read_bytes())
    plain = tmp_path / "trunc.pt.trace.json"
    plain.write_bytes(data[: len(data) // 3])
    assert_rejected(good_db, tmp_path, plain, plain, "end of file")
    gz = tmp_path / "trunc.pt.trace.json.gz"
    gz.write_bytes(KINETO.read_bytes()[:50_000])
    assert_rejected(good_db, tmp_path, gz, gz, "compressed")
    no_events = tmp_path / "noevents.pt.trace.json"
    no_events.write_text('{"schemaVersion": 1, "foo": []}')
    assert_rejected(good_db, tmp_path, no_events, no_events, "traceEvents")


def test_trace_cut_at_an_event_boundary_is_rejected(good_db, tmp_path):
    """A trace_view.json cut right after an event's comma is still accepted by DuckDB's array
    reader; tracedb must reject it (plain and gzip), not load the first half."""
    data = TRACE.read_bytes()
    cut = data.index(b"},", len(data) // 2) + 2          # "...}," then end of file
    d, f = rank_with(tmp_path / "plain", "trace_view.json", data[:cut] + b"\n")
    assert_rejected(good_db, tmp_path, d, f, "not closed")
    gz = tmp_path / "gz" / "trace_view.json.gz"
    gz.parent.mkdir()
    gz.write_bytes(gzip.compress(data[:cut]))
    assert_rejected(good_db, tmp_path, gz, gz, "not closed")


def test_folder_with_nothing_recognisable(good_db, tmp_path):
    d = tmp_path / "stuff"
    d.mkdir()
    (d / "notes.txt").write_text("hello")
    assert_rejected(good_db, tmp_path, d, d, "nothing recognisable")


@pytest.mark.skipif(os.geteuid() == 0, reason="root reads files whatever their permissions")
def test_unreadable_file(good_db, tmp_path):
    d, f = rank_with(tmp_path, "kernel_details.csv", KERNELS.read_bytes())
    f.chmod(0)
    assert_rejected(good_db, tmp_path, d, f, "permission")


@pytest.mark.slow
def test_fuzz_truncations_and_byte_flips(good_db, tmp_path):
    """≥ 25 corrupted variants of a real trace_view.json: 0 tracebacks, 0 messages without the
    file name, 0 half-filled databases (a variant that is still valid JSON may ingest whole)."""
    rng = random.Random(6)
    data = TRACE.read_bytes()
    variants = [data[: rng.randrange(1, len(data) - 1)] for _ in range(15)]
    for _ in range(15):
        b = bytearray(data)
        for _ in range(rng.randint(1, 4)):
            b[rng.randrange(len(b))] = rng.randrange(256)
        variants.append(bytes(b))
    failed = ingested = 0
    for i, v in enumerate(variants):
        d, f = rank_with(tmp_path / f"v{i}", "trace_view.json", v)
        db = tmp_path / f"v{i}.duckdb"
        shutil.copy(good_db, db)
        before = fingerprint(db)
        res = runner.invoke(app, ["ingest", str(d), "--db", str(db)])
        assert isinstance(res.exception, SystemExit) or res.exception is None, (i, res.exception)
        assert "Traceback" not in res.output
        if res.exit_code == 0:
            ingested += 1
            after = dict(fingerprint(db))
            assert after["event"] > dict(before)["event"] and after["kernel"] > dict(before)["kernel"]
        else:
            failed += 1
            assert res.exit_code == 1 and str(f) in res.stderr, (i, res.stderr)
            assert fingerprint(db) == before, i
    assert failed >= 15 and failed + ingested == 30
