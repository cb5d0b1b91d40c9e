"""Exact microsecond-text to integer-nanosecond SQL expressions, shared by every ingestor.

Profilers write epoch microseconds with 3 decimals ("1736412474730135.222"). A float64 has
a 0.25 µs step at that magnitude, so the text is parsed as DECIMAL(38, 3) and scaled to
BIGINT ns: exact for up to 3 decimals, rounded half away from zero beyond. Values that are
not plain decimals (exponent notation from a JSON number) fall back to DOUBLE.

>>> us_text_to_ns("ts")  # doctest: +ELLIPSIS
'CASE WHEN trim(...
"""
from __future__ import annotations

# characters profilers pad numbers with: torch_npu/CANN append a TAB, some CSVs CR.
_STRIP = "' ' || chr(9) || chr(13) || chr(10) || chr(34)"


def clean_text(expr: str) -> str:
    """SQL: the text of ``expr`` with surrounding blanks, TAB, CR/LF and quotes removed;
    NULL for '', 'N/A', 'NA', 'NULL', 'None' and '-'."""
    t = f"trim(CAST({expr} AS VARCHAR), {_STRIP})"
    return f"CASE WHEN upper({t}) IN ('', 'N/A', 'NA', 'NULL', 'NONE', '-') THEN NULL ELSE {t} END"


def us_text_to_ns(expr: str) -> str:
    """SQL: microseconds in a CSV cell or JSON value (text, maybe TAB/quote-padded, maybe N/A)
    → BIGINT ns, exact for decimal text; NULL for N/A, blanks and non-numbers."""
    return json_us_to_ns(f"trim(CAST({expr} AS VARCHAR), {_STRIP})")


def json_us_to_ns(expr: str) -> str:
    """SQL: microseconds as DuckDB's JSON reader hands them over (string ts "…123.456" or a number
    printed as text) → BIGINT ns. Exact DECIMAL(38, 3) parse; only values that are not plain
    decimals (exponent notation) take the DOUBLE path. Leaner than :func:`us_text_to_ns`
    (no trimming), which matters at 5 M events per GB."""
    d = f"TRY_CAST(TRY_CAST({expr} AS DECIMAL(38, 3)) * 1000 AS BIGINT)"
    return (f"CASE WHEN {expr} IS NULL THEN NULL WHEN {d} IS NOT NULL THEN {d} "
            f"ELSE TRY_CAST(round(TRY_CAST({expr} AS DOUBLE) * 1000) AS BIGINT) END")


def scaled_text_to_int(expr: str, factor: int) -> str:
    """SQL: a decimal number in some unit (text) times ``factor`` -> BIGINT, exact to 3 decimals
    of the unit (e.g. MB x 1048576 -> bytes, 10 ns ticks x 10 -> ns)."""
    t = clean_text(expr)
    return (f"COALESCE(TRY_CAST(round(TRY_CAST({t} AS DECIMAL(38, 6)) * {factor}) AS BIGINT), "
            f"TRY_CAST(round(TRY_CAST({t} AS DOUBLE) * {factor}) AS BIGINT))")


def int_text(expr: str) -> str:
    """SQL: an integer-valued cell (text) -> BIGINT, NULL for N/A and blanks."""
    return f"TRY_CAST(TRY_CAST(trim(CAST({expr} AS VARCHAR), {_STRIP}) AS DOUBLE) AS BIGINT)"
