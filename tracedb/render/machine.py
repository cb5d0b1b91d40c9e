"""The machine formats: csv, json, ndjson and markdown, and :func:`render` for every format.

csv / json / ndjson / markdown print the values exactly as the database holds them: integer ns
stay integers (JSON keeps them exact, never floats); NaN and infinities become null. csv, json
and ndjson stream a batch of rows at a time (:func:`write_stream`), and a csv result's lines can
be made by DuckDB itself (:func:`csv_line_sql`).

Text from a trace is anyone's: markdown shows control and bidi characters as visible escapes and
escapes ``|`` and newlines (a cell stays one cell); csv with ``excel_safe`` puts a ``'`` before a
text cell that a spreadsheet would run as a formula (starting with ``=``, ``+``, ``-``, ``@``, a tab
or a carriage return; OWASP's CSV injection rule), numbers untouched.
"""
from __future__ import annotations

import csv
import decimal
import io
import json
import math
import re
from typing import Any, Iterable, Sequence

from .. import lazy
from .table import cell, render_table
from .text import visible

FORMATS = ("table", "csv", "json", "ndjson", "markdown")


def _json_value(v: Any) -> Any:
    if v is None or isinstance(v, (bool, int, str)):
        return v
    if isinstance(v, float):
        return v if math.isfinite(v) else None
    if isinstance(v, decimal.Decimal):
        return int(v) if v == v.to_integral_value() else float(v)
    if isinstance(v, (list, tuple)):
        return [_json_value(x) for x in v]
    if isinstance(v, dict):
        return {str(k): _json_value(x) for k, x in v.items()}
    return str(v)



STREAMED = ("csv", "json", "ndjson")
FORMULA_START = ("=", "+", "-", "@", "\t", "\r")


def excel_safe(v: Any) -> Any:
    """A csv value a spreadsheet shows as text: a string that starts like a formula gets a
    leading ``'``; every other value as it is.

    >>> [excel_safe(v) for v in ("=cmd|' /C calc'!A0", "-2+3", "MatMul", -5, None)]
    ["'=cmd|' /C calc'!A0", "'-2+3", 'MatMul', -5, None]
    """
    return "'" + v if isinstance(v, str) and v.startswith(FORMULA_START) else v


def markdown_cell(v: Any) -> str:
    r"""A markdown table cell: the raw value, text with control and bidi characters escaped,
    ``|`` as ``\|`` and a newline as ``<br>``.

    >>> markdown_cell("a|b\nc\x1b[2J")
    'a\\|b<br>c\\x1b[2J'
    """
    text = cell(v)
    return visible(text, "<br>").replace("|", "\\|") if isinstance(v, str) else text


def _csv_rows(batch: Sequence[Sequence[Any]]) -> Iterable[Sequence[Any]]:
    """The rows of a batch as csv writes them: floats through :func:`tracedb.render.table.cell`, every other value as
    it is (the csv module writes None as ""). Column by column, so a batch without floats goes to
    the csv module untouched: per-value Python was most of ``tracedb query VIEW --format csv`` for
    results of millions of rows (bench/RESULTS.md)."""
    if not batch:
        return batch
    cols = list(zip(*batch))
    floats = [i for i, col in enumerate(cols) if any(issubclass(t, float) for t in set(map(type, col)))]
    if not floats:
        return batch
    for i in floats:
        cols[i] = ["" if v is None else (cell(v) if isinstance(v, float) else v) for v in cols[i]]
    return zip(*cols)


def write_stream(out, columns: Sequence[str], batches: Iterable[Sequence[Sequence[Any]]], fmt: str,
                 *, excel: bool = False) -> None:
    """Write csv / json / ndjson one batch of rows at a time (memory bounded by the batch, not
    the result); the text is exactly :func:`render`'s for the same rows (``excel``: csv cells
    through :func:`excel_safe`).

    >>> import sys
    >>> write_stream(sys.stdout, ["rank", "dur_ns"], [[(0, 1_500_000)], [(1, None)]], "json")
    [
     {
      "rank": 0,
      "dur_ns": 1500000
     },
     {
      "rank": 1,
      "dur_ns": null
     }
    ]
    """
    if fmt == "csv":
        w = csv.writer(out, lineterminator="\n")
        w.writerow(columns)
        for batch in batches:
            w.writerows(_csv_rows(batch) if not excel else ([excel_safe(v) for v in r] for r in _csv_rows(batch)))
    elif fmt == "ndjson":
        for batch in batches:
            out.write("".join(json.dumps({c: _json_value(v) for c, v in zip(columns, r)}, ensure_ascii=False) + "\n"
                              for r in batch))
    elif fmt == "json":
        # json.dumps(list, indent=1) is "[", then each object dumped with indent=1 and every line
        # indented by one more space, joined by ",", then "]"; "[]" when there is none
        first = True
        for batch in batches:
            parts = []
            for r in batch:
                text = json.dumps({c: _json_value(v) for c, v in zip(columns, r)}, ensure_ascii=False, indent=1)
                parts.append(("[\n " if first else ",\n ") + text.replace("\n", "\n "))
                first = False
            out.write("".join(parts))
        out.write("[]\n" if first else "\n]\n")
    else:
        raise ValueError(f"format {fmt!r} is not streamed; use one of {', '.join(STREAMED)}")


# ---- csv lines made by DuckDB ---------------------------------------------------------------
#
# ``tracedb query … --format csv`` of a large result: DuckDB makes every row's csv line in SQL and
# Python only writes the lines (one string a row, not one object a cell through the csv module).
# Each SQL text is the one write_stream's csv gives for the value DuckDB hands Python: a float
# as format(v, ".10g") (DuckDB's format('{:.10g}') is the same printf-style %.10g; NaN has no
# sign in Python), a bool as True/False, an int and a Decimal of scale ≤ 6 as str() (larger
# scales come out as 1E-7 in Python), NULL as an empty field, a string quoted as the csv
# module quotes it. Any other type gives None and the rows go through the csv module.

_CSV_INTEGERS = frozenset({"TINYINT", "SMALLINT", "INTEGER", "BIGINT", "HUGEINT",
                            "UTINYINT", "USMALLINT", "UINTEGER", "UBIGINT", "UHUGEINT"})
_CSV_DECIMAL = re.compile(r"^DECIMAL\((\d+),\s*(\d+)\)$")
_CSV_DECIMAL_SCALE = 6           # str(Decimal) is positional notation up to 6 decimals
_csv_quoting_cache: list = []


def _csv_line(row: Sequence[Any]) -> str:
    buf = io.StringIO()
    csv.writer(buf, lineterminator="\n").writerow(row)
    return buf.getvalue()


def csv_quoting() -> tuple[str, str] | None:
    r"""How this Python's csv module writes a string field, probed once: the characters that make
    it quote a field (a field with one is written in quotes, its quotes doubled; ``\r`` is one in
    some Python versions and not in others) and the text of a row whose only field is empty.
    None when what it writes is not explained by that rule (then DuckDB makes no csv lines).

    >>> special, lone = csv_quoting()
    >>> sorted(special) in (['\n', '"', ','], ['\n', '\r', '"', ','])
    True
    >>> lone
    '""'
    """
    if not _csv_quoting_cache:
        special, ok = [], True
        for c in list(map(chr, range(128))) + ["\x85", "\u2028", "\u2029", "\xa0", "\ufeff"]:
            quoted = []
            for field in ("a" + c + "b", c + "b", "b" + c, c):
                line = _csv_line([field, "x"])
                if line == field + ",x\n":
                    quoted.append(False)
                elif line == '"' + field.replace('"', '""') + '",x\n':
                    quoted.append(True)
                else:
                    ok = False
            if len(set(quoted)) > 1:
                ok = False
            elif quoted[0]:
                special.append(c)
        lone = _csv_line([""])[:-1]
        ok = ok and _csv_line([None]) == lone + "\n" and _csv_line(["", ""]) == ",\n" and '"' in special
        _csv_quoting_cache.append(("".join(special), lone) if ok else None)
    return _csv_quoting_cache[0]


def _sql_text(s: str) -> str:
    """A SQL string literal of any text (each character that is not printable ASCII as chr(n))."""
    parts, plain = [], ""
    for c in s:
        if " " <= c <= "~":
            plain += c
        else:
            if plain:
                parts.append("'" + plain.replace("'", "''") + "'")
                plain = ""
            parts.append(f"chr({ord(c)})")
    if plain or not parts:
        parts.append("'" + plain.replace("'", "''") + "'")
    return " || ".join(parts)


def csv_cells_sql(names: Sequence[str], types: Sequence[str]) -> list[str] | None:
    """SQL that gives each column's csv cell as write_stream writes it (quoted when needed, NULL
    as ''), one expression per column (``names``: SQL column references, ``types``: their DuckDB
    types as DESCRIBE names them); None when a type has no such expression or the csv module
    quotes in a way these expressions do not know.

    >>> print(csv_cells_sql(["c0", "c1"], ["BOOLEAN", "BIGINT"])[0])
    CASE WHEN c0 THEN 'True' WHEN NOT c0 THEN 'False' ELSE '' END
    >>> csv_cells_sql(["c0", "c1"], ["TIMESTAMP", "BIGINT"]) is None
    True
    """
    quoting = csv_quoting()
    if quoting is None or not names or len(names) != len(types):
        return None
    special, lone = quoting
    null = _sql_text(lone) if len(names) == 1 else "''"     # a row of one empty field is '""'
    out = []
    for c, t in zip(names, types):
        t = t.upper()
        dec = _CSV_DECIMAL.match(t)
        if t in _CSV_INTEGERS or (dec and int(dec.group(2)) <= _CSV_DECIMAL_SCALE
                                   and int(dec.group(2)) < int(dec.group(1))):
            out.append(f"coalesce(CAST({c} AS VARCHAR), {null})")
        elif t in ("DOUBLE", "FLOAT"):
            out.append(f"CASE WHEN isnan({c}) THEN 'nan' ELSE coalesce(format('{{:.10g}}', CAST({c} AS DOUBLE)), "
                       f"{null}) END")
        elif t == "BOOLEAN":
            out.append(f"CASE WHEN {c} THEN 'True' WHEN NOT {c} THEN 'False' ELSE {null} END")
        elif t == "VARCHAR":
            needs = " OR ".join(f"contains({c}, {_sql_text(ch)})" for ch in special)
            empty = f"WHEN {c} = '' THEN {null} " if len(names) == 1 else ""
            out.append(f"CASE WHEN {c} IS NULL THEN {null} {empty}WHEN {needs} "
                       f"THEN '\"' || replace({c}, '\"', '\"\"') || '\"' ELSE {c} END")
        else:
            return None
    return out


def csv_line_sql(names: Sequence[str], types: Sequence[str]) -> str | None:
    """SQL that gives each row's whole csv line, ``\\n`` included, as write_stream writes it
    (the cells of :func:`csv_cells_sql` joined by commas); None when a type has no exact text.

    >>> print(csv_line_sql(["c0", "c1"], ["BIGINT", "INTEGER"]))
    concat(coalesce(CAST(c0 AS VARCHAR), ''), ',', coalesce(CAST(c1 AS VARCHAR), ''), chr(10))
    """
    cells = csv_cells_sql(names, types)
    if cells is None:
        return None
    return "concat(" + ", ',', ".join(cells) + ", chr(10))"


def render(columns: Sequence[str], rows: Sequence[Sequence[Any]], fmt: str = "table", *,
           width: int | None = None, max_rows: int | None = None, units: str | None = None,
           vertical: bool = False, wide: bool = False, wrap_last: bool = False, excel: bool = False) -> str:
    """Render a result.

    Args:
        columns: column names.
        rows: row tuples (Python values as DuckDB returns them).
        fmt: table | csv | json | ndjson | markdown.
        width, max_rows, units, vertical, wide, wrap_last: the human table's options (see
            :func:`render_table`); the other formats ignore them and print raw values.
        excel: csv cells through :func:`excel_safe` (a text cell that starts like a formula
            gets a leading ``'``).

    Returns:
        The text to print (ends with a newline unless empty).

    >>> print(render(["a", "dur_ns"], [(1, 2_500_000)], "csv"), end="")
    a,dur_ns
    1,2500000
    >>> print(render(["a", "dur_ns"], [(1, 2_500_000)]), end="")
    a  dur_ms
    -  ------
    1   2.500
    """
    if fmt not in FORMATS:
        raise ValueError(f"unknown format {fmt!r}; use one of {', '.join(FORMATS)}")
    if fmt == "csv":
        buf = io.StringIO()
        w = csv.writer(buf, lineterminator="\n")
        w.writerow(columns)
        for r in rows:
            r = [excel_safe(v) for v in r] if excel else r
            w.writerow(["" if v is None else (cell(v) if isinstance(v, float) else v) for v in r])
        return buf.getvalue()
    if fmt in ("json", "ndjson"):
        objs = [{c: _json_value(v) for c, v in zip(columns, r)} for r in rows]
        if fmt == "json":
            return json.dumps(objs, ensure_ascii=False, indent=1) + "\n"
        return "".join(json.dumps(o, ensure_ascii=False) + "\n" for o in objs)
    if fmt == "markdown":
        tabulate = lazy.tabulate.tabulate
        cells = [[markdown_cell(v) for v in r] for r in rows]
        return tabulate(cells, headers=[markdown_cell(c) for c in columns], tablefmt="github",
                        disable_numparse=True) + "\n"
    return render_table(columns, rows, width=width, max_rows=max_rows, units=units, vertical=vertical, wide=wide,
                        wrap_last=wrap_last)
