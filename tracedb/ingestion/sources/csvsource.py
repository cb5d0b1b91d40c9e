"""CSV inputs: the header, column names as SQL identifiers, the one ``read_csv`` option set,
truncation and required-column checks, number checks and the one translation of CSV read
errors into an :class:`~tracedb.errors.InputError` naming the file and the line.

Every CSV is read by DuckDB with the columns named from the header (no sniffing: a sniffer
that guesses from the first rows refuses a file with one odd row with a message about
"dialects"), all as text (values are converted in SQL, exactly). The parser is strict:
an unterminated quote or a row with more or fewer cells than the header is an error with its
line (a lost line break merges two rows, a lost comma shifts every later cell of its row:
padding would silently drop a row or turn it into NULLs); a file cut inside its last row is
refused as truncated (:func:`check_complete`). The text must be UTF-8 without NUL bytes
(:func:`check_text`, every byte: DuckDB checks only the columns a reader uses).
"""
from __future__ import annotations

import codecs
import csv
import os
import re
import shutil
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

from ...engine import duckdb, execute

from ...errors import InputError
from ...timeconv import clean_text, trim_text
from .errors import printable, translate_read_error
from . import tempdirs
from .paths import literal_path

OPTIONS = ("header = true, auto_detect = false, delim = ',', quote = '\"', escape = '\"', "
           "strict_mode = true, null_padding = false")
TAIL = 1 << 16                   # bytes read from the end of a file to check its last row
COMPACT_BYTES = 4 << 20          # files below this size get compact conversions (timeconv.us_text_to_ns)
BAD_CELL = "tracedb-bad-cell:"   # prefix of the error() raised by a cell check, then the column name
LINE_MARK = " @line "            # then, where the check knows it, the line


# times beyond ±2^62 ns (year 2116) are refused: a start plus a duration must fit in BIGINT,
# else the derive step fails with an overflow that names no file
NS_LIMIT = 1 << 62


def ns_in_range(expr: str) -> str:
    """SQL: ``expr`` (BIGINT ns) where its magnitude is below :data:`NS_LIMIT`, else NULL."""
    return f"(CASE WHEN abs({expr}) < {NS_LIMIT} THEN {expr} END)"


def read_header(path: Path) -> list[str]:
    """The CSV header cells, BOM and blanks stripped.

    Raises:
        InputError: empty file or unreadable.
    """
    try:
        with open(path, newline="", encoding="utf-8-sig", errors="replace") as f:
            row = next(csv.reader(f), None)
    except (OSError, csv.Error) as e:
        raise InputError(f"cannot read the header: {printable(str(e), 80)}", file=str(path), place="line 1") from e
    if not row or not any(c.strip() for c in row):
        raise InputError("file is empty (no header line).", file=str(path), place="line 1")
    return [c.strip() for c in row]


def column_names(header: list[str]) -> list[str]:
    """Unique column names for ``read_csv``: the header cells, a repeated name numbered
    (``x``, ``x_1``), an empty one ``column{i}``. Readers look columns up by the first name."""
    seen, out = set(), []
    for i, name in enumerate(header):
        base = name or f"column{i}"
        name, k = base, 0
        while name in seen:
            k += 1
            name = f"{base}_{k}"
        seen.add(name)
        out.append(name)
    return out


def read_csv(header: list[str], param: str = "?") -> str:
    """The ``read_csv(…)`` table function call for a file with ``header``; ``param`` is the
    placeholder of the (literal) path."""
    cols = ", ".join(f"'{n.replace(chr(39), chr(39) * 2)}': 'VARCHAR'" for n in column_names(header))
    return f"read_csv({param}, columns = {{{cols}}}, {OPTIONS})"


def ident(name: str) -> str:
    """A column name as a quoted SQL identifier."""
    return '"' + name.replace('"', '""') + '"'


def require_columns(header: list[str], path: Path, required, what: str) -> None:
    """Raise InputError naming the missing columns (matched by exact name) of a ``what`` file."""
    missing = [c for c in required if c not in header]
    if missing:
        raise InputError(f"missing column(s) {', '.join(repr(m) for m in missing)}; header has "
                         f"{len(header)} columns starting {', '.join(printable(h) for h in header[:4])}.",
                         file=str(path), place="line 1",
                         hint=f"is this a {what} written by torch_npu or MindSpore?")


def line_count(path: Path) -> int:
    """Number of lines of a file (a last line without a line break counts). Slow path only."""
    n, last, cr_only = 0, b"", True
    with open(path, "rb") as f:
        while chunk := f.read(1 << 22):
            n += chunk.count(b"\n")
            cr_only = cr_only and b"\n" not in chunk
            last = chunk[-1:]
    if cr_only:
        with open(path, "rb") as f:
            n = f.read().count(b"\r")
    return n + (1 if last not in (b"\n", b"\r", b"") else 0)


def check_complete(path: Path, header: list[str]) -> None:
    """Refuse a CSV that was cut: its last byte is not a line break, or its last row has fewer
    cells than the header (a cut right after a comma or a line break inside a row).

    Raises:
        InputError: naming the last line.
    """
    size = path.stat().st_size
    with open(path, "rb") as f:
        f.seek(max(0, size - TAIL))
        tail = f.read()
    if not tail.endswith((b"\n", b"\r")):
        raise InputError("the file is truncated: its last line does not end with a line break.", file=str(path),
                         place=f"line {line_count(path)}", hint="copy or export the file again.")
    lines = [ln for ln in re.split(rb"\r\n|\n|\r", tail.rstrip(b"\r\n")) if ln.strip()]
    if len(lines) < 2 and size > len(tail):
        return                      # one very long last line: DuckDB checks its cells
    if len(lines) <= 1 and size <= len(tail):
        return                      # the header only
    try:
        cells = next(csv.reader([lines[-1].decode("utf-8", "replace")]), [])
    except csv.Error:
        return                      # a line break inside quotes: DuckDB reports it
    if len(cells) < len(header):
        raise InputError(f"the file is truncated: its last row has {len(cells)} of the header's {len(header)} "
                         "cells.", file=str(path), place=f"line {line_count(path)}",
                         hint="copy or export the file again.")


def check_text(path: Path) -> None:
    """Refuse a CSV holding a NUL byte or bytes that are not UTF-8, anywhere (DuckDB checks
    only the columns a reader reads, and keeps a NUL inside a cell). One pass in 4 MiB chunks:
    an ASCII chunk costs a memchr-speed test, others go through Python's UTF-8 decoder.

    Raises:
        InputError: naming the line and the byte.
    """
    decoder = codecs.getincrementaldecoder("utf-8")()
    base = 0
    with open(path, "rb") as f:
        while True:
            chunk = f.read(1 << 22)
            nul = chunk.find(b"\0")
            if nul >= 0:
                _bad_text(path, base + nul, "a NUL byte (a CSV holds text)")
            try:
                if chunk and not (chunk.isascii() and not decoder.getstate()[0]):
                    decoder.decode(chunk)
                elif not chunk:
                    decoder.decode(b"", final=True)
            except UnicodeDecodeError as e:
                pending = len(e.object) - len(chunk) if chunk else len(e.object)
                _bad_text(path, base - pending + e.start, "bytes that are not UTF-8 text")
            if not chunk:
                return
            base += len(chunk)


def _bad_text(path: Path, offset: int, what: str) -> None:
    line, left = 1, offset
    with open(path, "rb") as f:
        while left > 0 and (chunk := f.read(min(left, 1 << 22))):
            line += chunk.count(b"\n")
            left -= len(chunk)
    raise InputError(f"the file holds {what}.", file=str(path), place=f"line {line}, byte {offset}",
                     hint="the file was corrupted or is not a profiler CSV; re-export it.")


@dataclass
class CsvFile:
    """One CSV file opened for a reader: ``header``, ``src`` (the path DuckDB reads), the cell
    checks the reader's SQL raises errors from (column → SQL true for a bad cell) and the
    columns it adds to the file's rows, each computed once per row (see :meth:`sql`): cells
    trimmed (:meth:`cell`), cleaned (:meth:`clean`) and converted (:meth:`value`)."""

    path: Path
    header: list[str]
    src: str
    checks: dict[str, str] = field(default_factory=dict)
    trimmed: dict[str, str] = field(default_factory=dict)
    cleaned: dict[str, str] = field(default_factory=dict)
    values: dict[str, str] = field(default_factory=dict)

    @property
    def compact(self) -> bool:
        """Small enough that planning its statement costs more than running it: conversions
        use the compact expressions (:func:`tracedb.timeconv.us_text_to_ns`)."""
        return self.path.stat().st_size < COMPACT_BYTES

    def _alias(self, kind: str, n: int) -> str:
        alias = f"tracedb_{kind}_{n}"
        while alias in self.header:
            alias += "_"
        return alias

    def cell(self, name: str) -> str:
        """SQL: the text of cell ``name`` with surrounding blanks, TAB, CR/LF and quotes removed
        (:func:`tracedb.timeconv.trim_text`), as a column of :meth:`sql` (the raw columns keep
        their names). Call before :meth:`sql`."""
        if name not in self.trimmed:
            self.trimmed[name] = self._alias("trimmed", len(self.trimmed))
        return ident(self.trimmed[name])

    def clean(self, name: str) -> str:
        """SQL: cell ``name`` trimmed, NULL for the empty/N/A words
        (:func:`tracedb.timeconv.clean_text`), as a column of :meth:`sql`. Call before :meth:`sql`."""
        if name not in self.cleaned:
            self.cell(name)
            self.cleaned[name] = self._alias("clean", len(self.cleaned))
        return ident(self.cleaned[name])

    def value(self, expr: str) -> str:
        """SQL: ``expr`` (over the columns of :meth:`cell` and :meth:`clean`, e.g. a cell's
        conversion) as a column of :meth:`sql`, so that a statement naming it twice (a range
        check, then the value) carries it once. Call before :meth:`sql`."""
        if expr not in self.values:
            self.values[expr] = self._alias("value", len(self.values))
        return ident(self.values[expr])

    def sql(self, param: str = "?") -> str:
        """The ``read_csv(…)`` call (``param``: the placeholder the path is bound to), with the
        columns :meth:`cell`, :meth:`clean` and :meth:`value` asked for added, one projection
        each (the rows keep the file order).

        A conversion names its cell several times; computed once per row here, each use is a
        column reference, and the statement is smaller to plan (planning is most of a small
        file's INSERT)."""
        src = read_csv(self.header, param)
        layers = [", ".join(f"{trim_text(ident(c))} AS {ident(a)}" for c, a in self.trimmed.items()),
                  ", ".join(f"{clean_text(ident(self.trimmed[c]), trimmed=True)} AS {ident(a)}"
                            for c, a in self.cleaned.items()),
                  ", ".join(f"{e} AS {ident(a)}" for e, a in self.values.items())]
        for cols in layers:
            if cols:
                src = f"(SELECT *, {cols} FROM {src})"
        return src

    def has(self, name: str) -> bool:
        return name in self.header

    def number(self, column: str, converted: str, raw: str, line: str | None = None) -> str:
        """SQL: ``converted`` (the value of CSV cell ``column``), raising an error naming the
        column where the cell holds text that is neither a number nor an empty/N/A word
        (``raw``: the cell cleaned, NULL for those words). ``line``: SQL giving the line where
        the check cannot be re-run over the raw columns (values inside a JSON cell)."""
        bad = f"({raw}) IS NOT NULL AND ({converted}) IS NULL"
        # coalesce evaluates the error branch only where the conversion gave NULL, and names
        # ``converted`` once: it is a large expression, and planning cost grows with its copies
        return f"coalesce({converted}, CASE WHEN ({raw}) IS NOT NULL THEN {self._error(column, bad, line)} END)"

    def json(self, column: str, line: str) -> str:
        """SQL: CSV cell ``column`` as JSON; a cell that is not a JSON object raises an error
        naming the column and the ``line`` (SQL)."""
        q = ident(column)
        bad = f"coalesce(json_type(TRY_CAST({q} AS JSON)) <> 'OBJECT', true)"
        return f"(CASE WHEN {bad} THEN {self._error(column, bad, line, 'JSON')} ELSE TRY_CAST({q} AS JSON) END)"

    def _error(self, column: str, bad: str, line: str | None, kind: str = "number") -> str:
        """SQL ``error(…)`` call carrying the column, the kind of value expected and the line."""
        msg = "'" + (BAD_CELL + kind + ":" + column).replace("'", "''") + "'"
        if line is None:
            self.checks[column] = bad
        else:
            msg += f" || '{LINE_MARK}' || ({line})"
        return f"error({msg})"


def mixed_line_breaks(path: Path) -> bool:
    """Whether the file ends some lines with CRLF and others with LF. DuckDB's strict parser
    stops on such a file without a line (hand-edited files have them; torch_npu writes CRLF,
    msprof LF). A file without CR (a memchr per chunk) or whose CR count equals its LF count
    is uniform; only otherwise are CRLF pairs counted. A file that fools this (stray CRs
    balancing bare LFs) still fails in DuckDB, whose error :func:`_invalid_state` turns into the
    first odd line."""
    with open(path, "rb") as f:
        if not any(b"\r" in chunk for chunk in iter(lambda: f.read(1 << 22), b"")):
            return False
    cr = lf = 0
    with open(path, "rb") as f:
        while chunk := f.read(1 << 22):
            cr += chunk.count(b"\r")
            lf += chunk.count(b"\n")
    if cr == 0 or cr == lf:
        return False
    crlf = lf = 0
    carry = b""
    with open(path, "rb") as f:
        while chunk := f.read(1 << 22):
            chunk = carry + chunk
            carry = chunk[-1:] if chunk.endswith(b"\r") else b""
            body = chunk[:-1] if carry else chunk
            lf += body.count(b"\n")
            crlf += body.count(b"\r\n")
            if crlf and crlf != lf:
                return True
    return bool(crlf) and crlf != lf


@contextmanager
def open_csv(path: Path, what: str, required=()):
    """Read and check the header and the end of a CSV; yield a :class:`CsvFile`.

    A file with mixed CRLF / LF line breaks is read from a copy with LF only (same lines, so
    the same line numbers in messages). ``required``: column names, or a function of the
    header giving the missing ones (e.g. :func:`tracedb.ingestion.fieldmaps.missing`).

    Raises:
        InputError: empty file, NUL or non-UTF-8 bytes, missing required column, truncated file.
    """
    header = read_header(path)
    check_text(path)
    require_columns(header, path, required(header) if callable(required) else required, what)
    check_complete(path, header)
    if not mixed_line_breaks(path):
        with literal_path(path) as src:
            yield CsvFile(Path(path), header, src)
        return
    folder = tempdirs.make("csv")
    try:
        src = os.path.join(folder, "input.csv")
        with open(path, "rb") as fin, open(src, "wb") as fout:
            fout.write(fin.read().replace(b"\r\n", b"\n"))
        yield CsvFile(Path(path), header, src)
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def run(con: duckdb.DuckDBPyConnection, f: CsvFile, sql: str, params) -> duckdb.DuckDBPyConnection:
    """Execute a statement reading ``f``; any DuckDB error becomes an InputError naming the
    file and, where there is one, the line. The text is parsed once per process
    (:func:`tracedb.engine.execute`): every rank's file with the same header runs the same SQL."""
    try:
        return execute(con, sql, params)
    except duckdb.Error as e:
        raise translate_csv_error(con, f, e) from e


def translate_csv_error(con: duckdb.DuckDBPyConnection, f: CsvFile, e: duckdb.Error) -> InputError:
    """A DuckDB error while reading ``f`` → one-line InputError with file and line."""
    msg = str(e)
    if BAD_CELL in msg:
        column = msg.split(BAD_CELL, 1)[1].splitlines()[0].strip()
        column, _, line = column.partition(LINE_MARK)
        kind, _, column = column.partition(":")
        place = f"line {line}" if line else first_bad_line(con, f, f.checks.get(column, "false"))
        what = "is not a JSON object" if kind == "JSON" else "holds a value that is not a number (or is out of range)"
        return InputError(f"column {printable(column)!r} {what}.", file=str(f.path), place=place,
                          hint="the file was edited or corrupted; re-export it from the profiler.")
    if "invalid state" in msg:
        return _invalid_state(f)
    m = re.search(r"Expected Number of Columns: (\d+) Found: (\d+)", msg)
    line = re.search(r"CSV Error on Line: (\d+)", msg)
    place = f"line {line.group(1)}" if line else None
    if m:
        return InputError(f"the row has {m.group(2)} cells, the header {m.group(1)}.", file=str(f.path),
                          place=place, hint="a line break or a quote was lost or added; re-export the file.")
    if "unterminated quote" in msg:
        return InputError("a quoted cell is not closed.", file=str(f.path), place=place,
                          hint="the file is truncated or corrupted; re-export it.")
    if line and ("unicode" in msg.lower() or "utf" in msg.lower()):
        return InputError("not UTF-8 text.", file=str(f.path), place=place, hint="re-export the file.")
    return translate_read_error(e, str(f.path))


def _invalid_state(f: CsvFile) -> InputError:
    """DuckDB's strict parser stops without a line on mixed line breaks (CRLF and LF, made
    uniform by :func:`open_csv`) or a stray CR inside a line: find the first line whose break
    differs from the header's."""
    with open(f.path, "rb") as fh:
        data = fh.read()
    breaks = re.finditer(rb"\r\n|\n|\r", data)
    first = next(breaks, None)
    n = 1
    for m in breaks:
        n += 1
        if m.group(0) != first.group(0):
            names = {b"\r\n": "CRLF", b"\n": "LF", b"\r": "CR"}
            return InputError(f"mixed line breaks: line 1 ends with {names[first.group(0)]}, line {n} with "
                              f"{names[m.group(0)]}.", file=str(f.path), place=f"line {n}",
                              hint="save the file with one kind of line break (e.g. dos2unix).")
    return InputError("cannot parse the CSV (a quote or line break out of place).", file=str(f.path),
                      hint="the file was edited or corrupted; re-export it from the profiler.")


def first_bad_line(con: duckdb.DuckDBPyConnection, f: CsvFile, bad_sql: str) -> str | None:
    """``'line N'`` of the first data row for which ``bad_sql`` (SQL over the columns of
    ``f.sql()``: the raw text and the trimmed cells) is true; None if none or the file cannot
    be read again. Slow path: errors only (a cursor of its own: the caller's transaction may
    be aborted)."""
    try:
        row = con.cursor().execute(f"""
            SELECT line FROM (SELECT row_number() OVER () + 1 AS line, ({bad_sql}) AS bad FROM {f.sql()})
            WHERE bad ORDER BY line LIMIT 1
        """, [f.src]).fetchone()
    except duckdb.Error:
        row = None
    return f"line {row[0]}" if row else None
