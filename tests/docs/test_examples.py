"""Every example a user can copy runs: the shell blocks of the README and of the manual
(docs/**/*.md) and every command's --help examples, in a sandbox whose folders carry the example names (gpu_run, npu_run, job/ …).

Each block runs in order on a fresh copy of a database that already holds gpu_run (baseline,
the Kineto fixtures), npu_run (comparison, the level1 Ascend fixture) and old_run; every command
must exit 0 (``tracedb check`` may exit 1: it reports findings)."""
from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import typer

from conftest import FIXTURES, ROOT
from tracedb.cli import app

pytestmark = pytest.mark.process           # every example runs in a shell

SANDBOX = {   # example folder → fixture
    "gpu_run": "kineto",
    "gpu_traces": "kineto",
    "npu_run": "ascend/level1",
    "run_a": "ascend/level1",
    "run_b": "ascend/level1_2024_rank0_ascend_pt",
    "job/rank0_ascend_pt": "ascend/level1/rank0_ascend_pt",
    "job/rank1_ascend_pt": "ascend/level1/rank1_ascend_pt",
    "old": "ascend/level0_rank0_ascend_pt",
}
PREPARE = ["tracedb ingest ./gpu_run --role baseline", "tracedb ingest ./npu_run --role comparison",
           "tracedb ingest ./old --run old_run"]


DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]


def _name(page) -> str:
    return str(page.relative_to(ROOT))


def readme_blocks() -> list[tuple[str, list[str]]]:
    """The ```sh blocks of the README and the manual: the tracedb / duckdb / cd command lines of each."""
    out = []
    for page in DOCS:
        for i, block in enumerate(re.findall(r"```sh\n(.*?)```", page.read_text(), re.S)):
            cmds = [re.sub(r"\s+#.*$", "", line).strip() for line in block.splitlines()]
            cmds = [c for c in cmds if c.startswith(("tracedb ", "duckdb ", "cd "))]
            if cmds:
                out.append((f"{_name(page)} block {i}", cmds))
    return out


# what a README python block needs beyond the prepared database (the sh block before it)
PYTHON_SETUP = {"tracedb-pq": ["tracedb export --parquet tracedb-pq"]}


def readme_python_blocks() -> list[tuple[str, str]]:
    """The ```python blocks of the README and the manual, except Spark's (tests/test_spark.py runs
    those)."""
    return [(f"{_name(page)} python block {i}", block) for page in DOCS
            for i, block in enumerate(re.findall(r"```python\n(.*?)```", page.read_text(), re.S))
            if "spark" not in block]


def help_blocks() -> list[tuple[str, list[str]]]:
    """The Example(s) lines of every command's --help."""
    def walk(cmd, path):
        yield path, cmd
        for name, sub in getattr(cmd, "commands", {}).items():
            yield from walk(sub, path + [name])

    out = []
    for path, cmd in walk(typer.main.get_command(app), ["tracedb"]):
        m = re.search(r"Examples?:(.*)", cmd.help or "", re.S)
        if m:
            cmds = [line.strip() for line in m.group(1).splitlines() if line.strip().startswith("tracedb ")]
            out.append((" ".join(path) + " --help", cmds))
    return out


@pytest.fixture(scope="module")
def prepared(tmp_path_factory):
    """A sandbox folder with the example inputs, a `tracedb` and a `duckdb` on PATH, and a
    database holding gpu_run, npu_run and old_run."""
    root = tmp_path_factory.mktemp("examples")
    for name, fixture in SANDBOX.items():
        shutil.copytree(FIXTURES / fixture, root / "inputs" / name)
    bin_dir = root / "bin"
    bin_dir.mkdir()
    (bin_dir / "tracedb").write_text(f'#!/bin/sh\nexec "{sys.executable}" -m tracedb.cli "$@"\n')
    (bin_dir / "tracedb").chmod(0o755)
    duckdb_cli = Path(sys.executable).parent / "duckdb"
    if duckdb_cli.exists():
        (bin_dir / "duckdb").symlink_to(duckdb_cli)
    env = {**os.environ, "PATH": f"{bin_dir}{os.pathsep}{os.environ['PATH']}",
           "PYTHONPATH": str(ROOT), "TRACEDB_DB": str(root / "prepared.duckdb")}
    for cmd in PREPARE:
        res = subprocess.run(cmd, shell=True, cwd=root / "inputs", env=env, capture_output=True, text=True)
        assert res.returncode == 0, (cmd, res.stderr)
    return root, env, duckdb_cli.exists()


def _with_marks(blocks):
    """A block that runs the DuckDB shell (the test extra's 1.5.6) is a compat test too."""
    return [pytest.param(where, cmds, marks=[pytest.mark.compat] if any(c.startswith("duckdb ") for c in cmds) else [])
            for where, cmds in blocks]


@pytest.mark.parametrize("where,cmds", _with_marks(readme_blocks() + help_blocks()),
                         ids=lambda v: v if isinstance(v, str) else "")
def test_example_runs(prepared, tmp_path, where, cmds):
    root, env, have_duckdb = prepared
    if any("duckdb " in c and not c.startswith("tracedb ") for c in cmds) and not have_duckdb:
        pytest.skip("the DuckDB CLI (test extra duckdb-cli) is not installed")
    work = tmp_path / "work"
    shutil.copytree(root / "inputs", work)
    shutil.copy(root / "prepared.duckdb", work / "tracedb.duckdb")
    env = {**env, "TRACEDB_DB": str(work / "tracedb.duckdb")}
    assert cmds, where
    for cmd in cmds:
        res = subprocess.run(cmd, shell=True, cwd=work, env=env, capture_output=True, text=True, timeout=300)
        ok = (0, 1) if cmd.split()[:2] == ["tracedb", "check"] else (0,)
        assert res.returncode in ok, f"{where}: `{cmd}` exited {res.returncode}: {res.stderr[-1500:]}"
        assert "Traceback" not in res.stderr, f"{where}: `{cmd}`: {res.stderr[-1500:]}"


@pytest.mark.parametrize("where,code", readme_python_blocks(), ids=lambda v: v if " python block " in v else "")
def test_python_example_runs(prepared, tmp_path, where, code):
    root, env, _ = prepared
    work = tmp_path / "work"
    shutil.copytree(root / "inputs", work)
    shutil.copy(root / "prepared.duckdb", work / "tracedb.duckdb")
    env = {**env, "TRACEDB_DB": str(work / "tracedb.duckdb")}
    for key, cmds in PYTHON_SETUP.items():
        for cmd in cmds if key in code else []:
            res = subprocess.run(cmd, shell=True, cwd=work, env=env, capture_output=True, text=True)
            assert res.returncode == 0, (cmd, res.stderr)
    res = subprocess.run([sys.executable, "-c", code], cwd=work, env=env, capture_output=True, text=True, timeout=300)
    assert res.returncode == 0, f"{where}: {res.stderr[-1500:]}"
