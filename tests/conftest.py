"""Shared fixtures: paths to bundled fixtures and to ../shared/corpus, temp databases, helpers."""
from __future__ import annotations

import os
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


def pytest_configure(config):
    """New databases in tests come from a template built once in this session's own cache
    folder (not the user's), so no test depends on what an earlier run left there."""
    if "TRACEDB_CACHE_DIR" not in os.environ:
        import tempfile
        os.environ["TRACEDB_CACHE_DIR"] = tempfile.mkdtemp(prefix="tracedb-test-cache-")


def pytest_unconfigure(config):
    folder = os.environ.get("TRACEDB_CACHE_DIR", "")
    if "tracedb-test-cache-" in folder:
        import shutil
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


def rows(db_path: Path, sql: str, params=None) -> list[tuple]:
    con = duckdb.connect(str(db_path), read_only=True)
    try:
        return con.execute(sql, params or []).fetchall()
    finally:
        con.close()
