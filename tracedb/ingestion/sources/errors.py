"""DuckDB read errors → one-line :class:`~tracedb.errors.InputError` naming the file and place."""
from __future__ import annotations

import re

from ...engine import duckdb

from ...errors import InputError, TracedbError, out_of_memory

# largest single JSON event DuckDB is asked to accept (Call stack args can be large). DuckDB
# reserves twice this per reading thread, so keep it moderate.
MAX_OBJECT = 32 << 20


def printable(text: str, limit: int = 40) -> str:
    """Text from an input file (a header cell, a value) safe to echo in a one-line message:
    control characters (terminal escapes, line breaks) replaced by ``?``, cut to ``limit``
    characters."""
    clean = "".join(c if c.isprintable() else "?" for c in text)
    return clean if len(clean) <= limit else clean[:limit - 1] + "…"


def translate_read_error(e: duckdb.Error, file: str) -> TracedbError:
    """A DuckDB read_json/read_csv error → one-line InputError naming the file and the place
    (out of memory: a TracedbError naming the setting, as the file is not at fault)."""
    if (oom := out_of_memory(e, file)) is not None:
        return oom
    msg = str(e)
    m = re.search(r"at byte (\d+) in record/value (\d+)", msg)
    if m:
        place = f"event {int(m.group(2)):,}, byte {int(m.group(1))} of it"
    else:
        m = re.search(r"at byte (\d+)", msg)
        place = f"byte {int(m.group(1))}" if m else None
    if place is None:
        m = re.search(r"[Ll]ine:? (\d+)", msg)
        place = f"line {m.group(1)}" if m else None
    first = msg.splitlines()[0] if msg else type(e).__name__
    first = re.sub(r"^[\w ]+ Error: ", "", first)
    first = re.sub(r' in file "[^"]*"', "", first)
    first = re.sub(r", at byte \d+( in record/value \d+)?", "", first)
    first = re.sub(r"\s*\(.*maximum_object_size.*\)", "", first)
    if "maximum_object_size" in msg or "object that is too large" in msg:
        first = f"an event is larger than {MAX_OBJECT >> 20} MiB, or the JSON is malformed"
    return InputError(f"cannot parse: {printable(first.strip(), 200)}", file=file, place=place,
                      hint="the file may be truncated or not a trace; re-export it from the profiler.")
