"""Shared fixtures: paths to bundled fixtures and to ../shared/corpus, temp databases, helpers.

Databases that many tests read are built once per test session and copied per test
(:func:`ingested`: ~2 s an ingest, ~15 ms a copy). The default ``pytest`` run leaves out the
tests marked corpus, process, browser, compat, spark and slow (pyproject's addopts);
``.ci/run`` runs them (``-m "corpus or process or …"``), ``-m ""`` runs everything.

The marks are checked while the tests run: :func:`corpus_path` fails in a test not marked
``corpus``, and starting a child process (``subprocess``) fails in a test not marked ``process``,
``compat``, ``browser`` or ``spark`` (such a test would otherwise run only where the corpus is
absent, i.e. be skipped everywhere, or slow down the fast default set unseen).
"""
from __future__ import annotations

import copy
import os
import shutil
import subprocess
import tempfile
from pathlib import Path

import duckdb
import pytest

from tracedb.ingestion import ingest as ingest_into
from tracedb.store import template
from tracedb.store.db import connect
from tracedb.store.library import install
from tracedb.store.schema import apply_schema
from tracedb.store.session import writing

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = ROOT / "fixtures"
CORPUS = Path(os.environ.get("TRACEDB_CORPUS", ROOT.parent / "shared" / "corpus"))
# the bundled fixtures (fixtures/PROVENANCE.md)
LEVEL1 = FIXTURES / "ascend" / "level1"                        # torch_npu text export, 2 ranks, 2025
RANK0 = LEVEL1 / "rank0_ascend_pt"
RANK1 = LEVEL1 / "rank1_ascend_pt"
LEVEL0 = FIXTURES / "ascend" / "level0_rank0_ascend_pt"
LEVEL1_2024 = FIXTURES / "ascend" / "level1_2024_rank0_ascend_pt"
KINETO = FIXTURES / "kineto"                                  # 2 sampled Kineto ranks (HTA's tests)
MINDSPORE = FIXTURES / "mindspore" / "profiler"
_BUILT: dict[tuple, tuple[Path, object]] = {}                # ingested(): inputs → (database, report)
_OWN_CACHE: list[str] = []                                   # the cache folder this process made
CHILD_MARKS = {"process", "compat", "browser", "spark"}      # marks that allow a child process
_RUNNING: list[set[str]] = []                                # marks of the test being set up / run


def pytest_configure(config):
    """New databases in tests come from a template built once in this session's own cache
    folder (not the user's), so no test depends on what an earlier run left there. A pytest-xdist
    worker inherits its controller's folder (and the template in it); the controller removes it."""
    if "TRACEDB_CACHE_DIR" not in os.environ:
        os.environ["TRACEDB_CACHE_DIR"] = tempfile.mkdtemp(prefix="tracedb-test-cache-")
        _OWN_CACHE.append(os.environ["TRACEDB_CACHE_DIR"])
    subprocess.Popen.__init__ = _checked_popen(subprocess.Popen.__init__)


def pytest_unconfigure(config):
    for folder in _OWN_CACHE:
        shutil.rmtree(folder, ignore_errors=True)


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_setup(item):
    _RUNNING.append({m.name for m in item.iter_markers()})
    try:
        yield
    finally:
        _RUNNING.pop()


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_call(item):
    _RUNNING.append({m.name for m in item.iter_markers()})
    try:
        yield
    finally:
        _RUNNING.pop()


def _checked_popen(init):
    if getattr(init, "_tracedb_checked", False):
        return init

    def checked(self, *args, **kw):
        if _RUNNING and not _RUNNING[-1] & CHILD_MARKS:
            pytest.fail("this test starts a child process: mark it @pytest.mark.process (the default "
                        "set is in-process only)", pytrace=False)
        return init(self, *args, **kw)

    checked._tracedb_checked = True
    return checked


def corpus_path(rel: str) -> Path:
    """A path under ../shared/corpus; the test is skipped when the corpus is not beside the checkout.
    Only in a test marked ``corpus`` (else the default set, run where there is no corpus, would
    skip it silently and CI, which selects the marked tests, would never run it)."""
    if _RUNNING and "corpus" not in _RUNNING[-1]:
        pytest.fail(f"this test reads the corpus ({rel}): mark it @pytest.mark.corpus", pytrace=False)
    p = CORPUS / rel
    if not p.exists():
        pytest.skip(f"corpus file not available: {p}")
    return p


@pytest.fixture
def db_path(tmp_path) -> Path:
    return tmp_path / "t.duckdb"


@pytest.fixture
def empty_db(db_path):
    """A read-write connection to a new database with the schema and view library installed."""
    con = connect(db_path)
    if not template.seed(con):
        apply_schema(con)
        install(con)
    yield con
    con.close()


def ingest_paths(db_path: Path, *paths, **kw):
    """Ingest as ``tracedb ingest`` does: a new file starts as a copy of the template and is
    removed again when the ingest fails (tracedb.store.session.writing), without the op
    alignment of a role pair that tracedb.api.ingest adds."""
    with writing(db_path) as w:
        report = ingest_into(w.con, [str(p) for p in paths], **kw)
        w.keep()
        return report


def _built(key: tuple, build) -> tuple[Path, object]:
    if key not in _BUILT:
        folder = Path(os.environ["TRACEDB_CACHE_DIR"]) / "fixture-dbs"
        folder.mkdir(exist_ok=True)
        target = folder / f"db-{os.getpid()}-{len(_BUILT)}.duckdb"     # unique per xdist worker
        _BUILT[key] = (target, build(target))
    return _BUILT[key]


def ingested(db_path: Path, *paths, **kw):
    """:func:`ingest_paths` into a new ``db_path``, built once per test session for the same
    inputs and copied after that; returns (a copy of) the first ingest's report. For a test that
    reads the database or adds to its copy; not for one that watches the ingest itself."""
    assert not Path(db_path).exists(), f"{db_path} exists: ingested() makes a new database"
    assert not any(callable(v) for v in kw.values()), "ingested() does not call back: use ingest_paths()"
    key = ("ingest_paths", tuple(str(p) for p in paths), tuple(sorted(kw.items())))
    target, report = _built(key, lambda t: ingest_paths(t, *paths, **kw))
    shutil.copyfile(target, db_path)
    return copy.deepcopy(report)


def ingested_runs(db_path: Path, *steps):
    """:func:`ingest_paths` of each ``(paths, kwargs)`` step in turn into a new ``db_path``, built
    once per session for the same steps and copied, as :func:`ingested`; returns the reports."""
    assert not Path(db_path).exists(), f"{db_path} exists: ingested_runs() makes a new database"
    steps = [((p,) if isinstance(p, (str, Path)) else tuple(p), dict(kw)) for p, kw in steps]
    assert not any(callable(v) for _, kw in steps for v in kw.values()), "ingested_runs() does not call back"
    key = ("runs", tuple((tuple(str(p) for p in paths), tuple(sorted(kw.items()))) for paths, kw in steps))
    target, reports = _built(key, lambda t: [ingest_paths(t, *paths, **kw) for paths, kw in steps])
    shutil.copyfile(target, db_path)
    return copy.deepcopy(reports)


def api_ingested(paths, db_path: Path, **kw):
    """``tracedb.api.ingest(paths, db_path, **kw)`` (with the op alignment of a role pair) into a
    new ``db_path``, built once per session and copied, as :func:`ingested`."""
    from tracedb import api
    assert not Path(db_path).exists(), f"{db_path} exists: api_ingested() makes a new database"
    key = ("api", tuple(str(p) for p in paths), tuple(sorted(kw.items())))
    target, report = _built(key, lambda t: api.ingest(paths, t, **kw))
    shutil.copyfile(target, db_path)
    return copy.deepcopy(report)


@pytest.fixture(scope="session")
def spark_session():
    """The one local Spark session of a test run (tests/spark/): starting one takes ~10 s and its
    JVM holds a 6 GB heap, so the Spark tests share it; stopped when the run ends."""
    pytest.importorskip("pyspark", reason="pyspark not installed: pip install '.[spark]'")
    if shutil.which("java") is None:
        pytest.skip("Spark needs a Java runtime")
    from tracedb.spark import session
    spark = session("tracedb-tests")
    try:
        yield spark
    finally:
        spark.stop()


def rows(db_path: Path, sql: str, params=None) -> list[tuple]:
    con = duckdb.connect(str(db_path), read_only=True)
    try:
        return con.execute(sql, params or []).fetchall()
    finally:
        con.close()
