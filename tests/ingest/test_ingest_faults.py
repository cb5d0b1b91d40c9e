"""Regression tests of issue 19 defects whose root was in the ingest loop and the shared sources:
F1 (a feeder thread dying silently), F2 (glob characters in paths), F3 (a failed CHECKPOINT
after COMMIT reported as a failure)."""
from __future__ import annotations

import gzip
import json
import shutil

import duckdb
import pytest

from conftest import FIXTURES, ingest_paths, rows
from tracedb.store.db import connect
from tracedb.errors import InputError
from tracedb.ingestion import ingest


def test_f1_kineto_gzip_with_deep_metadata_fails_naming_the_file(tmp_path):
    """A top-level key after traceEvents nested 100 000 deep: Python's json raises RecursionError
    in the feeder thread; that used to end the stream empty (0 events, exit 0, file recorded)."""
    deep = "[" * 100_000 + "]" * 100_000
    events = [{"ph": "X", "cat": "kernel", "name": "k", "pid": 0, "tid": 7, "ts": 1.0, "dur": 2.0}]
    text = '{"schemaVersion": 1, "traceEvents": ' + json.dumps(events) + ', "deep": ' + deep + "}"
    f = tmp_path / "w.pt.trace.json.gz"
    with gzip.open(f, "wt") as g:
        g.write(text)
    db = tmp_path / "t.duckdb"
    with pytest.raises(InputError) as e:
        ingest_paths(db, f)
    assert str(f) in str(e.value)
    # nothing recorded: a second attempt reads it again (and fails again), it is not skipped
    with pytest.raises(InputError):
        ingest_paths(db, f)


def test_f2_glob_characters_in_a_folder_name_read_that_folder(tmp_path):
    """exp[1]_ascend_pt beside exp1_ascend_pt: read_csv/read_json expanded the brackets and read
    exp1's files under exp[1]'s name."""
    plain = tmp_path / "exp1_ascend_pt"
    bracket = tmp_path / "exp[1]_ascend_pt"
    shutil.copytree(FIXTURES / "ascend/level1/rank0_ascend_pt", plain)
    shutil.copytree(FIXTURES / "ascend/level1_2024_rank0_ascend_pt", bracket)
    db = tmp_path / "t.duckdb"
    ingest_paths(db, bracket, run="bracket")
    kd = bracket / "ASCEND_PROFILER_OUTPUT/kernel_details.csv"
    want = len(kd.read_text().strip().splitlines()) - 1
    assert rows(db, "SELECT count(*) FROM kernel WHERE copy_kind IS NULL") == [(want,)]
    first = kd.read_text().splitlines()[1].split(",")
    names = {r[0] for r in rows(db, "SELECT name FROM kernel")}
    assert any(n in names for n in first), "the kernels are not exp[1]'s"


class _CheckpointFails:
    """A connection whose CHECKPOINT fails as on a full disk; everything else is passed on."""

    def __init__(self, con):
        self._con = con

    def execute(self, sql, *args, **kw):
        if isinstance(sql, str) and sql.strip().upper() == "CHECKPOINT":     # not a parsed Statement
            raise duckdb.IOException("IO Error: Could not write file: No space left on device")
        return self._con.execute(sql, *args, **kw)

    def __getattr__(self, name):
        return getattr(self._con, name)


def test_f3_failed_checkpoint_after_commit_is_a_warning(tmp_path):
    db = tmp_path / "t.duckdb"
    con = connect(db)
    said = []
    try:
        report = ingest(_CheckpointFails(con), [FIXTURES / "ascend/level1/rank0_ascend_pt"], progress=said.append)
    finally:
        con.close()
    assert report.files_ingested
    assert any("the data is committed" in s and "No space left" in s for s in said)
    assert rows(db, "SELECT count(*) > 0 FROM kernel") == [(True,)]


def test_f16_ingest_into_a_database_plain_duckdb_created(tmp_path):
    """A file created by plain DuckDB has its newer default storage version, where dictionary
    compression is read-only: the schema's compression hint failed with a BinderException."""
    db = tmp_path / "plain.duckdb"
    con = duckdb.connect(str(db))
    con.execute("CREATE TABLE notes (x INTEGER)")
    con.close()
    ingest_paths(db, FIXTURES / "ascend/level1/rank0_ascend_pt")
    assert rows(db, "SELECT count(*) > 0, (SELECT count(*) FROM notes) FROM kernel") == [(True, 0)]


def test_f17_identical_copy_leaves_the_rank_as_it_was(tmp_path):
    """Re-ingesting an identical copy of a rank folder skips every file and keeps the rank's
    source_dir (it used to point at the copy)."""
    src = FIXTURES / "ascend/level1/rank0_ascend_pt"
    copy = tmp_path / "copy" / "rank0_ascend_pt"
    shutil.copytree(src, copy)
    db = tmp_path / "t.duckdb"
    ingest_paths(db, src, run="r")
    before = rows(db, "SELECT * FROM rank")
    report = ingest_paths(db, copy, run="r")
    assert report.files_ingested == [] and len(report.files_skipped) == len(list((copy / "ASCEND_PROFILER_OUTPUT").iterdir())) + 2
    assert rows(db, "SELECT * FROM rank") == before and before[0][-1] == str(src.resolve())
