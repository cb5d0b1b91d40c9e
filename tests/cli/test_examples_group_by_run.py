"""Examples that add numbers up keep runs apart (issue 43): after the tour's ``tracedb compare`` a
file holds two runs, and ``SELECT rank, sum(dur_ns) FROM free_time GROUP BY rank`` adds the
baseline's rank 0 to the comparison's. Every SQL example of the README, the manual and the
commands' --help that sums with GROUP BY groups by run_name (or run_id) too; tests/test_examples.py
runs them."""
from __future__ import annotations

import re

import typer

from conftest import ROOT
from tracedb.cli import app

SUM_GROUP = re.compile(r"\bsum\s*\(.*?\bGROUP BY\b(?P<keys>[^\"');]*)", re.I | re.S)


def _examples() -> list[tuple[str, str]]:
    out = []
    for page in [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]:
        for block in re.findall(r"```(?:sh|python)\n(.*?)```", page.read_text(), re.S):
            out += [(str(page.relative_to(ROOT)), line) for line in block.splitlines()]

    def walk(cmd, path):
        yield path, cmd
        for name, sub in getattr(cmd, "commands", {}).items():
            yield from walk(sub, path + [name])

    for path, cmd in walk(typer.main.get_command(app), ["tracedb"]):
        out += [(" ".join(path) + " --help", line) for line in (cmd.help or "").splitlines()]
    return out


def test_every_summing_example_groups_by_run():
    summing = [(where, line) for where, line in _examples() if SUM_GROUP.search(line)]
    assert len(summing) >= 3          # the tour, the Python page, tracedb query --help
    for where, line in summing:
        keys = SUM_GROUP.search(line).group("keys")
        assert re.search(r"\brun_(name|id)\b", keys), f"{where}: {line.strip()}"
