"""Planning a query: a view name (with --run/--rank/--step and the compare views' run pair) or a
SQL statement becomes the SQL and parameters that run, checked first (a read-only connection
runs only SELECT statements; an unknown name gets ``did you mean``)."""
from __future__ import annotations

import re
from typing import Any

from ..engine import duckdb
from ..errors import QueryError
from ..store.session import duckdb_message, run_names
from .objects import objects, role_pair, table_names, unknown

ROLES = ("baseline", "comparison")
_IDENT = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
_EXPLAIN = re.compile(r"^\s*EXPLAIN\s+(?:ANALY[SZ]E\s+)?(?:\([^)]*\)\s*)?", re.I)
EMPTY_HINT = "'tracedb views' lists the views, e.g. tracedb query step_breakdown."


def query_text(name_or_sql: str | None) -> str:
    """The view name or SQL with surrounding blanks and trailing ``;`` removed.

    Raises:
        QueryError: nothing is left.
    """
    text = (name_or_sql or "").strip().rstrip(";").strip()
    if not text:
        raise QueryError("empty query: give a view name or a SQL statement.", hint=EMPTY_HINT)
    return text


def parse_statements(con: duckdb.DuckDBPyConnection, sql: str) -> list:
    """The parsed statements of ``sql``; QueryError when there are none or it does not parse."""
    try:
        statements = con.extract_statements(sql)
    except duckdb.Error as e:
        raise QueryError(f"query failed: {duckdb_message(e)}") from e
    except ValueError as e:      # a statement type this duckdb's Python module cannot name
        raise QueryError("only SELECT statements run on the read-only query connection.",
                         hint="pass --write to run SQL that changes data.") from e
    if not statements:
        raise QueryError("empty query: give a view name or a SQL statement.", hint=EMPTY_HINT)
    return statements


def check_read_only_sql(con: duckdb.DuckDBPyConnection, sql: str) -> None:
    """Refuse SQL that could do more than read: only SELECT (incl. FROM, WITH, VALUES, DESCRIBE,
    SHOW, SUMMARIZE) and EXPLAIN of a SELECT pass.

    COPY … TO, EXPORT DATABASE, ATTACH, INSTALL, LOAD, SET, PRAGMA, CALL, CREATE (incl. CREATE
    SECRET, which writes a file), CHECKPOINT and the rest are refused before anything runs. Reading
    local files (``read_csv``, ``read_parquet``, ``read_json``) stays allowed: it changes nothing,
    and joining a trace with a CSV from elsewhere is a legitimate question. Remote URLs fail
    because no extension can be installed or loaded (see :data:`tracedb.store.db.LOCKED_SETTINGS`).

    Raises:
        QueryError: empty SQL, a SQL syntax error, or a statement that is not a SELECT.
    """
    statements = parse_statements(con, sql)
    for st in statements:
        kind = st.type
        if kind == duckdb.StatementType.EXPLAIN:    # EXPLAIN ANALYZE runs its statement
            try:
                inner = con.extract_statements(_EXPLAIN.sub("", st.query, count=1))
                kind = inner[0].type if len(inner) == 1 else kind
            except (duckdb.Error, ValueError):
                pass
        if kind != duckdb.StatementType.SELECT:
            raise QueryError(f"{kind.name} statements do not run on the read-only query connection "
                             "(it writes no file, loads no extension and changes no setting).",
                             hint="pass --write to run SQL that changes data; 'tracedb export' writes Parquet.")


def plan(con, text: str, *, baseline=None, comparison=None, run=None, rank=None, step=None,
         limit=None, write: bool = False) -> tuple[str, list]:
    """The SQL and parameters a query of ``text`` runs (views resolved, SQL checked): the
    plan of :func:`tracedb.api.query`.

    Raises:
        QueryError: an unknown view, a filter the view has no column for, a run name the
            database does not hold (the message lists its runs), SQL that does not parse, or a
            statement other than SELECT without ``write``.
    """
    params: list[Any] = []
    if _IDENT.match(text):
        for name in (run, baseline, comparison):
            if name is not None and not con.execute("SELECT 1 FROM main.run WHERE run_name = ?", [name]).fetchone():
                # a filter on a run the file does not hold would print 0 rows without a word
                raise QueryError(f"no run named {name!r}.", hint=f"runs in this database: {', '.join(run_names(con))}.")
        sql, params = view_sql(con, text, baseline, comparison, run, rank, step)
    else:
        if any(v is not None for v in (run, rank, step, baseline, comparison)):
            raise QueryError("--run/--rank/--step/--baseline/--comparison apply to view names, not SQL.")
        if write:
            parse_statements(con, text)
        else:
            check_read_only_sql(con, text)
        sql = text
    if limit is not None:
        sql = f"SELECT * FROM ({sql}) AS q LIMIT {int(limit)}"
    return sql, params


def _require_roles(con, name: str) -> None:
    """Refuse a compare view when no run has the role it reads: it would return no rows."""
    missing = [r for r in ROLES if role_run(con, r) is None]
    if missing:
        raise QueryError(f"{name} needs a baseline and a comparison run; no run has the role "
                         f"{' or '.join(missing)} (runs: {', '.join(run_names(con))}).",
                         hint="'tracedb compare BASELINE COMPARISON', 'tracedb runs set-role RUN baseline' "
                              "(and comparison), or pass --baseline RUN --comparison RUN.")


def _pair_sql(con, view: str | None, macro: str, baseline, comparison) -> tuple[str, list]:
    """``SELECT * FROM macro(?, ?)`` with the given runs, else the runs that have the roles."""
    base = baseline or role_run(con, "baseline")
    comp = comparison or role_run(con, "comparison")
    if base is None or comp is None:
        raise QueryError(f"{view or macro} needs a baseline and a comparison run.",
                         hint="pass --baseline RUN --comparison RUN, or 'tracedb runs set-role RUN baseline'.")
    for r in (base, comp):
        if not con.execute("SELECT 1 FROM run WHERE run_name = ?", [r]).fetchone():
            raise QueryError(f"no run named {r!r}.", hint="'tracedb runs' lists the runs.")
    return f"SELECT * FROM {macro}(?, ?)", [base, comp]


def view_sql(con, name: str, baseline, comparison, run, rank, step) -> tuple[str, list]:
    """The SELECT for a view name with its filters (bound parameters). A compare view
    (op_diff, kernel_diff, …) with --baseline/--comparison runs its table macro
    (op_diff_between …) instead, the pairing read from the library (:func:`role_pair`)."""
    objs = objects(con)
    if name not in objs:
        tables = table_names(con)
        if name in tables:       # a table by name: SELECT * (ux-review F10); --run through its run_id
            return table_sql(con, name, baseline, comparison, run, rank, step)
        raise unknown("view", name, list(objs) + tables, "'tracedb views' lists the views; "
                      "or pass a SQL statement in quotes.")
    pair = role_pair(objs, name)
    if pair is None and (baseline or comparison):
        raise QueryError(f"--baseline/--comparison apply to the compare views (op_diff, kernel_diff, ...), "
                         f"not to {name}.")
    if pair is not None and name == pair[0] and not (baseline or comparison):
        _require_roles(con, name)        # the view would return no rows, without a word (ux-review F14)
        sql, params = f"SELECT * FROM {name}", []
    elif pair is not None:
        sql, params = _pair_sql(con, pair[0], pair[1], baseline, comparison)
    elif objs[name].kind == "table_macro":
        raise QueryError(f"{name} takes parameters; call it in SQL: SELECT * FROM {name}(...).")
    else:
        sql, params = f"SELECT * FROM {name}", []
    # the view's columns only when a filter needs them (binding a large view costs time)
    cols = ({r[0] for r in con.execute(f"DESCRIBE {sql}", params).fetchall()}
            if any(v is not None for v in (run, rank, step)) else set())
    where = []
    for col, val, flag in (("run_name", run, "--run"), ("rank", rank, "--rank"), ("step", step, "--step")):
        if val is None:
            continue
        if col not in cols:
            raise QueryError(f"{flag} does not apply: {name} has no {col} column.")
        where.append(f"{col} = ?")
        params.append(val)
    if where:
        sql = f"SELECT * FROM ({sql}) AS v WHERE " + " AND ".join(where)
    return sql, params


def table_sql(con, name: str, baseline, comparison, run, rank, step) -> tuple[str, list]:
    """``SELECT * FROM table`` with the --run/--rank/--step filters (--run through ``run_id``)."""
    if baseline or comparison:
        raise QueryError(f"--baseline/--comparison apply to op_diff, not to {name}.")
    cols = {r[0] for r in con.execute("SELECT column_name FROM duckdb_columns() WHERE database_name = "
                                      "current_database() AND schema_name = 'main' AND table_name = ?",
                                      [name]).fetchall()}
    where, params = [], []
    if run is not None:
        if "run_name" in cols:
            where.append("run_name = ?")
        elif "run_id" in cols:
            where.append("run_id = (SELECT run_id FROM main.run WHERE run_name = ?)")
        else:
            raise QueryError(f"--run does not apply: {name} has no run_id column.")
        params.append(run)
    for col, val, flag in (("rank", rank, "--rank"), ("step", step, "--step")):
        if val is not None:
            if col not in cols:
                raise QueryError(f"{flag} does not apply: {name} has no {col} column.")
            where.append(f"{col} = ?")
            params.append(val)
    sql = f'SELECT * FROM main."{name}"'
    return (sql + " WHERE " + " AND ".join(where) if where else sql), params


def _spans(values: list[int]) -> str:
    """``0-7, 12`` for [0, 1, …, 7, 12]."""
    out, start = [], None
    for i, v in enumerate(values):
        if start is None:
            start = v
        if i + 1 == len(values) or values[i + 1] != v + 1:
            out.append(str(start) if start == v else f"{start}-{v}")
            start = None
    return ", ".join(out)


def empty_filter_hint(con, run: str | None, rank: int | None, step: int | None) -> str | None:
    """Why a query with --rank / --step gave no row, when the runs lack that rank or step:
    ``run npu_run has rank 3 (no rank 0)``; None when they have it (the view has no row for it)."""
    parts = []
    for col, val, table in (("rank", rank, "rank"), ("step", step, "step")):
        if val is None:
            continue
        have = con.execute(f"SELECT r.run_name, list(DISTINCT t.{col} ORDER BY t.{col}) FROM main.{table} AS t "
                           "JOIN main.run AS r ON r.run_id = t.run_id WHERE ? IS NULL OR r.run_name = ? "
                           "GROUP BY r.run_name ORDER BY r.run_name", [run, run]).fetchall()
        if any(val in values for _, values in have):
            continue
        what = "; ".join(f"run {name} has {col}{'s' if len(v) > 1 else ''} {_spans(v)}" for name, v in have[:4])
        parts.append(f"no {col} {val}: {what or f'no run has a {col}'}" + ("; …" if len(have) > 4 else ""))
    return "; ".join(parts) or None


def role_run(con, role: str) -> str | None:
    row = con.execute("SELECT min(run_name) FROM run WHERE role = ?", [role]).fetchone()
    return row[0] if row else None


