"""Shared fixtures: paths to bundled fixtures and to ../shared/corpus, temp databases, helpers.

Databases that many tests read are built once per test session and copied per test
(:func:`ingested`: ~2 s an ingest, ~15 ms a copy). The default ``pytest`` run leaves out the
tests marked corpus, process, browser, compat, spark and slow (pyproject's addopts);
``.ci/run`` runs them all (``-m ""``).
"""
from __future__ import annotations

import copy
import os
import shutil
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


def pytest_configure(config):
    """New databases in tests come from a template built once in this session's own cache
    folder (not the user's), so no test depends on what an earlier run left there."""
    if "TRACEDB_CACHE_DIR" not in os.environ:
        os.environ["TRACEDB_CACHE_DIR"] = tempfile.mkdtemp(prefix="tracedb-test-cache-")


def pytest_unconfigure(config):
    folder = os.environ.get("TRACEDB_CACHE_DIR", "")
    if "tracedb-test-cache-" in folder:
        shutil.rmtree(folder, ignore_errors=True)


def corpus_path(rel: str) -> Path:
    """A path under ../shared/corpus; the test is skipped when the corpus is not beside the checkout."""
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
        target = folder / f"db{len(_BUILT)}.duckdb"
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


def api_ingested(paths, db_path: Path, **kw):
    """``tracedb.api.ingest(paths, db_path, **kw)`` (with the op alignment of a role pair) into a
    new ``db_path``, built once per session and copied, as :func:`ingested`."""
    from tracedb import api
    assert not Path(db_path).exists(), f"{db_path} exists: api_ingested() makes a new database"
    key = ("api", tuple(str(p) for p in paths), tuple(sorted(kw.items())))
    target, report = _built(key, lambda t: api.ingest(paths, t, **kw))
    shutil.copyfile(target, db_path)
    return copy.deepcopy(report)


def rows(db_path: Path, sql: str, params=None) -> list[tuple]:
    con = duckdb.connect(str(db_path), read_only=True)
    try:
        return con.execute(sql, params or []).fetchall()
    finally:
        con.close()
