"""Parallel multi-rank ingest (``--jobs N``, tracedb/ingestion/staging.py): worker processes read
the new ranks into staging files, the command publishes them in its one transaction.

The result must be the sequential ingest's, row for row (file ids included: the main process
gives each rank its range up front in the order a sequential ingest numbers them); a failure
in any rank leaves the database as it was; a re-ingest adds nothing; no staging file is left."""
from __future__ import annotations

import shutil
import subprocess
import sys

import duckdb
import pytest

from conftest import FIXTURES, LEVEL1, ingest_paths
from tracedb.errors import InputError
from tracedb.ingestion.staging import setting_bytes, worker_settings

GEN = FIXTURES.parent.parent / "shared" / "bench" / "gen_traces.py"


def snapshot(db) -> dict[str, list[tuple]]:
    """Every table with run rows (ingest times and absolute paths aside) and every public view."""
    con = duckdb.connect(str(db), read_only=True)
    try:
        tables = [t for (t,) in con.execute("SELECT DISTINCT table_name FROM duckdb_columns() WHERE "
                                            "schema_name = 'main' AND column_name = 'run_id' ORDER BY 1").fetchall()]
        out = {}
        for table in tables:
            cols = [c for (c,) in con.execute(
                "SELECT column_name FROM duckdb_columns() WHERE table_name = ? AND schema_name = 'main' "
                "AND column_name NOT IN ('ingested_at') ORDER BY column_index", [table]).fetchall()]
            out[table] = con.execute(f"SELECT {', '.join(cols)} FROM {table} ORDER BY ALL").fetchall()
        views = [v for (v,) in con.execute("SELECT name FROM tracedb_object WHERE schema_name = 'main' "
                                           "AND kind = 'view' ORDER BY name").fetchall()]
        for view in views:
            out[view] = [tuple(float(f"{v:.12g}") if isinstance(v, float) else v for v in r)
                         for r in con.execute(f"SELECT * FROM {view} ORDER BY ALL").fetchall()]
        return out
    finally:
        con.close()


def _no_staging_left(folder):
    assert not [p for p in folder.iterdir() if p.name.startswith(".tracedb-staging-")]


@pytest.mark.process
def test_two_ranks_in_two_workers_equal_one_after_another(tmp_path):
    seq, par = tmp_path / "seq.duckdb", tmp_path / "par.duckdb"
    a = ingest_paths(seq, LEVEL1, run="r", jobs=1)
    b = ingest_paths(par, LEVEL1, run="r", jobs=2)
    assert sorted(a.files_ingested) == sorted(b.files_ingested) and len(a.files_ingested) == 20
    assert a.rows == b.rows and a.rows["kernel"] > 0
    want, got = snapshot(seq), snapshot(par)
    assert want.keys() == got.keys()
    for name in want:
        assert got[name] == want[name], name
    # the keys are the sequential ones: 20 files numbered 1..20, both ranks present
    assert got["source_file"][0][0] == 1 and sorted(r[0] for r in got["source_file"]) == list(range(1, 21))
    assert sorted(r[1] for r in got["rank"]) == [0, 1]
    _no_staging_left(tmp_path)


@pytest.mark.process
def test_reingest_in_parallel_adds_nothing(tmp_path):
    db = tmp_path / "t.duckdb"
    ingest_paths(db, LEVEL1, run="r", jobs=2)
    before = snapshot(db)
    again = ingest_paths(db, LEVEL1, run="r", jobs=2)
    assert again.files_ingested == [] and len(again.files_skipped) == 20
    assert snapshot(db) == before


@pytest.mark.process
def test_new_ranks_beside_held_ones(tmp_path):
    """rank 0 first (sequential), then the folder: rank 1 alone is new (one new rank: read here);
    the result equals the folder in one command."""
    one, two = tmp_path / "one.duckdb", tmp_path / "two.duckdb"
    ingest_paths(one, LEVEL1, run="r", jobs=1)
    ingest_paths(two, LEVEL1 / "rank0_ascend_pt", run="r", jobs=2)
    r = ingest_paths(two, LEVEL1, run="r", jobs=2)
    assert len(r.files_ingested) == 10 and len(r.files_skipped) == 10
    want, got = snapshot(one), snapshot(two)
    for name in want:
        if name not in ("source_file", "run"):   # the run keeps the first command's source path
            assert got[name] == want[name], name


@pytest.mark.process
def test_a_bad_rank_leaves_the_database_as_it_was(tmp_path):
    src = tmp_path / "job"
    shutil.copytree(LEVEL1, src)
    trace = src / "rank1_ascend_pt/ASCEND_PROFILER_OUTPUT/trace_view.json"
    trace.write_bytes(trace.read_bytes()[: trace.stat().st_size // 2])     # truncated mid-array
    db = tmp_path / "t.duckdb"
    ingest_paths(db, FIXTURES / "ascend/level0_rank0_ascend_pt", run="other")
    before = snapshot(db)
    with pytest.raises(InputError) as e:
        ingest_paths(db, src, run="r", jobs=2)
    assert "rank1_ascend_pt" in str(e.value) and "trace_view.json" in str(e.value)
    assert snapshot(db) == before
    _no_staging_left(tmp_path)


def test_worker_share_of_the_settings():
    assert setting_bytes("1400MB") == 1_400_000_000 and setting_bytes("1.5 GiB") == 1_610_612_736
    assert setting_bytes("unlimited") is None
    con = duckdb.connect(config={"threads": 4, "memory_limit": "1400MB"})
    threads, memory = worker_settings(con, 2)
    # DuckDB reports 1400MB as 1.3 GiB (rounded); each of two workers gets half of it
    total = setting_bytes(con.execute("SELECT current_setting('memory_limit')").fetchone()[0])
    assert threads == 2 and memory == f"{total // 2 // 2**20}MiB"
    assert worker_settings(con, 8)[0] == 1


@pytest.mark.process
@pytest.mark.skipif(not GEN.exists(), reason="../shared/bench/gen_traces.py not beside the checkout")
def test_four_generated_ranks_in_two_workers_equal_one_after_another(tmp_path):
    subprocess.run([sys.executable, str(GEN), "--out", str(tmp_path / "g"), "--ranks", "4", "--steps", "2",
                    "--events-per-step", "300", "--seed", "3", "--format", "ascend"], check=True,
                   stdout=subprocess.DEVNULL)
    seq, par = tmp_path / "seq.duckdb", tmp_path / "par.duckdb"
    ingest_paths(seq, tmp_path / "g/ascend", run="c", jobs=1)
    ingest_paths(par, tmp_path / "g/ascend", run="c", jobs=2)
    want, got = snapshot(seq), snapshot(par)
    assert len(want["rank"]) == 4 and want["comm_matrix"]
    for name in want:
        assert got[name] == want[name], name
