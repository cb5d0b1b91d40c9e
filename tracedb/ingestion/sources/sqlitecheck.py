"""The kinds of value a column of an SQLite input may hold, and the SQL that checks them.

A reader names each column it reads with a :class:`Col` (its kind: an integer, a time in ns,
a number, text ...); :mod:`.sqlitesource` builds the SELECT from these expressions: SQLite
hands over each value as it crosses into Arrow, a bad one marked (``value_sql``), the slow
path finds a bad value's row with ``ok_sql``, and DuckDB turns the staged column back into its
type (``duck_value``).
"""
from __future__ import annotations

from typing import NamedTuple

from .csvsource import NS_LIMIT
from .errors import printable

MAX_TEXT_BYTES = 1 << 20     # longest text value read (1 MiB; the longest in real files is ~2 KB)
MAX_NUMBER = 9e12            # |value| of a number column (ms x 10^6 still fits BIGINT ns)


class Col(NamedTuple):
    """One column of a checked read: the output ``name``, the source ``column`` of the table
    read (None for ``sql``, an expression taken as it is: a literal, a joined string of a
    table checked before) and the ``kind`` of value expected.

    Kinds: ``int`` (an integer or NULL), ``ns`` (an integer time within ±2^62 ns),
    ``int_text`` (an integer, or text SQLite reads back as the same integer: torch_npu writes
    PYTORCH_API times into TEXT columns), ``ns_text`` (the same within ±2^62), ``number`` (an
    integer or a real within ±``limit``, default :data:`MAX_NUMBER`, crossing as text), ``text``
    (text or a number, at most :data:`MAX_TEXT_BYTES` bytes, crossing as ``''`` / ``'s'`` +
    text), ``sql``. Each value is checked once, as it crosses (:func:`value_sql`). The integer
    kinds cross as integers (a bad integer text as :data:`BAD_INTEGER`): the driver types a
    column int64 only when every value of its first batch is an integer (or NULL), and refuses
    another type in a later batch; a column of another type, a NULL where ``required``, or a
    time beyond ±2^62 sends the read to :meth:`SqliteInput._find_bad`, which names the first
    bad row. The text kinds are checked in the SELECT, text before it is read (its length); a
    bad one crosses as NULL, which names its row.
    """

    name: str
    column: str | None
    kind: str
    sql: str | None = None
    limit: float | None = None
    required: bool = False        # NULL refused too (a kernel's start, ...)
    none: int | None = None       # an integer the writer means as "none" (CANN's UINT32_MAX): staged as NULL


EXPECTED = {
    "int": "an integer",
    "ns": "an integer time in ns within ±2^62 (year 2116)",
    "int_text": "an integer",
    "ns_text": "an integer time in ns within ±2^62 (year 2116)",
    "number": "a number within ±{limit:.0e}",
    "text": f"text of at most {MAX_TEXT_BYTES >> 20} MiB",
}
TEXT_KINDS = ("text", "number")


def quote(name: str) -> str:
    """An SQL identifier (SQLite and DuckDB): ``name`` in double quotes."""
    return '"' + name.replace('"', '""') + '"'


def ok_sql(v: str, kind: str, limit: float | None = None, required: bool = False) -> str:
    """SQLite: true when value ``v`` is of ``kind`` (short-circuit order: the type first, so a
    long text is never read to test it)."""
    if required:
        return f"({v} IS NOT NULL AND {ok_sql(v, kind, limit)})"
    lim = f"{v} > -{NS_LIMIT} AND {v} < {NS_LIMIT}"
    int_text = (f"typeof({v}) = 'text' AND octet_length({v}) <= 20 "
                f"AND CAST(CAST({v} AS INTEGER) AS TEXT) = {v}")
    if kind == "int":
        return f"typeof({v}) IN ('integer', 'null')"
    if kind == "ns":
        return f"({v} IS NULL OR (typeof({v}) = 'integer' AND {lim}))"
    if kind == "int_text":
        return f"({v} IS NULL OR typeof({v}) = 'integer' OR ({int_text}))"
    if kind == "ns_text":
        return f"({v} IS NULL OR ((typeof({v}) = 'integer' OR ({int_text})) AND CAST({v} AS INTEGER) > -{NS_LIMIT} " \
               f"AND CAST({v} AS INTEGER) < {NS_LIMIT}))"
    if kind == "number":
        bound = f"{limit or MAX_NUMBER:.0f}"
        return f"({v} IS NULL OR (typeof({v}) IN ('integer', 'real') AND {v} > -{bound} AND {v} < {bound}))"
    if kind == "text":
        return f"({v} IS NULL OR (typeof({v}) IN ('text', 'integer', 'real') AND octet_length({v}) <= {MAX_TEXT_BYTES}))"
    raise ValueError(kind)


# integer kinds: checked in Arrow (the driver's type check, then pyarrow's), a bad value found
# again in SQLite to name it
FAST_KINDS = ("int", "ns", "int_text", "ns_text")
BAD_INTEGER = "0.5"            # what a bad int_text / ns_text value crosses as: no integer


def value_sql(v: str, kind: str, limit: float | None = None, required: bool = False) -> str:
    """SQLite: the value as it crosses into Arrow, the check evaluated once per value.

    ``int`` / ``ns`` cross as they are; ``int_text`` / ``ns_text`` as an integer, a bad one as
    :data:`BAD_INTEGER` (the column is then no integer column: pyarrow's check, or the
    driver's, sends the read to the slow path that names the row); the text kinds as ``''``
    (NULL) or ``'s'`` + the value, a bad one as NULL (a NULL where ``required``)."""
    if kind in ("int", "ns"):
        return v
    if kind in ("int_text", "ns_text"):
        return (f"CASE WHEN typeof({v}) IN ('integer', 'null') THEN {v} WHEN typeof({v}) = 'text' "
                f"AND octet_length({v}) <= 20 AND CAST(CAST({v} AS INTEGER) AS TEXT) = {v} THEN CAST({v} AS INTEGER) "
                f"ELSE {BAD_INTEGER} END")
    null = "NULL" if required else "''"
    return f"CASE WHEN {v} IS NULL THEN {null} WHEN {ok_sql(v, kind, limit)} THEN 's' || {v} END"


def duck_value(col: str, kind: str, duck_type: str, none: int | None = None) -> str:
    """DuckDB: a staged column back to its value of ``duck_type`` (text kinds lose their 's';
    an integer equal to ``none`` becomes NULL)."""
    q = quote(col)
    if kind in TEXT_KINDS:
        return f"CAST(CASE WHEN {q} <> '' THEN substr({q}, 2) END AS {duck_type})"
    if none is not None:
        return f"CAST(nullif({q}, {int(none)}) AS {duck_type})"
    return f"CAST({q} AS {duck_type})"


def describe(typ: str, size, text) -> str:
    """A bad value in words: ``the text 'abc'``, ``a real 2.5``, ``a blob of 2 bytes`` ..."""
    if typ == "text":
        if text is None:
            return f"a text of {size:,} bytes"
        return f"the text {printable(text)!r}"
    if typ == "blob":
        return f"a blob of {size:,} bytes"
    if typ == "real":
        return f"the real number {text}"
    if typ == "integer":
        return f"the integer {text}"
    return "NULL"     # a required value


def lit(text: str) -> str:
    """An SQL string literal."""
    return "'" + text.replace("'", "''") + "'"
