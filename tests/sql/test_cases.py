"""View specifications as data: every case of ``tests/sql/cases/<view>.sql`` in a fresh database.

A case starts at a ``-- title:`` line. ``.read _setup.sql`` runs the shared setup; every other
statement is executed, and a statement that starts with SELECT, WITH or FROM is a check: its
result must equal the ``-- > …`` lines after it (each one evaluated as a SQL row, so it may keep
its hand arithmetic), in order; no such line means no rows.
"""
from __future__ import annotations

import math
import re
import shutil
from pathlib import Path

import duckdb
import pytest

from tracedb.store.library import install
from tracedb.store.schema import apply_schema

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


@pytest.fixture(scope="module")
def installed(tmp_path_factory) -> Path:
    """A database file with the schema and the view library (as the shell's scratch.duckdb gets
    them), made once: applying them takes about a second of CPU; each case runs on a copy."""
    db = tmp_path_factory.mktemp("cases") / "installed.duckdb"
    con = duckdb.connect(str(db))
    try:
        apply_schema(con)
        install(con)
    finally:
        con.close()
    return db


@pytest.mark.parametrize("path, title", CASE_IDS, ids=[f"{p.stem}: {t}" for p, t in CASE_IDS])
def test_case(path, title, installed, tmp_path):
    steps = dict(parse(path))[title]
    db = tmp_path / "case.duckdb"
    shutil.copyfile(installed, db)
    con = duckdb.connect(str(db))
    try:
        for sql, expected in steps:
            if sql.startswith(".read "):
                con.execute((path.parent / sql.split()[1]).read_text())
                continue
            rows = con.execute(sql).fetchall()
            if re.match(r"\s*(SELECT|WITH|FROM)\b", sql, re.I):
                want = [con.execute(f"SELECT {row}").fetchone() for row in expected]
                assert len(rows) == len(want) and all(map(same, rows, want)), \
                    f"{path.name} / {title}\n{sql}\ngot:  {rows}\nwant: {want}"
    finally:
        con.close()


REQUIRED_FILES = {"step_breakdown", "free_time", "uncovered_communication", "comm_op", "comm_task"}
PINNED = {"step_kernel", "compute_island", "busy_island", "comm_booked", "comm_only_step", "comm_task"}


def test_cases_cover_the_views_and_each_case_checks_something():
    files = {p.stem: parse(p) for p in CASES.glob("[!_]*.sql")}
    assert REQUIRED_FILES <= set(files)
    for name, cases in files.items():
        titles = [t for t, _ in cases]
        assert len(titles) == len(set(titles)), f"{name}: two cases with one title"
        for title, steps in cases:
            assert steps[0][0] == ".read _setup.sql", f"{name} / {title}: start with .read _setup.sql"
            assert any(re.match(r"\s*(SELECT|WITH|FROM)\b", s, re.I) for s, _ in steps), f"{name} / {title}"
    pinned = {m for p in CASES.glob("[!_]*.sql") for m in re.findall(r"FROM tracedb_internal\.(\w+)", p.read_text())}
    assert PINNED <= pinned, f"no pin on {PINNED - pinned}"


@pytest.mark.compat
@pytest.mark.process
def test_case_files_run_unchanged_in_the_duckdb_shell(tmp_path):
    """The DuckDB 1.5.6 shell runs each file (from the cases folder) and prints one line per expected row."""
    import shutil
    import subprocess
    import sys

    from tracedb.store.db import connect
    exe = Path(sys.executable).parent / "duckdb"
    exe = str(exe) if exe.exists() else shutil.which("duckdb")
    if not exe:
        pytest.skip("duckdb CLI not installed (pip install duckdb-cli==1.5.6)")
    db = tmp_path / "scratch.duckdb"
    con = connect(db)
    apply_schema(con)
    install(con)
    con.close()
    for path in sorted(CASES.glob("[!_]*.sql")):
        res = subprocess.run([exe, "-csv", "-noheader", str(db)], input=f".bail on\n.read {path.name}\n",
                             cwd=CASES, capture_output=True, text=True, timeout=120)
        assert res.returncode == 0 and not res.stderr, (path.name, res.stderr)
        expected = sum(len(rows) for _, steps in parse(path) for _, rows in steps)
        assert len(res.stdout.splitlines()) == expected, (path.name, res.stdout)
