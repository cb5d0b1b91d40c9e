"""[compat] The DuckDB 1.5.6 shell opens the database read-only and selects from every view.

Uses the `duckdb` executable of the pip package duckdb-cli==1.5.6 (test extra).
"""
from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import FIXTURES, ingest_paths
from tracedb.store.library import load_library

pytestmark = [pytest.mark.compat, pytest.mark.process]


def duckdb_cli() -> str:
    cand = Path(sys.executable).parent / "duckdb"
    exe = str(cand) if cand.exists() else shutil.which("duckdb")
    if not exe:
        pytest.skip("duckdb CLI not installed (pip install duckdb-cli==1.5.6)")
    return exe


def test_cli_1_5_opens_read_only_and_every_view_binds(tmp_path):
    exe = duckdb_cli()
    version = subprocess.run([exe, "--version"], capture_output=True, text=True).stdout
    db = tmp_path / "t.duckdb"
    ingest_paths(db, FIXTURES / "ascend/level1/rank0_ascend_pt", run="a", role="baseline")
    ingest_paths(db, FIXTURES / "kineto", run="g", role="comparison")
    stmts = []
    for o in load_library():
        if o.kind == "view":
            stmts.append(f"SELECT '{o.name}', count(*) FROM (SELECT * FROM {o.qualified});")
    stmts.append("SELECT 'kernel_diff_between', count(*) FROM kernel_diff_between('a', 'g');")
    stmts.append("SELECT 'comment', count(*) FROM duckdb_columns() WHERE comment IS NOT NULL;")
    res = subprocess.run([exe, "-readonly", "-csv", "-noheader", str(db)], input="\n".join(stmts),
                         capture_output=True, text=True, timeout=120)
    assert res.returncode == 0 and "Error" not in res.stderr, (version, res.stderr)
    counts = dict(line.split(",") for line in res.stdout.strip().splitlines())
    assert set(counts) == {o.name for o in load_library() if o.kind == "view"} | {"kernel_diff_between", "comment"}
    assert int(counts["step_breakdown"]) == 1 + 2 * 2    # one NPU step + two Kineto ranks x 2 steps
    assert int(counts["kernel_diff_between"]) > 0 and int(counts["comment"]) > 100
    assert "v1.5.6" in version
