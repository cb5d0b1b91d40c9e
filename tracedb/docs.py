"""The generated pages of the manual (the MkDocs site in ``docs/``): the CLI reference from each
command's ``--help``, the view index and the view reference from the SQL library (each view's
header, parameters and columns with their types and comments, read from a database the library
was installed into), and pages included from other files (``bench/RESULTS.md``).

``docs/hooks.py`` puts them into the pages at build time (a page holds a marker such as
``<!-- tracedb: cli -->``), so a generated section cannot go stale. ``python -m tracedb.docs
DIR`` writes the pages with the markers filled, for reading without MkDocs.
"""
from __future__ import annotations

import re
import sys
from functools import lru_cache
from pathlib import Path

from typer.testing import CliRunner

from .cli import app
from .engine import duckdb
from .store.library import SqlObject, install, load_library
from .store.schema import apply_schema

# a marker is a line of its own (one quoted in a sentence or a code span is left as it is)
MARKER = re.compile(r"^<!-- tracedb: ([a-z-]+)(?: ([^ ]+))? -->$", re.M)


@lru_cache(maxsize=1)
def _public() -> list[SqlObject]:
    return sorted((o for o in load_library() if o.schema == "main"), key=lambda o: (o.topic, o.name))


@lru_cache(maxsize=1)
def view_index() -> str:
    """A table of the public views and table macros: name (linked to its reference), kind,
    topic and what it answers."""
    lines = ["| view | kind | topic | what it answers |", "|---|---|---|---|"]
    for o in _public():
        kind = "view" if o.kind == "view" else f"table macro ({', '.join(o.parameters)})"
        lines.append(f"| [`{o.name}`](reference.md#{o.name}) | {kind} | {o.topic} | {o.summary} |")
    return "\n".join(lines)


@lru_cache(maxsize=1)
def _column_types() -> dict[str, list[tuple[str, str, str]]]:
    """(column, type, comment) of every public view, from an in-memory database with the schema
    and the library installed (the comments as COMMENT ON wrote them)."""
    con = duckdb.connect()
    try:
        apply_schema(con)
        install(con)
        out: dict[str, list[tuple[str, str, str]]] = {}
        for view, col, typ, comment in con.execute(
                "SELECT table_name, column_name, data_type, coalesce(comment, '') FROM duckdb_columns() "
                "WHERE schema_name = 'main' ORDER BY table_name, column_index").fetchall():
            out.setdefault(view, []).append((col, typ, comment))
        return out
    finally:
        con.close()


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


@lru_cache(maxsize=1)
def view_reference() -> str:
    """Every public view and table macro: its header sections (Grain, Source, Reference, Units,
    …), its parameters, and its columns with type and comment (unit and source)."""
    types = _column_types()
    out = []
    for topic in sorted({o.topic for o in _public()}):
        out.append(f"## {topic}")
        for o in (o for o in _public() if o.topic == topic):
            out.append(f"### {o.name}\n\n{o.summary}\n")
            out += [f"- **{key}:** {_cell(value)}" for key, value in o.sections.items()]
            if o.parameters:
                out.append(f"- **Call:** `SELECT * FROM {o.name}({', '.join(o.parameters)})`")
            cols = types.get(o.name) or [(c, "", o.column_comments.get(c, "")) for c in o.columns]
            out.append("\n| column | type | description |\n|---|---|---|")
            out += [f"| `{c}` | {t} | {_cell(d)} |" for c, t, d in cols]
            out.append(f"\nSource file: `queries/{o.topic}/{o.name}.sql`\n")
    return "\n".join(out)


def _commands() -> list[list[str]]:
    """Every command line whose --help the reference shows: the app, each command, each group's
    subcommands."""
    out = [[]]
    for c in app.registered_commands:
        out.append([c.name or c.callback.__name__.replace("_", "-")])
    for g in app.registered_groups:
        out.append([g.name])
        out += [[g.name, c.name or c.callback.__name__.replace("_", "-")] for c in g.typer_instance.registered_commands]
    return out


@lru_cache(maxsize=1)
def cli_reference() -> str:
    """Each command's --help, as the terminal shows it at 100 columns."""
    runner = CliRunner()
    out = []
    for args in _commands():
        res = runner.invoke(app, args + ["--help"], prog_name="tracedb", env={"COLUMNS": "100", "NO_COLOR": "1"},
                            terminal_width=100)
        title = " ".join(["tracedb", *args])
        out.append(f"## `{title}`\n\n```text\n{res.output.rstrip()}\n```")
    return "\n\n".join(out)


def include(root: Path, path: str) -> str:
    """A file of the checkout ``root``, its first heading dropped (the page has its own)."""
    text = (root / path).read_text()
    return re.sub(r"\A# .*\n", "", text)


GENERATORS = {"cli": cli_reference, "view-index": view_index, "view-reference": view_reference}


def fill(markdown: str, root: Path = Path(".")) -> str:
    """The page with every ``<!-- tracedb: NAME [ARG] -->`` marker replaced by its text (``root``:
    the checkout whose files ``include`` reads)."""
    def one(m: re.Match) -> str:
        name, arg = m.group(1), m.group(2)
        if name == "include":
            return include(root, arg)
        return GENERATORS[name]()
    return MARKER.sub(one, markdown)


def main(out: str = "site-md") -> int:
    """Write the pages of ``docs/`` (run from the checkout) with their markers filled into
    ``out`` (default ``site-md/``)."""
    root = Path("docs")
    for page in sorted(root.rglob("*.md")):
        target = Path(out) / page.relative_to(root)
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(fill(page.read_text(), Path(".")))
    print(f"wrote {out}/", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main(*sys.argv[1:]))
