"""DuckDB's engine, and the three ways tracedb hands it statements and rows.

``duckdb`` here is DuckDB's engine module ``_duckdb``, without the duckdb package's Python layer
(relation and expression builders, Arrow sources, a package-metadata lookup of its own version):
importing the package costs every command ~0.1-0.2 s more, half of the cold-start budget
(bench/RESULTS.md). connect, execute, fetch and the exception classes are the engine's own, the
same objects ``import duckdb`` re-exports. This is the one module that knows of ``_duckdb``;
every other module imports ``duckdb`` from here (tests/cli/test_pins.py pins the DuckDB versions
it was written against). :func:`tracedb.connect` and :class:`tracedb.Database` (a user's
connection, with the relation API) import the package itself.
"""
from __future__ import annotations

from typing import Sequence

from . import lazy

try:
    import _duckdb as duckdb
    if not all(hasattr(duckdb, n) for n in ("connect", "Error", "IOException", "StatementType")):
        raise ImportError("not the DuckDB engine module")
except ImportError:            # DuckDB before the engine moved to the top-level module _duckdb
    import duckdb

__all__ = ["duckdb", "execute", "insert_rows", "register_arrow", "use_package"]

_PARSED: dict[str, tuple] = {}
_PARSED_MAX = 256          # texts kept; the readers and derive steps of one ingest use ~40


def execute(con, sql: str, params=None):
    """Run ``sql`` (one or more statements; ``params`` go to the last) on ``con`` and return
    the connection, as ``con.execute`` does, but parse the text only once per process.

    The derive steps, the session macros and the readers' generated SQL are the same text for
    every rank (the file, run and rank go in as parameters or variables), and DuckDB parses
    about 0.4 ms per KB: a fifth of a small rank's derive step, and again for every rank of a
    cluster. The parsed statements are kept by text (at most :data:`_PARSED_MAX`, then the
    cache starts over) and copied by DuckDB at every execution.

    Raises:
        duckdb.Error: as ``con.execute`` (a parse error at the first use of the text).
    """
    statements = _PARSED.get(sql)
    if statements is None:
        statements = tuple(con.extract_statements(sql))
        if len(_PARSED) >= _PARSED_MAX:
            _PARSED.clear()
        _PARSED[sql] = statements
    if not statements:
        return con
    for statement in statements[:-1]:
        con.execute(statement)
    return con.execute(statements[-1]) if params is None else con.execute(statements[-1], params)


def use_package() -> None:
    """Import the ``duckdb`` package: a connection then has the relation API (``con.sql``,
    ``.df()``), and the engine scans Python Arrow objects (DuckDB 2.0 installs the scan sources
    with the package)."""
    lazy.duckdb_package     # noqa: B018 - the attribute access imports it


def register_arrow(con, name: str, data) -> None:
    """``con.register(name, data)`` for a pyarrow table or RecordBatchReader, which DuckDB then
    scans as a view of that name.

    With DuckDB 2.0 the engine module scans Python Arrow objects only after the ``duckdb``
    package has been imported (it installs the scan sources), so the readers that stage SQLite
    rows through Arrow (torch_npu's profiler DB, Nsight Systems exports) import the package
    here, once, when they first need it (without it every such ingest failed with "the duckdb
    package did not set up duckdb._sources").
    """
    use_package()
    con.register(name, data)


def insert_rows(con, table: str, rows: Sequence[Sequence]) -> None:
    """Append ``rows`` (Python values in ``table``'s column order) in one statement: each column
    goes in as one list parameter, unnested.

    ``executemany`` runs one INSERT per row, 0.35-0.7 ms each (55 ms for the 80 links of a
    communication_matrix.json); this takes ~2 ms for 80 rows and ~0.01 ms a row beyond. DuckDB
    gives each list one type, so a column's values share one Python type (None aside)."""
    if not rows:
        return
    cols = [list(c) for c in zip(*rows)]
    con.execute(f"INSERT INTO {table} SELECT {', '.join(f'unnest(${i + 1})' for i in range(len(cols)))}", cols)
