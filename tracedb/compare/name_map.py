"""The op name map of ``tracedb compare``: ``--op-name-map A=B`` items and map files, parsed."""
from __future__ import annotations

from pathlib import Path
from typing import Sequence

from ..errors import TracedbError


def parse_name_map(pairs: Sequence[str] = (), path: str | None = None) -> list[tuple[str, str]]:
    """``A=B`` items (from --op-name-map and the lines of --op-name-map-file; blank lines and
    ``#`` comments skipped) as (baseline_name, comparison_name).

    >>> parse_name_map(["Optimizer.step#SGD.step=Optimizer.step#NpuFusedSGD.step"])
    [('Optimizer.step#SGD.step', 'Optimizer.step#NpuFusedSGD.step')]
    """
    items = [(p, "--op-name-map", None) for p in pairs]
    if path is not None:
        try:
            text = Path(path).read_text()
        except OSError as e:
            raise TracedbError(f"cannot read the op name map: {e.strerror}.", file=path) from e
        items += [(line.strip(), path, n) for n, line in enumerate(text.splitlines(), 1)
                  if line.strip() and not line.strip().startswith("#")]
    out = []
    for item, where, line in items:
        a, sep, b = item.partition("=")
        if not sep or not a.strip() or not b.strip():
            raise TracedbError(f"op name map entry {item!r} is not BASELINE_NAME=COMPARISON_NAME.",
                               file=where if line else None, place=f"line {line}" if line else None,
                               hint="e.g. --op-name-map 'Optimizer.step#SGD.step=Optimizer.step#NpuFusedSGD.step'")
        out.append((a.strip(), b.strip()))
    return out
