"""Generated README sections: the view index (from queries/**) and the CLI reference (from --help).

``python -m tracedb.docs`` rewrites the sections between ``<!-- BEGIN x -->`` and
``<!-- END x -->`` in README.md; tests/test_docs.py fails when they are stale.
"""
from __future__ import annotations

import re
import sys
from pathlib import Path

from typer.testing import CliRunner

from .cli import app
from .store.library import load_library


def view_index() -> str:
    lines = ["| view | kind | topic | what it answers |", "|---|---|---|---|"]
    for o in sorted(load_library(), key=lambda o: (o.topic, o.name)):
        if o.schema != "main":
            continue
        kind = "view" if o.kind == "view" else f"table macro ({', '.join(o.parameters)})"
        lines.append(f"| `{o.name}` | {kind} | {o.topic} | {o.summary} |")
    return "\n".join(lines)


def cli_reference() -> str:
    runner = CliRunner()
    out = []
    for args in ([], ["ingest"], ["query"], ["views"], ["describe"], ["runs"]) + tuple(
            [c] for c in _extra_commands()):
        res = runner.invoke(app, args + ["--help"], prog_name="tracedb", env={"COLUMNS": "100", "NO_COLOR": "1"},
                            terminal_width=100)
        title = "tracedb " + " ".join(args) if args else "tracedb"
        out.append(f"### `{title.strip()}`\n\n```text\n{res.output.rstrip()}\n```")
    return "\n\n".join(out)


def _extra_commands() -> list[str]:
    known = {"ingest", "query", "views", "describe", "runs"}
    names = []
    for c in app.registered_commands:
        name = c.name or (c.callback.__name__.replace("_", "-") if c.callback else None)
        if name and name not in known:
            names.append(name)
    return names


SECTIONS = {"views": view_index, "cli": cli_reference}


def render_readme(text: str) -> str:
    for key, fn in SECTIONS.items():
        pat = re.compile(rf"(<!-- BEGIN {key} -->\n)(?:.*?\n)?(<!-- END {key} -->)", re.S)
        text = pat.sub(lambda m: m.group(1) + fn() + "\n" + m.group(2), text)
    return text


def main(path: str = "README.md") -> int:
    p = Path(path)
    old = p.read_text()
    new = render_readme(old)
    if new != old:
        p.write_text(new)
        print(f"updated {path}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main(*sys.argv[1:]))
