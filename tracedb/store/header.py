"""The documentation block at the top of a library SQL file (``-- name — summary`` and sections
such as ``Grain:``), split into its summary and sections: what ``tracedb views`` and
``tracedb describe`` show, read without the SQL parser."""
from __future__ import annotations

import re
from dataclasses import dataclass

_SECTION = re.compile(r"^([A-Z][A-Za-z]*(?: [A-Za-z]+)?):\s+(.*)$")


@dataclass
class Header:
    """The documentation block of a SQL file: summary line(s) and named sections."""

    summary: str
    sections: dict[str, str]


def parse_header(lines: list[str] | str | None) -> Header:
    """Split a header into its summary (text after ``—`` up to the first section) and sections.

    Args:
        lines: the header's lines, the text after ``--`` (a section line has one
            leading space at most, a continuation line is indented), or the header as one text.

    >>> h = parse_header(["x — one line", "  and more.", "Grain: one row", "       per step.", "Units: ns"])
    >>> h.summary, h.sections["Grain"], h.sections["Units"]
    ('one line and more.', 'one row per step.', 'ns')
    """
    if isinstance(lines, str) or lines is None:
        lines = (lines or "").splitlines()
    summary: list[str] = []
    sections: dict[str, list[str]] = {}
    current: list[str] = summary
    for raw in lines:
        m = _SECTION.match(raw[1:] if raw.startswith(" ") else raw)
        if m and not raw.startswith("  "):
            current = sections.setdefault(m.group(1), [])
            current.append(m.group(2).strip())
        elif raw.strip():
            current.append(raw.strip())
    text = " ".join(summary)
    text = text.split("—", 1)[1].strip() if "—" in text else text
    return Header(text, {k: " ".join(v) for k, v in sections.items()})
