"""A new database gets its tables and view library from a cached template.

Creating the ``schema/*.sql`` tables and installing the view library into a new file costs
about 0.75 CPU s (DuckDB binds every view, macro and comment); on a small pair of ranks that was
a third of ``tracedb compare``. ``COPY FROM DATABASE … (SCHEMA)`` from a file that already holds
them, and an INSERT for each table that has rows (the seed rows: ``tracedb_meta``,
``tracedb_object``, ``kernel_class_rule``), cost about 0.05 s: they copy the catalogue entries
without binding anything again.

The template is built once, by the first ingest that creates a database, for each (tracedb
version, schema files, library files, DuckDB version, storage version), in the user cache folder:
``$TRACEDB_CACHE_DIR``, else ``$XDG_CACHE_HOME/tracedb``, else ``~/.cache/tracedb`` (its
``user-<uid>`` subfolder when others can write it). ``TRACEDB_CACHE_DIR=off`` turns it off.

What the template holds goes into every new database, so it is verified before it is attached
(:mod:`tracedb.store.cache`): it must be a regular file of this user that nobody else can write
(never a FIFO, device or symbolic link, which are not even opened), and its SHA-256 must be the
one written beside it (``….duckdb.sha256``) when this user's tracedb built it. The library hash
inside the file is not enough: it is part of what a changed file could change. Anything else (a
truncated or damaged file, a view changed after the build, a file planted by another user) is
built again, in place of it. The check reads the ~4 MB file once: about 3 ms of the ~50 ms a
seeded database costs, against ~0.75 s to build one without the template (bench/RESULTS.md).
Whatever goes wrong with the cache (unwritable folder, a file that cannot be replaced), the
ingest creates the tables itself as before: the template only saves time.

Only the catalogue is copied, not the file: each new database keeps its own DuckDB identity,
so DuckDB still refuses the .wal of another tracedb database. Storage versions at which the
schema's compression hints apply (v1.2.0 and older, :func:`tracedb.store.schema.compression_hint`)
are built in place, without a template.
"""
from __future__ import annotations

import hashlib
import os
from pathlib import Path

from .. import __version__
from ..engine import duckdb
from ..resources import cache_dir  # noqa: F401  (tracedb.store.template.cache_dir, as before)
from . import cache, library
from .schema import apply_schema, compression_hint, schema_hash, storage_version

ALIAS = "tracedb_template"
KEEP = 8            # templates kept in the cache folder (the most recently used)


def _is_new(con: duckdb.DuckDBPyConnection) -> bool:
    """True if the open database holds no table, view, macro or sequence of its own.

    A file that has never been written (no block, empty WAL: the one ``tracedb ingest`` or
    ``compare`` just created) is new without listing the catalogue; listing it costs ~0.02 s,
    most of it ``duckdb_functions()`` going through DuckDB's built-in functions."""
    if con.execute("SELECT total_blocks = 0 AND wal_size = '0 bytes' FROM pragma_database_size() "
                   "WHERE database_name = current_database()").fetchone()[0]:
        return True
    if con.execute("SELECT count(*) FROM duckdb_tables() WHERE database_name = current_database()").fetchone()[0]:
        return False        # a database in use (every later ingest): its tables answer at once
    return not con.execute(
        "SELECT (SELECT count(*) FROM duckdb_views() WHERE database_name = current_database() AND NOT internal) "
        "+ (SELECT count(*) FROM duckdb_functions() WHERE database_name = current_database() AND NOT internal) "
        "+ (SELECT count(*) FROM duckdb_sequences() WHERE database_name = current_database())").fetchone()[0]


def template_path(storage_version: str) -> Path | None:
    """Where the template for this database's storage version lives (None: no template applies)."""
    folder = cache.private_dir()
    if folder is None or compression_hint(storage_version) is not None:
        return None
    key = hashlib.sha256("\0".join([__version__, schema_hash(None), library.library_hash(), duckdb.__version__,
                                    storage_version]).encode()).hexdigest()[:20]
    return folder / f"template-{storage_version}-{key}.duckdb"


def _build(path: Path, storage_version: str) -> None:
    """Write the template: a new file with the schema and the library, checkpointed, moved into
    place in one rename (replacing whatever was there: a damaged file, a FIFO, a symbolic link),
    then its SHA-256 beside it (a concurrent builder writes the same content; if the two renames
    of two builders interleave, the next ingest finds a mismatch and builds it again)."""
    cache.make_dir(path.parent)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    side = None
    tmp.unlink(missing_ok=True)
    try:
        con = duckdb.connect(str(tmp), config={"storage_compatibility_version": storage_version})
        try:
            con.execute("BEGIN TRANSACTION")
            apply_schema(con)
            library.install_if_changed(con)
            con.execute("COMMIT")
            con.execute("CHECKPOINT")
        finally:
            con.close()
        side = cache.write_sidecar(path, tmp)
        cache.sidecar(path).unlink(missing_ok=True)     # no moment where the new file has the old hash
        os.replace(tmp, path)
        os.replace(side, cache.sidecar(path))
    finally:
        for p in (tmp, Path(f"{tmp}.wal"), side):
            if p is not None:
                p.unlink(missing_ok=True)
    _prune(path)


def _prune(keep: Path) -> None:
    """Remove all but the :data:`KEEP` most recently used templates (best effort)."""
    try:
        files = sorted(keep.parent.glob("template-*.duckdb"), key=lambda p: p.lstat().st_mtime, reverse=True)
        for p in files[KEEP:]:
            if p != keep:
                p.unlink(missing_ok=True)
                cache.sidecar(p).unlink(missing_ok=True)
    except OSError:
        pass


def _quote(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


def seed(con: duckdb.DuckDBPyConnection) -> bool:
    """Fill the open database from the template when it is new (no table, view or macro of its
    own) and a template applies, building the template first if the cache lacks it. Runs
    outside any transaction, in one of its own: the database ends either seeded or as it was.

    Returns:
        True if seeded; False if the caller creates the tables itself (not new, turned off, or
        the cache failed: unwritable folder, damaged template).
    """
    try:
        version = (storage_version(con) or "").rstrip("+")
        if not version or not _is_new(con):
            return False
        path = template_path(version)
        if path is None:
            return False
        if path.is_dir() and not path.is_symlink():
            return False                # cannot be replaced by a template: not worth building one
        if not cache.verified(path):      # missing, not a private regular file, or not what was built
            _build(path, version)
        else:
            os.utime(path)          # most recently used, for _prune
        quoted = str(path).replace("'", "''")
        con.execute(f"ATTACH '{quoted}' AS {ALIAS} (READ_ONLY)")
    except (OSError, duckdb.Error):
        return False
    try:
        target = con.execute("SELECT current_database()").fetchone()[0]
        con.execute("BEGIN TRANSACTION")
        try:
            # the catalogue, then the rows of the tables that have any (the seed rows): a plain
            # COPY FROM DATABASE plans an INSERT … SELECT for each of the ~30 tables, empty or
            # not (16 → 8 ms)
            con.execute(f"COPY FROM DATABASE {ALIAS} TO {_quote(target)} (SCHEMA)")
            for schema, table in con.execute(
                    "SELECT schema_name, table_name FROM duckdb_tables() WHERE database_name = ? "
                    "AND estimated_size > 0 ORDER BY ALL", [ALIAS]).fetchall():
                name = f"{_quote(schema)}.{_quote(table)}"
                con.execute(f"INSERT INTO {_quote(target)}.{name} FROM {ALIAS}.{name}")
            con.execute("COMMIT")
        except duckdb.Error:
            con.execute("ROLLBACK")
            return False
        return True
    finally:
        # detached before the caller's statements run: while it was attached (DuckDB 2.0), an
        # unqualified ``event`` in the Kineto reader read the template's empty table
        # (tests/ingest/test_kineto.py::test_every_corpus_kineto_trace_ingests)
        try:
            con.execute(f"DETACH DATABASE IF EXISTS {ALIAS}")
        except duckdb.Error:
            pass
