"""The schema, defined once in ``schema/*.sql``, applied in file order.

Files only declare (CREATE TABLE IF NOT EXISTS + COMMENT ON), so applying them to an
existing database is a no-op apart from refreshing the comments. :func:`apply_schema` records a
hash of the files in ``tracedb_meta`` (key ``schema_hash``) and skips them while it matches: an
ingest into a current database runs no DDL.
"""
from __future__ import annotations

import hashlib
import re

from .. import __version__
from ..engine import duckdb
from ..resources import sql_dir

SCHEMA_VERSION = "2"


def storage_version(con: duckdb.DuckDBPyConnection) -> str | None:
    """The storage version of the open database file (``v1.0.0+``), None where DuckDB does not say."""
    try:
        row = con.execute("SELECT tags['storage_version'] FROM duckdb_databases() "
                          "WHERE database_name = current_database()").fetchone()
    except duckdb.Error:
        return None
    return row[0] if row else None


def meta_value(con: duckdb.DuckDBPyConnection, key: str) -> str | None:
    """A ``tracedb_meta`` value; None when the key or the table is missing (looked up in the
    catalogue first: a failed statement would abort the caller's transaction)."""
    if not con.execute("SELECT count(*) FROM duckdb_tables() WHERE database_name = current_database() "
                       "AND schema_name = 'main' AND table_name = 'tracedb_meta'").fetchone()[0]:
        return None
    row = con.execute("SELECT value FROM tracedb_meta WHERE key = ?", [key]).fetchone()
    return row[0] if row else None


def schema_hash(hint: str | None) -> str:
    """SHA-256 over the ``schema/*.sql`` files, tracedb's version and the compression hint
    applied (:func:`compression_hint`): what :func:`apply_schema` writes into a database."""
    h = hashlib.sha256(f"{__version__}\0{SCHEMA_VERSION}\0{hint}\0".encode())
    for path in sorted(sql_dir("schema").glob("*.sql")):
        h.update(path.name.encode() + b"\0" + path.read_bytes() + b"\0")
    return h.hexdigest()


# Compression hints of the schema files: None = the rule of :func:`compression_hint`; the
# storage benchmark (bench/storage_matrix.py) sets "none" or a method name to compare them.
COMPRESSION: str | None = None
# storage versions where DuckDB still writes (not only reads) dictionary compression
_DICTIONARY_WRITTEN = ("v0.", "v1.0.", "v1.1.", "v1.2.")


def compression_hint(storage_version: str | None) -> str | None:
    """The method the ``USING COMPRESSION`` hints of ``schema/*.sql`` ask for at this storage
    version, None to drop them (DuckDB then chooses per segment).

    ``dictionary`` is written up to storage v1.2.0 only; from v1.3.0 on DuckDB refuses it as a
    hint (a BinderException) and picks dict_fsst / FSST itself."""
    if COMPRESSION is not None:
        return None if COMPRESSION == "none" else COMPRESSION
    version = (storage_version or "v1.0.0").rstrip("+")
    return "dictionary" if version.startswith(_DICTIONARY_WRITTEN) else None


def apply_schema(con: duckdb.DuckDBPyConnection) -> bool:
    """Create every table of ``schema/*.sql`` that is missing and (re)write its comments, unless
    the database already holds exactly these files (``tracedb_meta.schema_hash``).

    The ``USING COMPRESSION dictionary`` hints apply where DuckDB writes that compression (see
    :func:`compression_hint`); a file at a newer storage version (chosen with
    ``--storage-version``, or created by plain DuckDB) gets the tables without them. Files only
    declare: columns a schema file adds to an existing table are filled for the rows already
    there by the ingest (:func:`tracedb.ingestion.derive.upgrade`).

    Returns:
        True if the schema files ran, False if the database was current.
    """
    version = storage_version(con)
    hint = compression_hint(version)
    digest = schema_hash(hint)
    if meta_value(con, "schema_hash") == digest:
        return False
    for path in sorted(sql_dir("schema").glob("*.sql")):
        sql = path.read_text()
        if hint is None:
            sql = re.sub(r"\s+USING\s+COMPRESSION\s+\w+", "", sql, flags=re.I)
        elif hint != "dictionary":
            sql = re.sub(r"(\s+USING\s+COMPRESSION\s+)dictionary\b", rf"\g<1>{hint}", sql, flags=re.I)
        con.execute(sql)   # DuckDB runs a whole multi-statement file in one call
    for key, value in (("schema_version", SCHEMA_VERSION), ("storage_version", (version or "").rstrip("+")),
                       ("tracedb_version", __version__), ("schema_hash", digest)):
        con.execute("INSERT OR REPLACE INTO tracedb_meta VALUES (?, ?)", [key, value])
    return True
