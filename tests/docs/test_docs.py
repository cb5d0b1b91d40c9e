"""Docs cannot drift: the manual's generated pages come from the code and the SQL, the site builds
with ``mkdocs build --strict``, the README stays a page, and .ci/run runs the README's commands."""
from __future__ import annotations

import os
import re
import subprocess
import sys

import pytest

from conftest import ROOT
from tracedb import docs
from tracedb.docs import MARKER, fill
from tracedb.store.library import load_library


@pytest.fixture(scope="module")
def generated() -> dict[str, str]:
    """Each generated page part (docs.GENERATORS: the CLI reference, the view index and reference),
    made once for the module's tests: the view reference takes seconds and several pages hold it."""
    return {name: make() for name, make in docs.GENERATORS.items()}


def test_readme_is_a_page():
    assert len((ROOT / "README.md").read_text().splitlines()) <= 200


def test_every_marker_of_the_manual_is_known(generated, monkeypatch):
    for name, text in generated.items():
        monkeypatch.setitem(docs.GENERATORS, name, lambda text=text: text)
    for page in (ROOT / "docs").rglob("*.md"):
        text = page.read_text()
        assert not MARKER.search(fill(text, ROOT)), page


def test_view_reference_lists_every_view_with_its_columns_and_units(generated):
    public = [o for o in load_library() if o.schema == "main"]
    index, reference = generated["view-index"], generated["view-reference"]
    for o in public:
        assert f"[`{o.name}`](reference.md#{o.name})" in index
        section = reference.split(f"### {o.name}\n", 1)[1].split("\n### ", 1)[0]
        for col in o.columns:
            assert f"| `{col}` |" in section, (o.name, col)
    # units come with the column comments: a duration column says it is in ns
    step = reference.split("### step_breakdown\n", 1)[1].split("\n### ", 1)[0]
    assert re.search(r"\| `e2e_ns` \| BIGINT \| .*ns", step)


def test_cli_reference_has_every_command(generated):
    text = generated["cli"]
    for cmd in ("ingest", "query", "views", "describe", "runs", "runs rm", "summary", "report", "export",
                "check", "reclassify", "compare"):
        assert f"## `tracedb {cmd}`" in text, cmd


@pytest.mark.process
def test_the_manual_builds_strict(tmp_path):
    mkdocs = [sys.executable, "-m", "mkdocs"]
    if subprocess.run(mkdocs + ["--version"], capture_output=True).returncode:
        if os.environ.get("CI"):
            pytest.fail("mkdocs is not installed: pip install '.[docs]'")
        pytest.skip("mkdocs is not installed (pip install '.[docs]')")
    out = subprocess.run(mkdocs + ["build", "--strict", "-d", str(tmp_path / "site")], cwd=ROOT,
                         capture_output=True, text=True, env={**os.environ, "NO_MKDOCS_2_WARNING": "1"})
    assert out.returncode == 0, out.stderr[-3000:]
    assert (tmp_path / "site" / "views" / "reference" / "index.html").exists()


def test_ci_runs_exactly_the_readme_commands():
    readme = (ROOT / "README.md").read_text()
    blocks = re.findall(r"```sh\n(.*?)\n```", readme, re.S)
    setup, tests = blocks[0].strip(), blocks[1].strip()
    ci = (ROOT / ".ci" / "run").read_text()
    lines = ci.splitlines()
    assert any(line.startswith(setup) for line in lines) and any(line.startswith(tests) for line in lines)


def test_every_python_package_is_installed():
    """pyproject lists packages explicitly (schema/ and queries/ are mapped in): none may be missing."""
    import tomllib
    listed = set(tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]["packages"])
    found = {str(p.parent.relative_to(ROOT)).replace("/", ".") for p in (ROOT / "tracedb").rglob("__init__.py")}
    assert found <= listed, f"add to pyproject [tool.setuptools] packages: {sorted(found - listed)}"


def test_docstring_examples_run():
    """The examples in docstrings are tests too (as sqlglot runs its own)."""
    import doctest

    from tracedb import timeconv
    from tracedb.render import machine, table
    from tracedb.store import header
    for module in (timeconv, machine, table, header):
        result = doctest.testmod(module, optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
        assert result.attempted > 0 or module is table, f"{module.__name__}: no examples found"
        assert result.failed == 0, f"{module.__name__}: {result.failed} of {result.attempted} examples fail"
