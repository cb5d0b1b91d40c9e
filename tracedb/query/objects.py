"""What a database holds: the view library's objects (``tracedb_object``), its tables, and the
runs; the ``tracedb views`` / ``describe`` / ``runs`` listings."""
from __future__ import annotations

import difflib

from ..engine import duckdb
from ..errors import QueryError, TracedbError
from ..store.library import parse_header
from .result import Result


def objects(con) -> dict[str, tuple]:
    """The library's public objects by name: (name, kind, topic, grain, description, parameters).

    Raises:
        TracedbError: the database has no view library.
    """
    try:
        rows = con.execute("SELECT name, kind, topic, grain, description, parameters FROM tracedb_object "
                           "WHERE schema_name = 'main' ORDER BY topic, name").fetchall()
    except duckdb.CatalogException as e:
        raise TracedbError("this database has no tracedb view library.",
                           hint="run 'tracedb ingest PATH' to create one.") from e
    return {r[0]: r for r in rows}


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
    for name, kind, topic, grain, desc, params in objects(con).values():
        summary = summary_of(desc)
        rows.append((name, kind if not params else f"{kind}({params})", topic, summary))
    return Result(["name", "kind", "topic", "description"], rows)


def describe_object(con, name: str) -> tuple[str, Result]:
    """A view's or table's header documentation and its columns (``tracedb describe``).

    Raises:
        QueryError: unknown name.
    """
    objs = objects(con)
    if name in objs:
        header = objs[name][4] or ""
    else:
        row = con.execute("SELECT comment FROM duckdb_tables() WHERE table_name = ? AND schema_name = 'main'",
                          [name]).fetchone()
        if row is None:
            raise unknown("view or table", name, list(objs) + table_names(con), "'tracedb views' lists the views.")
        header = row[0] or ""
    if name in objs and objs[name][1] == "table_macro":
        return header, Result(["column", "type", "description"], [])
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
