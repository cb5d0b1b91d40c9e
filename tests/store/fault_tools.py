"""Real faults for the tests of tests/store and tests/cli: a file-size limit, a folder root cannot
write, a damaged block, and a fingerprint of every table (what "the database is unchanged" means)."""
from __future__ import annotations

import ctypes
import os
import resource
import signal
import subprocess
import sys
from pathlib import Path

import duckdb

PR_CAPBSET_DROP = 24
CAP_DAC_OVERRIDE, CAP_DAC_READ_SEARCH = 1, 2
HEADER_BYTES = 3 * 4096           # DuckDB's file header and two database headers, then the blocks


def fingerprint(db: Path, skip: tuple[str, ...] = ()) -> dict:
    """{table: (rows, xor of the rows' hashes)} of every table of ``db`` but ``skip``."""
    con = duckdb.connect(str(db), read_only=True)
    try:
        out = {}
        for table, cols in con.execute(
                "SELECT table_name, list(column_name ORDER BY column_index) FROM duckdb_columns() "
                "JOIN duckdb_tables() USING (database_name, schema_name, table_name) "
                "WHERE schema_name = 'main' GROUP BY table_name ORDER BY table_name").fetchall():
            if table in skip:
                continue
            quoted = ", ".join(f'"{c}"' for c in cols)
            out[table] = con.execute(f'SELECT count(*), bit_xor(hash({quoted})) FROM "{table}"').fetchone()
        return out
    finally:
        con.close()


def damage_block(db: Path, table: str, column: str | None = None) -> int:
    """Overwrite bytes inside a data block of ``table`` (its ``column``) in ``db``, as a bad disk
    sector would; returns the block's offset."""
    con = duckdb.connect(str(db), read_only=True)
    try:
        size = con.execute("SELECT block_size FROM pragma_database_size()").fetchone()[0]
        where = "block_id >= 0" + (" AND column_name = ?" if column else "")
        block = con.execute(f"SELECT max(block_id) FROM pragma_storage_info('{table}') WHERE {where}",
                            [column] if column else []).fetchone()[0]
    finally:
        con.close()
    assert block is not None, f"{table} has no block of its own"
    offset = HEADER_BYTES + block * size
    with open(db, "r+b") as f:
        # past the block's 8-byte checksum, inside the first segment (the unused tail of a block
        # that several small tables share is not read, and changes no row)
        f.seek(offset + 16)
        f.write(b"\xa5" * 32)
    return offset


def fsize_limit(limit: int):
    """preexec_fn: files of the child cannot grow beyond ``limit`` bytes (writes fail with
    EFBIG, as on a full disk, instead of SIGXFSZ killing it)."""
    def pre():
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
        resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))
    return pre


def without_dac_override():
    """preexec_fn: the child, even as root, obeys file permissions (CAP_DAC_OVERRIDE and
    CAP_DAC_READ_SEARCH dropped from its bounding set before exec)."""
    if os.geteuid() != 0:
        return None
    libc = ctypes.CDLL(None, use_errno=True)

    def pre():
        for cap in (CAP_DAC_OVERRIDE, CAP_DAC_READ_SEARCH):
            if libc.prctl(PR_CAPBSET_DROP, cap, 0, 0, 0) != 0:
                raise OSError(ctypes.get_errno(), "prctl(PR_CAPBSET_DROP)")
    return pre


def tracedb(*args, preexec_fn=None, cache: str = "off", timeout: float = 120) -> subprocess.CompletedProcess:
    """``python -m tracedb.cli ARGS`` in a child process."""
    env = dict(os.environ, TRACEDB_CACHE_DIR=cache)
    return subprocess.run([sys.executable, "-m", "tracedb.cli", *map(str, args)], env=env, preexec_fn=preexec_fn,
                          capture_output=True, text=True, timeout=timeout)


def error_lines(stderr: str) -> list[str]:
    return [line for line in stderr.splitlines() if line.startswith("tracedb: error:")]
