"""The view library: ``queries/<topic>/<name>.sql`` installed into the database file.

Each file declares one object (``CREATE OR REPLACE VIEW`` or ``CREATE OR REPLACE MACRO ... AS
TABLE``) whose name is the file name. :func:`load_library` parses every file once with sqlglot
into a :class:`SqlObject`, the one model every consumer reads (install, export, Spark, docs):

* the leading ``--`` block is the header: a summary line ``name — what it answers`` and the
  sections ``Grain:``, ``Source:``, ``Reference:``, ``Units:`` (``Parameters:``, ``Method:`` …);
  it becomes ``COMMENT ON VIEW/MACRO`` and a row of ``tracedb_object``;
* the trailing ``-- …`` of each output column of the final SELECT (sqlglot attaches it to the
  projection) becomes ``COMMENT ON COLUMN``; a column passed through unchanged from another
  library object (``SELECT x FROM op_diff_between(…)``) inherits that object's comment;
* dependencies are the library objects the body references as tables (never a name in a comment
  or a string literal); objects are installed in dependency order (a view binds at creation).

Files under ``queries/_internal/`` install into schema ``tracedb_internal``.

Installing needs only the statements that parse yields; :func:`cached_plan` keeps them in the
cache folder per library version, so installing does not parse the files again.
"""
from __future__ import annotations

import hashlib
import json
import logging
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from .. import lazy
from ..engine import insert_rows
from ..resources import sql_dir
from . import cache
from .header import parse_header
from .schema import meta_value

if TYPE_CHECKING:
    import duckdb
    from sqlglot import exp

INTERNAL_SCHEMA = "tracedb_internal"
CREATE_INTERNAL_SCHEMA = f"CREATE SCHEMA IF NOT EXISTS {INTERNAL_SCHEMA}"
@dataclass
class SqlObject:
    """One view or table macro of the library, parsed from its file."""

    name: str
    kind: str            # view | table_macro
    schema: str          # main | tracedb_internal
    topic: str
    path: Path
    sql: str             # the CREATE statement as written (comments included), no trailing ';'
    header: str          # the header lines, stripped, joined by newlines (the COMMENT ON text)
    tree: exp.Query      # the parsed SELECT after AS / AS TABLE
    sections: dict[str, str] = field(default_factory=dict)
    summary: str = ""
    parameters: list[str] = field(default_factory=list)
    columns: list[str] = field(default_factory=list)         # output columns, in order
    column_comments: dict[str, str] = field(default_factory=dict)
    inherited: dict[str, str] = field(default_factory=dict)   # column → object it inherits from
    dependencies: set[str] = field(default_factory=set)       # library object names used as tables

    @property
    def qualified(self) -> str:
        return self.name if self.schema == "main" else f"{self.schema}.{self.name}"

    @property
    def body(self) -> exp.Query:
        """The SELECT after ``AS`` / ``AS TABLE``, a fresh copy of the parsed tree."""
        return self.tree.copy()

    def header_field(self, key: str) -> str | None:
        return self.sections.get(key)


_HEAD = re.compile(r"CREATE\s+OR\s+REPLACE\s+(VIEW|MACRO)\s+(?:(\w+)\.)?(\w+)\s*(?:\(([^)]*)\))?"
                   r"\s+AS(?:\s+TABLE)?\s", re.I)


def _parse_create(sql: str) -> tuple[str, str | None, str, list[str], exp.Query] | None:
    """(kind, schema, name, parameters, body) from sqlglot's parse of the whole statement, or
    None where this sqlglot version does not parse it as a CREATE (older ones: MACRO ... AS TABLE)."""
    sqlglot, exp = lazy.sqlglot, lazy.exp
    log = logging.getLogger("sqlglot")
    level = log.level
    log.setLevel(logging.ERROR)    # not the "falling back to parsing as a Command" warning
    try:
        statements = [s for s in sqlglot.parse(sql, read="duckdb") if s is not None]
    finally:
        log.setLevel(level)
    if len(statements) != 1 or not isinstance(statements[0], exp.Create) \
            or statements[0].kind not in ("VIEW", "MACRO") or not isinstance(statements[0].expression, exp.Query):
        return None
    target = statements[0].this
    if isinstance(target, exp.UserDefinedFunction):
        return ("table_macro", target.this.db or None, target.this.name,
                [p.name for p in target.expressions], statements[0].expression)
    return "view", target.db or None, target.name, [], statements[0].expression


def _parse_statement(path: Path, sql: str) -> tuple[str, str | None, str, list[str], exp.Query]:
    sqlglot = lazy.sqlglot
    try:
        parsed = _parse_create(sql)
        if parsed is not None:
            return parsed
        # fallback: the head is simple enough to read as text; sqlglot parses the SELECT after it
        m = _HEAD.match(sql)
        if m is None:
            raise ValueError(f"{path}: expected exactly one CREATE OR REPLACE VIEW/MACRO statement")
        body = sqlglot.parse_one(sql[m.end():], read="duckdb")
        params = [p.strip() for p in (m.group(4) or "").split(",") if p.strip()]
        kind = "view" if m.group(1).upper() == "VIEW" else "table_macro"
        return kind, m.group(2), m.group(3), params, body
    except sqlglot.errors.SqlglotError as e:
        raise ValueError(f"{path}: sqlglot cannot parse it: {str(e).splitlines()[0]}") from e


def parse_file(path: Path, topic: str | None = None) -> SqlObject:
    """Parse one library file into a :class:`SqlObject` (without inherited comments).

    Raises:
        ValueError: the file is not one CREATE OR REPLACE VIEW/MACRO of the object its name says.
    """
    return parse_text(path, path.read_text(), topic or path.parent.name, path.stem)


def parse_text(path: Path, text: str, topic: str, expected: str) -> SqlObject:
    """Parse the text of one library object (``expected``: the name it must declare; ``path``: the
    file it comes from)."""
    start = re.search(r"^CREATE\b", text, re.I | re.M)
    if start is None:
        raise ValueError(f"{path}: no CREATE OR REPLACE VIEW/MACRO statement")
    header_lines = [line[2:] for line in text[:start.start()].splitlines() if line.startswith("--")]
    sql = text[start.start():].strip().rstrip(";").rstrip()
    kind, schema, name, params, body = _parse_statement(path, sql)
    schema = (schema or "main").lower()
    expected_schema = INTERNAL_SCHEMA if topic == "_internal" else "main"
    if name != expected or schema != expected_schema:
        raise ValueError(f"{path}: declares {schema}.{name}, expected {expected_schema}.{expected}")
    header = parse_header(header_lines)
    columns, comments = [], {}
    for proj in body.selects:
        columns.append(proj.alias_or_name)
        doc = " ".join(c.strip() for c in proj.comments or [] if c.strip())
        if doc:
            comments[proj.alias_or_name] = doc
    return SqlObject(name=name, kind=kind, schema=schema, topic=topic, path=path, sql=sql,
                     header="\n".join(line.strip() for line in header_lines), tree=body,
                     sections=header.sections, summary=header.summary, parameters=params,
                     columns=columns, column_comments=comments, dependencies=_references(body))


# ``-- Browse: VIEW(ARGS) [ORDER BY …] — NOTE`` in a table macro's header: the library makes the
# parameter-free view VIEW over the macro, its arguments ARGS (``baseline, comparison``: the runs
# whose run.role says so), its columns the macro's (comments inherited), ordered as given
_BROWSE = re.compile(r"^(\w+)\((.*?)\)\s*(ORDER BY .*?)?\s*(?:—\s*(.*))?$", re.S)
ROLE_ARGS = {"baseline": "(SELECT min(run_name) FROM run WHERE role = 'baseline')",
             "comparison": "(SELECT min(run_name) FROM run WHERE role = 'comparison')"}


def browse_view(macro: SqlObject) -> SqlObject | None:
    """The parameter-free view a table macro's ``Browse:`` header line asks for, else None.

    Raises:
        ValueError: the line does not read ``VIEW(ARGS) [ORDER BY …] [— note]``.
    """
    line = macro.sections.get("Browse")
    if macro.kind != "table_macro" or not line:
        return None
    m = _BROWSE.match(line.strip())
    if m is None:
        raise ValueError(f"{macro.path}: Browse: expected VIEW(ARGS) [ORDER BY …] [— note], got {line!r}")
    view, args, order, note = m.group(1), m.group(2), m.group(3), m.group(4)
    values = [ROLE_ARGS.get(a.strip(), a.strip()) for a in args.split(",") if a.strip()]
    by_role = any(a.strip() in ROLE_ARGS for a in args.split(","))
    grain = macro.sections.get("Grain", "")
    summary = macro.summary.rstrip(".") + (f", {note.strip().rstrip('.')}." if note else ".")
    header = [f"{view} — {summary}",
              f"Grain: {grain}" + (" Runs chosen by run.role (tracedb compare, tracedb ingest --role)."
                                   if by_role else "")]
    header.append(f"Source: {macro.name}({args.strip()}), the view the library makes for the macro's "
                  "parameters" + (" from the runs' roles." if by_role else "' defaults."))
    header += [f"{key}: {macro.sections[key]}" for key in ("Reference", "Units") if key in macro.sections]
    text = "".join(f"-- {line}\n" for line in header) + (
        f"CREATE OR REPLACE VIEW {view} AS\nSELECT\n    " + ",\n    ".join(macro.columns)
        + f"\nFROM {macro.name}(" + ", ".join(values) + ")" + (f"\n{order.strip()}" if order else "") + "\n")
    return parse_text(macro.path, text, macro.topic, view)


def _references(body: exp.Expression) -> set[str]:
    """Names of the tables and table-macro calls the body reads (CTE names excluded)."""
    exp = lazy.exp
    ctes = {c.alias_or_name.lower() for c in body.find_all(exp.CTE)}
    names = set()
    for table in body.find_all(exp.Table):
        if isinstance(table.this, exp.Anonymous):        # table macro call: op_diff_between(a, b)
            names.add(table.this.name.lower())
        elif table.db or table.name.lower() not in ctes:
            names.add(table.name.lower())
    return names


def load_library(root: Path | None = None) -> list[SqlObject]:
    """Parse every ``queries/**/*.sql`` file, and the views their ``Browse:`` lines ask for
    (:func:`browse_view`), in dependency order, with inherited column comments.

    Raises:
        ValueError: a file does not declare exactly the object its name says, or a dependency cycle.
    """
    root = root or sql_dir("queries")
    objects = [parse_file(path) for path in sorted(root.glob("*/*.sql"))]
    objects += [view for view in map(browse_view, objects) if view is not None]
    by_name = {o.name: o for o in objects}
    if len(by_name) < len(objects):
        raise ValueError(f"two objects of one name in {root}: "
                         f"{sorted(n for n in by_name if sum(o.name == n for o in objects) > 1)}")
    for o in objects:
        o.dependencies = {d for d in o.dependencies if d in by_name and d != o.name}
    ordered = _dependency_order(objects)
    for o in ordered:
        _inherit_comments(o, by_name)
    return ordered


def _dependency_order(objects: list[SqlObject]) -> list[SqlObject]:
    by_name = {o.name: o for o in objects}
    ordered, done = [], set()

    def visit(name: str, stack: tuple = ()) -> None:
        if name in done:
            return
        if name in stack:
            raise ValueError(f"dependency cycle: {' -> '.join(stack + (name,))}")
        for d in sorted(by_name[name].dependencies):
            visit(d, stack + (name,))
        done.add(name)
        ordered.append(by_name[name])

    for o in objects:
        visit(o.name)
    return ordered


def _inherit_comments(obj: SqlObject, by_name: dict[str, SqlObject]) -> None:
    """Give an undocumented output column the comment of the library column it passes through.

    Only a bare column reference qualifies (``x`` or ``t.x``, same name out as in), read from
    the one FROM source or the source its qualifier names.
    """
    exp = lazy.exp
    body = obj.tree
    sources = {}
    for node in [body.args.get("from_") or body.args.get("from")] + list(body.args.get("joins") or []):
        if node is None:
            continue
        table = node.this
        if isinstance(table, exp.Table):
            name = (table.this.name if isinstance(table.this, exp.Anonymous) else table.name).lower()
            sources[(table.alias_or_name or name).lower()] = name
    for proj in body.selects:
        col = proj.alias_or_name
        inner = proj.this if isinstance(proj, exp.Alias) else proj
        if col in obj.column_comments or not isinstance(inner, exp.Column) or inner.name != col:
            continue
        if inner.table:
            source = sources.get(inner.table.lower())
        else:
            source = next(iter(sources.values())) if len(sources) == 1 else None
        upstream = by_name.get(source or "")
        if upstream is not None and col in upstream.column_comments:
            obj.column_comments[col] = upstream.column_comments[col]
            obj.inherited[col] = upstream.name


def quote(text: str | None) -> str:
    """A SQL string literal."""
    return "'" + (text or "").replace("'", "''") + "'"


def comment_statements(obj: SqlObject) -> list[str]:
    """``COMMENT ON`` the object and each documented output column (re-run after every replace:
    CREATE OR REPLACE drops the comments)."""
    if obj.kind == "table_macro":
        return [f"COMMENT ON MACRO TABLE {obj.qualified} IS {quote(obj.header)}"]
    out = [f"COMMENT ON VIEW {obj.qualified} IS {quote(obj.header)}"]
    out += [f'COMMENT ON COLUMN {obj.qualified}."{col}" IS {quote(obj.column_comments[col])}'
            for col in obj.columns if col in obj.column_comments]
    return out


BROWSE_FORM = "browse-1"     # the form browse_view writes: part of the library's hash


def library_hash(root: Path | None = None) -> str:
    """SHA-256 over the names and texts of the library's SQL files (and the form of the views
    made from ``Browse:`` lines)."""
    root = root or sql_dir("queries")
    h = hashlib.sha256(BROWSE_FORM.encode())
    for path in sorted(root.glob("*/*.sql")):
        h.update(f"{path.parent.name}/{path.name}\0".encode() + path.read_bytes() + b"\0")
    return h.hexdigest()


def install_plan(objects: list[SqlObject]) -> list[dict]:
    """What :func:`install` executes per object, in dependency order, as plain data."""
    return [{"name": o.name, "kind": o.kind, "schema": o.schema, "topic": o.topic, "file": o.path.name,
             "sql": o.sql, "header": o.header, "grain": o.header_field("Grain"),
             "parameters": ", ".join(o.parameters) or None, "comments": comment_statements(o)}
            for o in objects]


def cached_plan(digest: str | None = None) -> list[dict]:
    """The install plan of the installed library: parsed once per library version and kept as
    ``library-<hash>.json`` in this user's cache folder (:func:`tracedb.store.cache.private_dir`),
    so an ingest that installs the library (into a database made by an older tracedb) neither
    imports sqlglot nor parses the files (0.5-0.6 s). The file is read only if it is this user's
    regular file and its SHA-256 (its first line) matches; a missing, unwritable, damaged or
    edited cache only costs the parse."""
    digest = digest or library_hash()
    folder = cache.private_dir()
    path = folder / f"library-{digest[:20]}.json" if folder is not None else None
    if path is not None:
        text = cache.read_checked(path)     # a private regular file whose SHA-256 matches (tracedb.store.cache)
        try:
            if text is not None:
                return json.loads(text)
        except ValueError:
            pass
    plan = install_plan(load_library())
    if path is not None:
        try:
            cache.write_checked(path, json.dumps(plan, ensure_ascii=False).encode())
        except OSError:
            pass
    return plan


LIBRARY_HASH_KEY = "library_hash"


def install(con: duckdb.DuckDBPyConnection, objects: list[SqlObject] | None = None,
            digest: str | None = None) -> list[dict]:
    """Create or replace every library object, re-apply all comments, refresh ``tracedb_object``.

    Runs inside the caller's transaction. One batch of statements for the objects and one for
    the comments: separate executes per object cost noticeably on every ingest. Returns the
    install plan (:func:`install_plan`).
    """
    plan = install_plan(objects) if objects is not None else cached_plan(digest)
    con.execute(CREATE_INTERNAL_SCHEMA)
    con.execute(";\n".join(o["sql"] for o in plan))
    con.execute(";\n".join(s for o in plan for s in o["comments"]))
    con.execute("DELETE FROM tracedb_object")
    insert_rows(con, "tracedb_object", [[o["name"], o["kind"], o["schema"], o["topic"], o["grain"], o["header"],
                                         o["parameters"], f"queries/{o['topic']}/{o['file']}"] for o in plan])
    return plan


def install_if_changed(con: duckdb.DuckDBPyConnection) -> bool:
    """:func:`install` the library unless the database already holds this version of it
    (``tracedb_meta.library_hash`` equals :func:`library_hash` of the SQL files).

    An ingest into a database whose library is current then writes no view, comment or
    catalogue row (0.2 s and a catalogue rewrite saved per ingest).

    Returns:
        True if the library was installed.
    """
    digest = library_hash()
    if meta_value(con, LIBRARY_HASH_KEY) == digest:
        return False
    install(con, digest=digest)
    con.execute("INSERT OR REPLACE INTO tracedb_meta VALUES (?, ?)", [LIBRARY_HASH_KEY, digest])
    return True
