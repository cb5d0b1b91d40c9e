"""Exact microsecond-text to integer-nanosecond SQL expressions, shared by every ingestor.

Profilers write epoch microseconds with 3 decimals ("1736412474730135.222"). A float64 has
a 0.25 µs step at that magnitude, so the text is parsed as DECIMAL(38, 3) and scaled to
BIGINT ns: exact for up to 3 decimals, rounded half away from zero beyond. Values that are
not plain decimals (exponent notation from a JSON number) fall back to DOUBLE.

>>> import duckdb
>>> duckdb.connect().execute(f"SELECT {us_text_to_ns('x')} FROM (SELECT '1700000000123481.664' || chr(9) AS x)").fetchone()
(1700000000123481664,)
"""
from __future__ import annotations

# characters profilers pad numbers with: torch_npu/CANN append a TAB, some CSVs CR. One SQL
# literal holding blank, TAB, CR, LF and '"' (not chr(9) || …): a cell's conversion repeats it
# dozens of times, and every concatenation is folded again at planning (measured: planning a
# 10-column step_trace_time INSERT took 0.47 CPU s with the concatenation, 0.25 s with the literal).
_STRIP = "' \t\r\n\"'"


_NULL_WORDS = ("", "N/A", "NA", "NULL", "NONE", "-")
# the words as one case-insensitive full-match pattern ('' is the empty alternative)
_NULL_WORD_RE = "(?i)" + "|".join(w.lower() for w in _NULL_WORDS)
_NULL_WORD_MAX = max(len(w) for w in _NULL_WORDS)


def trim_text(expr: str) -> str:
    """SQL: the text of ``expr`` with surrounding blanks, TAB, CR/LF and quotes removed."""
    return f"trim(CAST({expr} AS VARCHAR), {_STRIP})"


def _text(expr: str, trimmed: bool) -> str:
    return expr if trimmed else trim_text(expr)


def clean_text(expr: str, trimmed: bool = False) -> str:
    """SQL: the text of ``expr`` with surrounding blanks, TAB, CR/LF and quotes removed;
    NULL for '', 'N/A', 'NA', 'NULL', 'None' and '-'. ``trimmed``: ``expr`` is text trimmed
    already (:func:`trim_text`, e.g. :meth:`tracedb.ingestion.sources.csvsource.CsvFile.cell`).

    The words are matched by one ``regexp_full_match`` (case-insensitive), not ``IN (...)``:
    DuckDB turns an IN list of six constants (and list_contains) into a hash join, and a join
    gives up the file order of the rows it passes, which kernel_details.csv's kernel_id is
    taken from (355 k of 456 k kernels out of order on a 116 MB file). One function call plans
    in a fraction of the time of the six-comparison OR chain it replaces (a cell's check is in
    every numeric column of every CSV INSERT) and runs no slower. Only cells of at most 4
    characters (the longest word) are matched."""
    t = _text(expr, trimmed)
    # the words are at most 4 characters long: the length test spares the regex every number
    # cell (45 ns a cell against 5, measured on 5 M cells)
    return f"CASE WHEN length({t}) <= {_NULL_WORD_MAX} AND regexp_full_match({t}, '{_NULL_WORD_RE}') THEN NULL ELSE {t} END"


def us_text_to_ns(expr: str, compact: bool = False, trimmed: bool = False) -> str:
    """SQL: microseconds in a CSV cell or JSON value (text, maybe TAB/quote-padded, maybe N/A)
    → BIGINT ns, exact for decimal text; NULL for N/A, blanks and non-numbers.

    ``compact``: the same values from an expression a quarter the size, with no integer
    shortcut (paths 2 and 3 of :func:`json_us_to_ns`), for small files: there planning the
    INSERT is the cost (a 10-column step_trace_time.csv: 0.080 → 0.018 CPU s), while over
    millions of cells the shortcut saves more than planning costs. ``trimmed``: as in
    :func:`clean_text`."""
    x = _text(expr, trimmed)
    return _exact_us_to_ns(x) if compact else json_us_to_ns(x)


def _exact_us_to_ns(x: str) -> str:
    """SQL: paths 2 and 3 of :func:`json_us_to_ns` alone (DECIMAL(38, 3), else DOUBLE)."""
    return (f"coalesce(TRY_CAST(TRY_CAST({x} AS DECIMAL(38, 3)) * 1000 AS BIGINT), "
            f"TRY_CAST(round(TRY_CAST({x} AS DOUBLE) * 1000) AS BIGINT))")


def json_us_to_ns(expr: str) -> str:
    """SQL: microseconds as DuckDB's JSON reader hands them over (string ts "…123.456" or a number
    printed as text) → BIGINT ns, exact. No trimming (see :func:`us_text_to_ns`).

    Three paths, each taken only where the previous one gave NULL:

    1. digits with at most 3 decimals: drop the point, append zeros to 3 decimals, cast to
       BIGINT (integer work only). Accepted only where it agrees with the float parse to 1e-9
       relative, which rejects what the shortcut misreads (padding, several points).
    2. exact DECIMAL(38, 3) parse (more than 3 decimals round half away from zero).
    3. DOUBLE, for what DECIMAL does not read.

    Path 1 is ~4× cheaper than the DECIMAL(38, 3) parse (a 128-bit decimal) and is what
    every profiler writes; it matters at 5 M events per GB (measured: 2.7 s → 0.75 s for ts
    and dur of 5.3 M events on 2 threads)."""
    return ns_from_parts(expr, *us_to_ns_parts(expr))


def us_to_ns_parts(x: str) -> tuple[str, str]:
    """SQL: (path 1 of :func:`json_us_to_ns`, the DOUBLE ns it is checked against) for the
    text ``x``, to be computed as two columns of one projection and combined in the next by
    :func:`ns_from_parts`: the conversion then names each once (a statement's planning grows
    with the copies of an expression, and planning is most of a small file's INSERT)."""
    digits = f"replace({x}, '.', '')"
    shortcut = (f"CASE strpos({x}, '.') WHEN 0 THEN TRY_CAST({x} || '000' AS BIGINT) "
                f"WHEN length({x}) - 3 THEN TRY_CAST({digits} AS BIGINT) "
                f"WHEN length({x}) - 2 THEN TRY_CAST({digits} || '0' AS BIGINT) "
                f"WHEN length({x}) - 1 THEN TRY_CAST({digits} || '00' AS BIGINT) END")
    return shortcut, f"(TRY_CAST({x} AS DOUBLE) * 1000)"


def ns_from_parts(x: str, shortcut: str, approx: str) -> str:
    """SQL: :func:`json_us_to_ns` of the text ``x`` from its :func:`us_to_ns_parts` (given as
    expressions or as the columns holding them)."""
    return (f"coalesce(CASE WHEN abs(({shortcut}) - {approx}) <= abs({approx}) * 1e-9 + 1 THEN {shortcut} END, "
            f"{_exact_us_to_ns(x)})")


def int_text(expr: str, trimmed: bool = False) -> str:
    """SQL: an integer-valued cell (text) -> BIGINT, NULL for N/A and blanks. ``trimmed``: as
    in :func:`clean_text`."""
    return f"TRY_CAST(TRY_CAST({_text(expr, trimmed)} AS DOUBLE) AS BIGINT)"
