"""CSV inputs: the header, column names as SQL identifiers, the one ``read_csv`` option string,
required-column checks and the line of the first bad row."""
from __future__ import annotations

import csv
from pathlib import Path

import duckdb

from ...errors import InputError

# Every CSV is read with all columns as text (values are converted in SQL, exactly) and
# columns are matched by header name. Ragged rows are padded so that a short last row is
# reported by the reader's own checks with its line, not as a parser error.
READ_CSV = ("read_csv(?, header = true, all_varchar = true, delim = ',', quote = '\"', escape = '\"', "
            "strict_mode = false, null_padding = true)")


def read_header(path: Path) -> list[str]:
    """The CSV header cells, BOM and blanks stripped.

    Raises:
        InputError: empty file or unreadable.
    """
    try:
        with open(path, newline="", encoding="utf-8-sig", errors="replace") as f:
            row = next(csv.reader(f), None)
    except (OSError, csv.Error) as e:
        raise InputError(f"cannot read the header: {e}", file=str(path), place="line 1") from e
    if not row or not any(c.strip() for c in row):
        raise InputError("file is empty (no header line).", file=str(path), place="line 1")
    return [c.strip() for c in row]


def ident(name: str) -> str:
    """A column name as a quoted SQL identifier."""
    return '"' + name.replace('"', '""') + '"'


def printable(text: str, limit: int = 40) -> str:
    """Header text safe to echo in a one-line message: control characters (terminal escapes)
    replaced by ``?``, cut to ``limit`` characters."""
    clean = "".join(c if c.isprintable() else "?" for c in text)
    return clean if len(clean) <= limit else clean[:limit - 1] + "…"


def require_columns(header: list[str], path: Path, required, what: str) -> None:
    """Raise InputError naming the missing columns (matched by exact name) of a ``what`` file."""
    missing = [c for c in required if c not in header]
    if missing:
        raise InputError(f"missing column(s) {', '.join(repr(m) for m in missing)}; header has "
                         f"{len(header)} columns starting {', '.join(printable(h) for h in header[:4])}.",
                         file=str(path), place="line 1",
                         hint=f"is this a {what} written by torch_npu or MindSpore?")


def first_bad_line(con: duckdb.DuckDBPyConnection, read_path: str, bad_sql: str) -> str | None:
    """``'line N'`` of the first data row for which ``bad_sql`` (SQL over the raw text columns)
    is true; None if none or the file cannot be read again. Slow path: errors only."""
    try:
        row = con.cursor().execute(f"""
            SELECT line FROM (SELECT row_number() OVER () + 1 AS line, ({bad_sql}) AS bad FROM {READ_CSV})
            WHERE bad ORDER BY line LIMIT 1
        """, [read_path]).fetchone()
    except duckdb.Error:
        row = None
    return f"line {row[0]}" if row else None
