"""Docs cannot drift: generated README sections are current; .ci/run runs the README's commands."""
from __future__ import annotations

import re

from conftest import ROOT
from tracedb.docs import render_readme


def test_generated_readme_sections_are_current():
    text = (ROOT / "README.md").read_text()
    assert render_readme(text) == text, "README is stale: run `python -m tracedb.docs`"


def test_ci_runs_exactly_the_readme_commands():
    readme = (ROOT / "README.md").read_text()
    blocks = re.findall(r"```sh\n(.*?)\n```", readme, re.S)
    setup, tests = blocks[0].strip(), blocks[1].strip()
    ci = (ROOT / ".ci" / "run").read_text()
    assert setup in ci.splitlines() and tests in ci.splitlines()
