"""kill -9 during an ingest leaves the database with exactly the earlier data; re-running completes.
SIGTERM / SIGINT / SIGHUP end an ingest with "tracedb: interrupted", exit 130, the database as it was
and no FIFO folder left in $TMPDIR."""
from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from conftest import FIXTURES, ROOT, ingest_paths, rows

GEN = ROOT.parent / "shared" / "bench" / "gen_traces.py"


def fingerprint(db: Path):
    return rows(db, "SELECT (SELECT count(*) FROM event), (SELECT count(*) FROM kernel), "
                    "(SELECT count(*) FROM run), (SELECT count(*) FROM source_file)")


@pytest.fixture(scope="module")
def big_rank(tmp_path_factory):
    if not GEN.exists():
        pytest.skip("shared/bench/gen_traces.py not available")
    out = tmp_path_factory.mktemp("big")
    subprocess.run([sys.executable, str(GEN), "--out", str(out), "--ranks", "1", "--steps", "4",
                    "--events-per-step", "40000", "--seed", "3", "--format", "ascend"],
                   check=True, capture_output=True)
    return next((out / "ascend").iterdir())          # ~30 MB trace_view.json


@pytest.fixture(scope="module")
def complete(big_rank, tmp_path_factory):
    """Row counts of a database holding the fixture run and the big run, ingested without a kill."""
    db = tmp_path_factory.mktemp("complete") / "c.duckdb"
    ingest_paths(db, FIXTURES / "ascend/level1/rank0_ascend_pt")
    ingest_paths(db, big_rank)
    return fingerprint(db)


@pytest.mark.parametrize("delay", [0.3, 1.0, 2.0])
def test_kill_9_mid_ingest_keeps_earlier_rows(big_rank, complete, tmp_path, delay):
    """Killed before COMMIT: exactly the earlier rows. Killed after COMMIT (during the checkpoint
    or exit): exactly the complete new state. Never a part of the new file."""
    db = tmp_path / "t.duckdb"
    ingest_paths(db, FIXTURES / "ascend/level1/rank0_ascend_pt")
    before = fingerprint(db)
    proc = subprocess.Popen([sys.executable, "-m", "tracedb.cli", "-q", "ingest", "--db", str(db), str(big_rank)],
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    time.sleep(delay)
    killed = proc.poll() is None
    if killed:
        os.kill(proc.pid, signal.SIGKILL)
    proc.wait()
    # the file opens (replaying or discarding any WAL) in one of the two whole states
    assert fingerprint(db) in (before, complete)
    # re-running completes (or skips the already committed files) and ends in the complete state
    ingest_paths(db, big_rank)
    assert fingerprint(db) == complete
    assert not Path(str(db) + ".wal").exists()


def test_two_ingests_at_once_one_waits_out_with_exit_3(big_rank, complete, tmp_path):
    db = tmp_path / "t.duckdb"
    ingest_paths(db, FIXTURES / "ascend/level1/rank0_ascend_pt")
    first = subprocess.Popen([sys.executable, "-m", "tracedb.cli", "-q", "ingest", "--db", str(db), str(big_rank)],
                             stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    time.sleep(0.5)
    second = subprocess.run([sys.executable, "-m", "tracedb.cli", "-q", "ingest", "--db", str(db),
                             str(FIXTURES / "ascend/level1/rank1_ascend_pt")], capture_output=True, text=True)
    first.wait()
    assert first.returncode == 0, first.stderr.read()
    if second.returncode != 0:          # the usual case: the file was held by the first ingest
        assert second.returncode == 3 and "locked" in second.stderr
        assert fingerprint(db) == complete
    else:                               # the first had already finished
        assert fingerprint(db)[0][2] == 3


@pytest.fixture(scope="module")
def split_rank(tmp_path_factory):
    """A rank whose trace_view.json (~75 MB) is above SPLIT_MIN_BYTES, so that it is read in
    parallel slices through FIFOs in $TMPDIR/tracedb-split-*."""
    if not GEN.exists():
        pytest.skip("shared/bench/gen_traces.py not available")
    out = tmp_path_factory.mktemp("split")
    subprocess.run([sys.executable, str(GEN), "--out", str(out), "--ranks", "1", "--steps", "4",
                    "--events-per-step", "100000", "--seed", "3", "--format", "ascend"],
                   check=True, capture_output=True)
    return next((out / "ascend").iterdir())


@pytest.mark.parametrize("sig,existing", [(signal.SIGTERM, True), (signal.SIGINT, True), (signal.SIGHUP, False)])
def test_signal_during_parallel_read_exits_130_and_cleans_up(split_rank, tmp_path, sig, existing):
    db = tmp_path / "t.duckdb"
    if existing:
        ingest_paths(db, FIXTURES / "ascend/level1/rank0_ascend_pt")
        before = fingerprint(db)
    tmp = tmp_path / "tmp"
    tmp.mkdir()
    # the signal's default disposition in the child: a test run started in the background of a
    # non-interactive shell ignores SIGINT, which tracedb (rightly) keeps ignoring
    proc = subprocess.Popen([sys.executable, "-m", "tracedb.cli", "ingest", "--db", str(db), str(split_rank)],
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, cwd=ROOT,
                            env=dict(os.environ, TMPDIR=str(tmp)),
                            preexec_fn=lambda: signal.signal(sig, signal.SIG_DFL))
    deadline = time.monotonic() + 60
    while not list(tmp.glob("tracedb-split-*")) and proc.poll() is None and time.monotonic() < deadline:
        time.sleep(0.01)
    assert proc.poll() is None, "the ingest ended before its parallel read started"
    time.sleep(0.3)
    proc.send_signal(sig)
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 130, err
    assert err.strip().splitlines()[-1] == "tracedb: interrupted" and "Traceback" not in err
    assert list(tmp.iterdir()) == []                     # FIFO folders removed
    assert not Path(str(db) + ".wal").exists()
    if existing:
        assert fingerprint(db) == before
    else:
        assert not db.exists()                           # a new database is not left behind


def test_an_ignored_sighup_stays_ignored(split_rank, tmp_path):
    """nohup: SIGHUP ignored at start is not turned into an interruption."""
    db = tmp_path / "t.duckdb"
    proc = subprocess.Popen([sys.executable, "-m", "tracedb.cli", "-q", "ingest", "--db", str(db), str(split_rank)],
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, cwd=ROOT,
                            preexec_fn=lambda: signal.signal(signal.SIGHUP, signal.SIG_IGN))
    time.sleep(1.0)
    proc.send_signal(signal.SIGHUP)
    _, err = proc.communicate(timeout=300)
    assert proc.returncode == 0, err
    assert rows(db, "SELECT count(*) FROM run") == [(1,)]
