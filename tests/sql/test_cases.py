"""View specifications as data: every case of ``tests/sql/cases/<view>.sql`` in a fresh database.

A case starts at a ``-- title:`` line. ``.read _setup.sql`` runs the shared setup; every other
statement is executed, and a statement that starts with SELECT, WITH or FROM is a check: its
result must equal the ``-- > …`` lines after it (each one evaluated as a SQL row, so it may keep
its hand arithmetic), in order; no such line means no rows.
"""
from __future__ import annotations

import math
import re
from pathlib import Path

import duckdb
import pytest

from tracedb.registry import install
from tracedb.schema import apply_schema

CASES = Path(__file__).parent / "cases"


def parse(path: Path) -> list[tuple[str, list[tuple[str, list[str]]]]]:
    """[(title, [(statement, expected row texts)])] of one case file."""
    cases = []
    for chunk in re.split(r"^(?=-- title:)", path.read_text(), flags=re.M)[1:]:
        steps, buf = [], []
        for line in chunk.splitlines():
            if line.startswith("-- > ") and not buf:
                steps[-1][1].append(line[5:])
            elif line.startswith(".read ") and not buf:
                steps.append((line, []))
            elif buf or (line.strip() and not line.lstrip().startswith("--")):
                buf.append(line)
                if line.split(" --")[0].rstrip().endswith(";"):
                    steps.append(("\n".join(buf), []))
                    buf = []
        cases.append((chunk.splitlines()[0][len("-- title:"):].strip(), steps))
    return cases


def same(got, want) -> bool:
    return len(got) == len(want) and all(
        g == w or (isinstance(g, float) and isinstance(w, float) and math.isclose(g, w, rel_tol=1e-12))
        for g, w in zip(got, want))


CASE_IDS = [(p, title) for p in sorted(CASES.glob("[!_]*.sql")) for title, _ in parse(p)]


@pytest.mark.parametrize("path, title", CASE_IDS, ids=[f"{p.stem}: {t}" for p, t in CASE_IDS])
def test_case(path, title):
    steps = dict(parse(path))[title]
    con = duckdb.connect()
    apply_schema(con)
    install(con)
    for sql, expected in steps:
        if sql.startswith(".read "):
            con.execute((path.parent / sql.split()[1]).read_text())
            continue
        rows = con.execute(sql).fetchall()
        if re.match(r"\s*(SELECT|WITH|FROM)\b", sql, re.I):
            want = [con.execute(f"SELECT {row}").fetchone() for row in expected]
            assert len(rows) == len(want) and all(map(same, rows, want)), \
                f"{path.name} / {title}\n{sql}\ngot:  {rows}\nwant: {want}"
