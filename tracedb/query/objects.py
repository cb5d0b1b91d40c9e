"""What a database holds: the view library's objects (``tracedb_object``), its tables, and the
runs; the ``tracedb views`` / ``describe`` / ``runs`` listings."""
from __future__ import annotations

import difflib
import re
import textwrap
from typing import NamedTuple

from ..engine import duckdb
from ..errors import QueryError, TracedbError
from ..store.header import parse_header
from .result import Result


class LibraryObject(NamedTuple):
    """A row of ``tracedb_object``: a public view or table macro of the library."""

    name: str
    kind: str                  # view | table_macro
    topic: str
    grain: str | None
    description: str | None    # the header
    parameters: str | None     # "baseline_run, comparison_run"
    source_file: str           # queries/<topic>/<file>.sql that defines it


ROLE_PARAMETERS = "baseline_run, comparison_run"


def objects(con) -> dict[str, LibraryObject]:
    """The library's public objects by name.

    Raises:
        TracedbError: the database has no view library.
    """
    try:
        rows = con.execute("SELECT name, kind, topic, grain, description, parameters, source_file "
                           "FROM tracedb_object WHERE schema_name = 'main' ORDER BY topic, name").fetchall()
    except duckdb.CatalogException as e:
        raise TracedbError("this database has no tracedb view library.",
                           hint="run 'tracedb ingest PATH' to create one.") from e
    return {r[0]: LibraryObject(*r) for r in rows}


def role_pair(objs: dict[str, LibraryObject], name: str) -> tuple[str | None, str] | None:
    """(browse view, table macro) when ``name`` is either of a pair whose macro takes a baseline
    and a comparison run (op_diff and op_diff_between …): the view the library makes from the
    macro's ``Browse:`` line comes from the macro's file. None for any other name."""
    src = objs[name].source_file
    macro = next((o.name for o in objs.values() if o.source_file == src and o.kind == "table_macro"
                  and o.parameters == ROLE_PARAMETERS), None)
    if macro is None:
        return None
    view = next((o.name for o in objs.values() if o.source_file == src and o.kind == "view"), None)
    return view, macro


def table_names(con) -> list[str]:
    """The base tables of schema main, by name."""
    return [r[0] for r in con.execute("SELECT table_name FROM duckdb_tables() WHERE database_name = current_database() "
                                      "AND schema_name = 'main' ORDER BY table_name").fetchall()]


def unknown(kind: str, name: str, known: list[str], hint: str) -> QueryError:
    """``unknown view 'step_breakdwon'. Hint: did you mean step_breakdown? …`` (ux-review F9)."""
    close = difflib.get_close_matches(name, known, n=3, cutoff=0.6) or difflib.get_close_matches(
        name.lower(), [k.lower() for k in known], n=3, cutoff=0.6)
    mean = f"did you mean {' or '.join(close)}? " if close else ""
    return QueryError(f"unknown {kind} {name!r}.", hint=mean + hint)


def summary_of(header: str | None) -> str:
    """The one-sentence summary of a view header: the text after the em dash, up to "Grain:"."""
    return parse_header(header).summary


def view_list(con) -> Result:
    """The public views and table macros with their one-line description (``tracedb views``)."""
    rows = []
    for o in objects(con).values():
        rows.append((o.name, o.kind if not o.parameters else f"{o.kind}({o.parameters})", o.topic,
                     summary_of(o.description)))
    return Result(["name", "kind", "topic", "description"], rows)


_CLAUSE_END = re.compile(r"[:;]\s|\s\(|\s—\s|\.\s|\.$")


def short_listing(res: Result) -> Result:
    """``tracedb views`` as a table: one short line per object — name, view or macro, topic, and
    the summary's first clause (up to the first colon, semicolon, parenthesis or full stop)."""
    rows = []
    for name, kind, topic, text in res.rows:
        clause = _CLAUSE_END.split(text or "", maxsplit=1)[0].strip().rstrip(",")
        rows.append((name, "macro" if kind.startswith("table_macro") else kind, topic, clause))
    return Result(["name", "kind", "topic", "answers"], rows)


# developer references that mean nothing to a reader of the installed tool
_DEV_REFERENCE = re.compile(r"\s*\((?:see )?analyses\.md[^()]*(?:\([^()]*\)[^()]*)*\)|,?\s*analyses\.md\s*§[\d.–-]+")
_TOOLS = ("msprof-analyze", "torch_npu", "CANN", "HTA", "MindInsight", "MindSpore", "Nsight", "Kineto",
          "msprof", "communication.json", "communication_matrix.json", "kernel_details.csv")
_USER_SECTIONS = (("Grain", "Rows"), ("Units", "Units"))
_DERIVATION = ("Grain", "Source", "Reference", "Method", "Parameters", "Browse")


def reference_name(reference: str | None) -> str | None:
    """What the reference tool calls the analysis: the Reference section's first clause when it
    names a tool (``torch_npu step_trace_time.csv``, ``msprof-analyze compare OperatorCompare``)."""
    clause = re.split(r"[(:;,]|\s—\s|\.\s", _DEV_REFERENCE.sub("", reference or ""), maxsplit=1)[0].strip(" ,")
    return clause if clause and len(clause) <= 100 and any(t in clause for t in _TOOLS) else None


def describe_text(name: str, header: str, width: int | None = None) -> str:
    """``tracedb describe``'s text for people: the summary, then what a row is, the units, the
    reference tool's name for the analysis and a command to try; the derivation (grain, source,
    reference, method) after the columns (see :func:`derivation_text`)."""
    width = max(width or 100, 40)
    head = parse_header(header.splitlines())
    first = header.splitlines()[0] if header else name
    lines = textwrap.wrap(_DEV_REFERENCE.sub("", first), width) or [name]
    fields = [(label, head.sections[key]) for key, label in _USER_SECTIONS if key in head.sections]
    ref = reference_name(head.sections.get("Reference"))
    if ref:
        fields.append(("Reference", ref))
    if "Parameters" in head.sections:
        fields.append(("Parameters", head.sections["Parameters"]))
    else:
        fields.append(("Try", f"tracedb query {name} --limit 10"))
    lines.append("")
    for label, text in fields:
        lines += textwrap.wrap(_DEV_REFERENCE.sub("", text), width, initial_indent=f"{label + ':':<12}",
                               subsequent_indent=" " * 12)
    return "\n".join(lines) + "\n"


def derivation_text(header: str, width: int | None = None) -> str:
    """How the view is computed: its header's Grain, Source, Reference and Method sections."""
    width = max(width or 100, 40)
    head = parse_header(header.splitlines())
    lines = ["How it is computed:"]
    for key in _DERIVATION:
        if key in head.sections:
            lines += textwrap.wrap(_DEV_REFERENCE.sub("", head.sections[key]), width, initial_indent=f"{key + ':':<12}",
                                   subsequent_indent=" " * 12)
    return "\n".join(lines) + "\n" if len(lines) > 1 else ""


def describe_object(con, name: str) -> tuple[str, Result]:
    """A view's or table's header documentation and its columns (``tracedb describe``).

    Raises:
        QueryError: unknown name.
    """
    objs = objects(con)
    if name in objs:
        header = objs[name].description or ""
    else:
        row = con.execute("SELECT comment FROM duckdb_tables() WHERE table_name = ? AND schema_name = 'main'",
                          [name]).fetchone()
        if row is None:
            raise unknown("view or table", name, list(objs) + table_names(con), "'tracedb views' lists the views.")
        header = row[0] or ""
    if name in objs and objs[name].kind == "table_macro":
        # a macro's columns are those of the view the library makes from it (op_diff for op_diff_between)
        view = next((o.name for o in objs.values() if o.source_file == objs[name].source_file and o.kind == "view"),
                    None)
        if view is None:
            return header, Result(["column", "type", "description"], [])
        name = view
    cols = con.execute("""
        SELECT column_name, data_type, comment FROM duckdb_columns()
        WHERE table_name = ? AND schema_name = 'main' ORDER BY column_index
    """, [name]).fetchall()
    return header, Result(["column", "type", "description"], cols)


RUNS_SQL = """
        SELECT r.run_name, r.role, r.platform,
               (SELECT count(*) FROM rank k WHERE k.run_id = r.run_id)::BIGINT AS ranks,
               (SELECT count(*) FROM step s WHERE s.run_id = r.run_id)::BIGINT AS steps,
               (SELECT count(*) FROM source_file f WHERE f.run_id = r.run_id)::BIGINT AS files,
               (SELECT count(*) FROM kernel k WHERE k.run_id = r.run_id)::BIGINT AS kernels,
               (SELECT count(*) FROM event e WHERE e.run_id = r.run_id)::BIGINT AS events,
               r.source_path
        FROM run r ORDER BY r.run_id
"""
