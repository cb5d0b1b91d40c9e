"""Docs cannot drift: generated README sections are current; .ci/run runs the README's commands."""
from __future__ import annotations

import re

from conftest import ROOT
from tracedb.docs import render_readme


def test_generated_readme_sections_are_current():
    text = (ROOT / "README.md").read_text()
    assert render_readme(text) == text, "README is stale: run `python -m tracedb.docs`"


def test_install_cache_is_current():
    """queries/_install.json spares every ingest the sqlglot parse; it must match the SQL files."""
    import json

    from tracedb.store.library import install_plan, library_hash, load_library
    data = json.loads((ROOT / "queries" / INSTALL_CACHE).read_text())
    assert data["hash"] == library_hash(), "stale: run `python -m tracedb.docs`"
    assert data["objects"] == install_plan(load_library()), "stale: run `python -m tracedb.docs`"


def test_ci_runs_exactly_the_readme_commands():
    readme = (ROOT / "README.md").read_text()
    blocks = re.findall(r"```sh\n(.*?)\n```", readme, re.S)
    setup, tests = blocks[0].strip(), blocks[1].strip()
    ci = (ROOT / ".ci" / "run").read_text()
    lines = ci.splitlines()
    assert any(line.startswith(setup) for line in lines) and tests in lines


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
    from tracedb.render import machine as output
    from tracedb.store import library as registry
    for module in (timeconv, output, registry):
        result = doctest.testmod(module, optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
        assert result.attempted > 0, f"{module.__name__}: no examples found"
        assert result.failed == 0, f"{module.__name__}: {result.failed} of {result.attempted} examples fail"
