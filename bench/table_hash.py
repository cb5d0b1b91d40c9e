#!/usr/bin/env python3
"""Hash every table of tracedb databases and compare them: same rows (as multisets, the
``ingested_at`` columns aside) give the same hash, whatever order the rows were written in.

    python bench/table_hash.py A.duckdb                 # one line per table: rows, hash
    python bench/table_hash.py A.duckdb B.duckdb        # the tables that differ (exit 1 if any)
    python bench/table_hash.py A.duckdb B.duckdb --rows 5   # and up to 5 rows only in one of them

Used to check that the set-based ingest writes the same tables as the per-rank one
(bench/cluster.py --check, tests/ingest/test_set_ingest.py). A benchmark tool, never a test.
"""
from __future__ import annotations

import argparse
import sys

import duckdb

VOLATILE = {"ingested_at"}     # the wall-clock time of the ingest


def _columns(con, table: str) -> list[str]:
    return [c for (c,) in con.execute(
        "SELECT column_name FROM duckdb_columns() WHERE database_name = current_database() "
        "AND schema_name = 'main' AND table_name = ? ORDER BY column_index", [table]).fetchall()
        if c not in VOLATILE]


def tables(con) -> list[str]:
    return [t for (t,) in con.execute(
        "SELECT table_name FROM duckdb_tables() WHERE database_name = current_database() "
        "AND schema_name = 'main' ORDER BY table_name").fetchall()]


def row_struct(con, table: str) -> str:
    return "struct_pack(" + ", ".join(f'"{c}" := "{c}"' for c in _columns(con, table)) + ")"


def table_hashes(path: str) -> dict[str, tuple[int, int]]:
    """{table: (rows, order-free hash of the rows)} of the database at ``path``."""
    con = duckdb.connect(path, read_only=True)
    try:
        return {t: con.execute(f'SELECT count(*), coalesce(sum(hash({row_struct(con, t)}))::HUGEINT, 0) '
                               f'FROM main."{t}"').fetchone() for t in tables(con)}
    finally:
        con.close()


def differing(a: str, b: str) -> list[str]:
    """The tables whose rows differ between databases ``a`` and ``b`` (or that one lacks)."""
    ha, hb = table_hashes(a), table_hashes(b)
    return sorted(t for t in set(ha) | set(hb) if ha.get(t) != hb.get(t))


def show_rows(a: str, b: str, table: str, limit: int) -> None:
    con = duckdb.connect(":memory:")
    con.execute(f"ATTACH '{a}' AS a (READ_ONLY)")
    con.execute(f"ATTACH '{b}' AS b (READ_ONLY)")
    cols = ", ".join(f'"{c}"' for c in _columns(con.cursor().execute("USE a"), table))
    for x, y in (("a", "b"), ("b", "a")):
        rows = con.execute(f'SELECT {cols} FROM {x}.main."{table}" EXCEPT ALL SELECT {cols} FROM {y}.main."{table}" '
                           f"LIMIT {int(limit)}").fetchall()
        for r in rows:
            print(f"  only in {x}: {r}")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("db", nargs="+")
    ap.add_argument("--rows", type=int, default=0, help="show up to this many differing rows per table")
    a = ap.parse_args()
    if len(a.db) == 1:
        for t, (n, h) in table_hashes(a.db[0]).items():
            print(f"{t}\t{n}\t{h}")
        return 0
    diff = differing(a.db[0], a.db[1])
    for t in diff:
        print(f"differs: {t}")
        if a.rows:
            show_rows(a.db[0], a.db[1], t, a.rows)
    print("identical" if not diff else f"{len(diff)} table(s) differ")
    return 1 if diff else 0


if __name__ == "__main__":
    sys.exit(main())
