"""Issue 40, points 1 and 5, through the CLI in a child process with real faults: a file-size
limit (``ulimit -f``; writes fail with EFBIG as on a full disk) and a folder the process may not
write (root included: CAP_DAC_OVERRIDE dropped).

* the COMMIT fails → one line ``tracedb: error: DB: cannot write the database: … nothing was
  written``, exit 1, no file left (a new database) or every table as before;
* the COMMIT succeeds and the CHECKPOINT after it fails → the warning that the data is committed,
  exit 0, and a later open replays the .wal: the run is there. On main this printed the warning,
  then ran a statement on the connection DuckDB had invalidated: ``FatalException … database has
  been invalidated``, exit 1, with the run committed.

The limits were found by bisection on the fixture rank (cache off, DuckDB 2.0): its .wal is
3.6 MB and the checkpointed file 9.7 MB; compare's two sides write a 6.1 MB .wal and 11.3 MB.
"""
from __future__ import annotations

import os
import shutil

import pytest

from conftest import FIXTURES, rows
from fault_tools import error_lines, fingerprint, fsize_limit, tracedb, without_dac_override

pytestmark = pytest.mark.process

RANK0 = FIXTURES / "ascend/level1/rank0_ascend_pt"
RANK1 = FIXTURES / "ascend/level1/rank1_ascend_pt"
OTHER = FIXTURES / "ascend/level1_2024_rank0_ascend_pt"
COMMIT_FAILS = 1_000_000          # below the .wal of one rank (2.4-3.6 MB)
CHECKPOINT_FAILS = 6_000_000      # the .wal fits, the checkpointed file does not


def test_failed_checkpoint_after_commit_exits_0_and_the_run_is_kept(tmp_path):
    db = tmp_path / "t.duckdb"
    res = tracedb("ingest", RANK0, "--db", db, preexec_fn=fsize_limit(CHECKPOINT_FAILS))
    assert res.returncode == 0, res.stderr
    assert error_lines(res.stderr) == []
    assert "Exception" not in res.stderr and "invalidated" not in res.stderr
    [warning] = [line for line in res.stderr.splitlines() if line.startswith("warning:")]
    assert str(db) in warning and "the data is committed" in warning and "File too large" in warning
    assert os.path.getsize(f"{db}.wal") > 0                  # committed in the .wal ...
    # ... and replayed at the next open: the rank's 215 kernels (191 kernel_details rows + 24
    # of trace_view's other streams, as an ingest without a limit stores them)
    assert rows(db, "SELECT run_name, (SELECT count(*) FROM kernel) FROM run") == [("rank0_ascend_pt", 215)]


def test_failed_commit_writes_nothing_and_says_so(tmp_path):
    db = tmp_path / "t.duckdb"
    res = tracedb("ingest", RANK0, "--db", db, preexec_fn=fsize_limit(COMMIT_FAILS))
    assert res.returncode == 1
    [line] = error_lines(res.stderr)
    assert line.startswith(f"tracedb: error: {db}: cannot write the database: the file-size limit")
    assert "nothing was written" in line and "Exception" not in line
    assert not db.exists() and not os.path.exists(f"{db}.wal")     # the file it created is removed


def test_failed_commit_into_an_existing_database_leaves_it_as_it_was(tmp_path):
    db = tmp_path / "t.duckdb"
    assert tracedb("ingest", RANK0, "--db", db).returncode == 0
    before = fingerprint(db)
    res = tracedb("ingest", RANK1, "--db", db, preexec_fn=fsize_limit(COMMIT_FAILS))   # the .wal cannot grow
    assert res.returncode == 1
    [line] = error_lines(res.stderr)
    assert f"{db}: cannot write the database" in line and "nothing was written" in line
    assert fingerprint(db) == before


def test_read_only_folder_at_commit(tmp_path):
    """The folder of the database cannot be written: DuckDB cannot create the .wal at COMMIT."""
    folder = tmp_path / "ro"
    folder.mkdir()
    db = folder / "t.duckdb"
    assert tracedb("ingest", RANK0, "--db", db).returncode == 0
    before = fingerprint(db)
    folder.chmod(0o555)
    try:
        res = tracedb("ingest", RANK1, "--db", db, preexec_fn=without_dac_override())
    finally:
        folder.chmod(0o755)
    assert res.returncode == 1
    [line] = error_lines(res.stderr)
    assert line.startswith(f"tracedb: error: {db}: cannot write the database: permission denied")
    assert "nothing was written" in line and "Exception" not in line
    assert fingerprint(db) == before


def test_compare_with_a_failed_checkpoint_exits_0(tmp_path):
    db = tmp_path / "c.duckdb"
    res = tracedb("compare", RANK0, OTHER, "--db", db, "--limit", "1", preexec_fn=fsize_limit(9_000_000))
    assert res.returncode == 0, res.stderr
    assert any(line.startswith(f"warning: {db}: the data is committed") for line in res.stderr.splitlines())
    assert "op_diff" in res.stdout
    assert rows(db, "SELECT count(*) FROM op_match") == [(115,)]      # the 115 aligned rows it printed


def test_unreadable_template_is_built_again(tmp_path):
    """A template this user cannot read (root included) is replaced, not a failed ingest."""
    cache = tmp_path / "cache"
    db = tmp_path / "first.duckdb"
    assert tracedb("ingest", RANK0, "--db", db, cache=cache).returncode == 0
    [made] = cache.glob("template-*.duckdb")
    made.chmod(0)
    res = tracedb("ingest", RANK0, "--db", tmp_path / "second.duckdb", cache=cache, preexec_fn=without_dac_override())
    assert res.returncode == 0, res.stderr
    assert made.stat().st_mode & 0o400                              # built again in its place
    ingested_at = ("run", "source_file")                            # their rows hold the ingest time
    assert fingerprint(tmp_path / "second.duckdb", skip=ingested_at) == fingerprint(db, skip=ingested_at)
    shutil.rmtree(cache)
