"""Issue 40, point 3: the template cache under attack. Whatever sits at the template's path, a new
database ends with the catalogue one built in place has (every view's SQL, macro, table, column,
comment and seed row), and a file that is not a regular file is never opened: a FIFO there
blocked every first ingest forever on main, and a template with one view changed was copied into
every new database (the library hash inside it was trusted).

The default run has a FIFO, a changed view and a planted template; the other damages
(truncated, garbage, a symbolic link to /dev/zero, a wrong hash, a shared folder) are marked
slow: each costs a template build.

A FIFO case has a valve: a thread that opens the FIFO's other end as soon as anything opens it
for reading, so that a regression fails the test instead of hanging it.
"""
from __future__ import annotations

import hashlib
import os
import shutil
import threading
import time

import duckdb
import pytest

from tracedb.store import library, template
from tracedb.store.db import connect
from tracedb.store.schema import apply_schema

VERSION = "v1.4.0"
CATALOGUE = {
    "views": "SELECT schema_name, view_name, comment, sql FROM duckdb_views() WHERE NOT internal",
    "tables": "SELECT schema_name, table_name, comment, sql FROM duckdb_tables()",
    "columns": "SELECT schema_name, table_name, column_name, comment, data_type FROM duckdb_columns()",
    "macros": "SELECT schema_name, function_name, comment, macro_definition FROM duckdb_functions() WHERE NOT internal",
    "meta": "SELECT * FROM tracedb_meta",
    "objects": "SELECT * FROM tracedb_object",
    "rules": "SELECT * FROM kernel_class_rule",
}
CHANGED = "CREATE OR REPLACE VIEW main.kernel_category AS SELECT 42 AS planted"


def sidecar(path):
    """Where the template's SHA-256 is kept (tracedb.store.cache.sidecar)."""
    return path.with_name(path.name + ".sha256")


def verified(path) -> bool:
    """The template is a regular file whose SHA-256 is the one beside it."""
    return (path.is_file() and not path.is_symlink() and sidecar(path).is_file()
            and hashlib.sha256(path.read_bytes()).hexdigest() == sidecar(path).read_text().strip())


def catalogue(path) -> dict:
    """The catalogue of the database file ``path``, read from the file (a view's SQL as DuckDB
    stores it, not the text of the open connection that created it)."""
    con = duckdb.connect(str(path), read_only=True)
    try:
        return {k: sorted(con.execute(sql).fetchall(), key=repr) for k, sql in CATALOGUE.items()}
    finally:
        con.close()


@pytest.fixture(scope="module")
def primed(tmp_path_factory):
    """(a cache folder holding a good template and its SHA-256, the catalogue of a database built
    in place). Each case copies the folder."""
    root = tmp_path_factory.mktemp("primed")
    folder = root / "cache"
    folder.mkdir()
    # the test session's cache (tests/conftest.py) has the template once any test made a database
    assert new_database(root, "seeded.duckdb")[0]
    made = template.template_path(VERSION)
    for f in (made, sidecar(made)):
        shutil.copy2(f, folder / f.name)
    con = connect(root / "ref.duckdb")
    try:
        con.execute("BEGIN TRANSACTION")
        apply_schema(con)
        library.install_if_changed(con)                            # the plan as the template got it
        con.execute("COMMIT")
    finally:
        con.close()
    return folder, catalogue(root / "ref.duckdb")


@pytest.fixture
def reference(primed):
    return primed[1]


@pytest.fixture
def cache_folder(primed, tmp_path, monkeypatch):
    """This case's cache folder: a copy of the primed one."""
    folder = tmp_path / "cache"
    shutil.copytree(primed[0], folder)
    monkeypatch.setenv("TRACEDB_CACHE_DIR", str(folder))
    return folder


def new_database(tmp_path, name="new.duckdb") -> tuple[bool, dict | None]:
    """(seeded from the template, catalogue when seeded) of a new database."""
    con = connect(tmp_path / name)
    try:
        seeded = template.seed(con)
    finally:
        con.close()
    return seeded, catalogue(tmp_path / name) if seeded else None


class Valve:
    """Opens the write end of the FIFO ``path`` (through a hard link, which outlives its
    replacement) as soon as a reader has it open; ``opened`` says whether one did."""

    def __init__(self, fifo, tmp_path):
        self.link = tmp_path / "fifo-link"
        os.link(fifo, self.link)
        self.opened = False
        self.stop = False
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()

    def _run(self):
        deadline = time.monotonic() + 60
        while not self.stop and time.monotonic() < deadline:
            try:
                fd = os.open(self.link, os.O_WRONLY | os.O_NONBLOCK)      # ENXIO while nobody reads
            except OSError:
                time.sleep(0.005)
                continue
            self.opened = True
            os.write(fd, b"not a database\n")
            os.close(fd)
            return

    def close(self):
        self.stop = True
        self.thread.join()


def test_fifo_at_the_template_path(cache_folder, tmp_path, reference):
    path = template.template_path(VERSION)
    path.unlink()
    os.mkfifo(path)
    valve = Valve(path, tmp_path)
    try:
        seeded, got = new_database(tmp_path)
    finally:
        valve.close()
    assert not valve.opened, "the FIFO was opened"
    assert seeded and got == reference
    assert path.is_file() and verified(path)              # a real template now, with its SHA-256


def test_template_with_one_view_changed(cache_folder, tmp_path, reference):
    path = template.template_path(VERSION)
    con = duckdb.connect(str(path))
    con.execute(CHANGED)                                        # tracedb_meta's library_hash left as it was
    con.execute("CHECKPOINT")
    con.close()
    seeded, got = new_database(tmp_path)
    assert seeded and got == reference
    assert verified(path)


@pytest.mark.parametrize("case", ["other-owner", *(  # the default run has a FIFO, a changed view and a planted file
    pytest.param(c, marks=pytest.mark.slow) for c in ("dev-zero-symlink", "truncated", "garbage", "foreign-sidecar"))])
def test_damaged_or_foreign_template(case, cache_folder, tmp_path, reference):
    path = template.template_path(VERSION)
    if case == "truncated":
        with open(path, "r+b") as f:
            f.truncate(path.stat().st_size // 2)
    elif case == "dev-zero-symlink":
        path.unlink()
        path.symlink_to("/dev/zero")
    elif case == "garbage":
        path.write_bytes(b"\0" * 8 + b"DUCK" + os.urandom(70_000))
    elif case == "foreign-sidecar":                 # a hash that is not the file's
        sidecar(path).write_text("0" * 64 + "\n")
    elif case == "other-owner":                     # planted by another user: not trusted even if intact
        if os.geteuid() != 0:
            pytest.skip("chown needs root")
        os.chown(path, 65534, 65534)
    seeded, got = new_database(tmp_path)
    assert seeded and got == reference
    assert not path.is_symlink() and path.stat().st_uid == os.geteuid() and verified(path)


def test_folder_at_the_template_path(cache_folder, tmp_path, reference):
    """A folder cannot be replaced: no template this time, the caller builds in place."""
    path = template.template_path(VERSION)
    path.unlink()
    path.mkdir()
    seeded, _ = new_database(tmp_path)
    assert not seeded and path.is_dir()


@pytest.mark.slow
def test_shared_cache_folder_gets_a_folder_per_user(cache_folder, tmp_path, reference):
    cache_folder.chmod(0o777)                                   # anyone may write it
    path = template.template_path(VERSION)
    assert path.parent == cache_folder / f"user-{os.geteuid()}"
    seeded, got = new_database(tmp_path)
    assert seeded and got == reference
    assert oct(path.parent.stat().st_mode & 0o777) == "0o700"
