"""Declarative raw field → table column maps, one module per input format (data, not code).

Each module maps a table column to a :class:`Field`: the raw names the profilers write (CSV
header cells or JSON keys, preferred first), how the text is converted, and the first
profiler version known to write it (formats.md and the corpus; None where it is in every
known version or not known). Readers take every raw name from these maps, never inline.
The idea is HolisticTraceAnalysis' ``event_args_*.yaml`` (``min_supported_version``).

Kinds (the conversion a reader applies):

* ``text``: as written (trimmed); ``int``: integer cell, N/A/empty → NULL;
* ``us``: microseconds → exact integer ns; ``ms``: milliseconds → exact integer ns;
* ``ticks``: 10 ns device-counter ticks → integer ns;
* ``kb``/``mb``: KB (1024 B) / MB (1024² B, or MindSpore's 1 024 000 B) → exact bytes;
* ``mb_decimal``: decimal MB (10⁶ B) → bytes; ``ratio``: a plain number (float);
* ``shape``: text with the literal quotes removed; ``json``: a JSON document in a cell.
"""
from __future__ import annotations

from typing import NamedTuple


class Field(NamedTuple):
    """One raw field: ``names`` accepted (preferred first), ``kind`` of conversion, ``since``
    the first profiler version known to write it, ``required`` whether a file without it is
    refused."""

    names: tuple[str, ...]
    kind: str
    since: str | None = None
    required: bool = False

    @property
    def name(self) -> str:
        """The preferred (current) raw name."""
        return self.names[0]

    def find(self, header) -> str | None:
        """The first of ``names`` present in ``header`` (CSV cells or JSON keys), else None."""
        present = set(header)
        return next((n for n in self.names if n in present), None)


def missing(fields: dict[str, Field], header) -> list[str]:
    """Preferred names of the required fields none of whose names is in ``header``."""
    return [f.name for f in fields.values() if f.required and f.find(header) is None]
