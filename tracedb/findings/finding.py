"""What a finding is and how the findings read the database.

A :class:`Finding` is one sentence with its number, the threshold it was judged against and the
rule's source, the query that shows it, and the raw fields behind it (``tracedb summary --format
json`` keeps them). The report groups findings by :data:`CAUSES`.

Thresholds are data: rows of ``diagnosis_threshold`` (:func:`threshold`), never numbers written
here. A finding whose view, column or threshold row is missing from the file (a database built by
an older tracedb, or a view another part of tracedb has not shipped yet) is skipped: the helpers
below say what exists (:func:`has_view`, :func:`has_columns`, :func:`has_table`).
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field

from ..engine import duckdb

# the report's sections, in page order: (key, title)
CAUSES: tuple[tuple[str, str], ...] = (
    ("comparison", "Baseline against comparison"),
    ("step", "Where the step goes"),
    ("input", "Input pipeline"),
    ("idle", "Idle device and free time"),
    ("host", "Host: launches, blocking copies, annotated ranges"),
    ("cluster", "Ranks, links and communication"),
    ("compute", "Compute: shapes, precision, FLOPS"),
    ("memory", "Memory"),
    ("data", "Data checks"),
)


@dataclass
class Finding:
    """One finding: the run (or ``baseline → comparison``) it is about, a short topic, the
    sentence, the query that shows it; the report section (``cause``), the finding's number, the
    threshold it was judged against and the rule's source (None where the finding only describes),
    and the raw fields behind the sentence."""

    run_name: str
    topic: str
    text: str
    source: str
    cause: str = "step"
    number: float | int | None = None
    threshold: str | None = None
    rule: str | None = None
    fields: dict = field(default_factory=dict)


@dataclass(frozen=True)
class Threshold:
    """A row of ``diagnosis_threshold``: the value, its unit and where it comes from."""

    name: str
    value: float
    unit: str
    source: str

    @property
    def reference(self) -> str:
        """The source's head: the tool and constant, without the parenthesised detail."""
        head = self.source.split(" (", 1)[0]
        return head.split(": ", 1)[0].strip()


def sql_quote(name: str) -> str:
    """A SQL string literal of ``name``."""
    return "'" + name.replace("'", "''") + "'"


def one(con: duckdb.DuckDBPyConnection, sql: str, params: list | None = None) -> dict | None:
    """The first row of a query as a dict, None when it has none."""
    cur = con.execute(sql, params or [])
    row = cur.fetchone()
    return None if row is None else dict(zip([d[0] for d in cur.description], row))


def all_rows(con: duckdb.DuckDBPyConnection, sql: str, params: list | None = None) -> list[dict]:
    """Every row of a query as dicts."""
    cur = con.execute(sql, params or [])
    cols = [d[0] for d in cur.description]
    return [dict(zip(cols, r)) for r in cur.fetchall()]


def has_view(con: duckdb.DuckDBPyConnection, name: str) -> bool:
    """Whether schema main has a view of that name."""
    return bool(con.execute("SELECT count(*) FROM duckdb_views() WHERE schema_name = 'main' AND view_name = ?",
                            [name]).fetchone()[0])


def has_table(con: duckdb.DuckDBPyConnection, name: str) -> bool:
    """Whether schema main has a table of that name."""
    return bool(con.execute("SELECT count(*) FROM duckdb_tables() WHERE schema_name = 'main' AND table_name = ?",
                            [name]).fetchone()[0])


def has_macro(con: duckdb.DuckDBPyConnection, name: str) -> bool:
    """Whether a table macro (or function) of that name exists."""
    return bool(con.execute("SELECT count(*) FROM duckdb_functions() WHERE function_name = ?", [name]).fetchone()[0])


def has_columns(con: duckdb.DuckDBPyConnection, name: str, *columns: str) -> bool:
    """Whether the view or table ``name`` exists in schema main with every one of ``columns``."""
    have = {r[0] for r in con.execute("SELECT column_name FROM duckdb_columns() WHERE schema_name = 'main' "
                                      "AND table_name = ?", [name]).fetchall()}
    return bool(have) and all(c in have for c in columns)


def threshold(con: duckdb.DuckDBPyConnection, name: str) -> Threshold | None:
    """The ``diagnosis_threshold`` row of that name; None when the table or the row is missing."""
    if not has_table(con, "diagnosis_threshold"):
        return None
    row = con.execute("SELECT name, value, unit, source FROM diagnosis_threshold WHERE name = ?", [name]).fetchone()
    return None if row is None else Threshold(*row)


def run_rank_count(con: duckdb.DuckDBPyConnection, run: str) -> int:
    """Ranks of the run (the rank table)."""
    return con.execute("SELECT count(*) FROM rank JOIN run USING (run_id) WHERE run_name = ?", [run]).fetchone()[0]


def run_platform(con: duckdb.DuckDBPyConnection, run: str) -> str | None:
    """run.platform: npu or gpu."""
    row = con.execute("SELECT platform FROM run WHERE run_name = ?", [run]).fetchone()
    return row[0] if row else None


def view_argument(con: duckdb.DuckDBPyConnection, view: str, macro: str) -> int | None:
    """The integer argument a library view passes to its table macro (``free_analysis`` →
    ``free_analysis_with(50000)``): the threshold the view applies, read from its definition."""
    row = con.execute("SELECT sql FROM duckdb_views() WHERE schema_name = 'main' AND view_name = ?", [view]).fetchone()
    m = re.search(re.escape(macro) + r"\((\d+)\)", row[0]) if row else None
    return int(m.group(1)) if m else None
