"""Numbers as words for the findings: durations, shares, sizes, step lists, and the text wrapped at
words. Nothing here returns "None": an unknown value reads as "unknown"."""
from __future__ import annotations

import re
import textwrap
from typing import Iterable

MINUS = "−"
NBSP = "\u00a0"
# a number and its unit stay on one line when the text is wrapped
_UNIT = re.compile(r"(?<=\d) (?=(?:%|ms|µs|ns|s|B|kB|MB|GB|GiB|GB/s|TFLOPS)(?:\W|$))")


def duration(ns) -> str:
    """A duration in the unit that reads best: 1.23 s, 157.2 ms, 0.94 ms, 72 µs, 850 ns."""
    if ns is None:
        return "unknown"
    a = abs(ns)
    for limit, div, unit, digits in ((10 ** 10, 1e9, "s", 1), (10 ** 9, 1e9, "s", 2), (10 ** 7, 1e6, "ms", 1),
                                     (10 ** 5, 1e6, "ms", 2), (10 ** 3, 1e3, "µs", 0)):
        if a >= limit:
            return f"{ns / div:,.{digits}f} {unit}".replace("-", MINUS)
    return f"{int(ns)} ns".replace("-", MINUS)


def signed_duration(ns) -> str:
    """A difference: +0.80 ms, −32.6 ms."""
    if ns is None:
        return "unknown"
    return ("+" if ns >= 0 else "") + duration(ns)


def pct(ratio) -> str:
    """A 0–1 share as a percentage: 39 %, 6.6 %, 0.3 %, < 0.1 %."""
    if ratio is None:
        return "unknown %"
    p = 100 * ratio
    if p == 0:
        return "0 %"
    if abs(p) >= 10:
        return f"{p:.0f} %"
    return f"{p:.1f}".removesuffix(".0") + " %" if abs(p) >= 0.1 else "< 0.1 %"


def pct_range(ratios: Iterable[float]) -> str:
    """The range of some shares: 38–42 %, or 39 % when they round alike."""
    values = [r for r in ratios if r is not None]
    if not values:
        return "unknown %"
    lo, hi = pct(min(values)), pct(max(values))
    return lo if lo == hi else f"{lo.removesuffix(' %')}–{hi}"


def ratio_x(r) -> str:
    """A ratio as a factor: 2.04×."""
    return "unknown" if r is None else f"{r:.2f}×"


def size(n_bytes) -> str:
    """Bytes in decimal units, as copy sizes are usually quoted: 19.3 MB, 512 B."""
    if n_bytes is None:
        return "unknown size"
    for limit, unit in ((1e9, "GB"), (1e6, "MB"), (1e3, "kB")):
        if abs(n_bytes) >= limit:
            return f"{n_bytes / limit:,.1f} {unit}"
    return f"{int(n_bytes)} B"


def gib(n_bytes) -> str:
    """Memory in GiB: 2.06 GiB."""
    return "unknown" if n_bytes is None else f"{n_bytes / 2 ** 30:,.2f} GiB"


def count(n, word: str, plural: str | None = None) -> str:
    """1 rank, 2 ranks, 1,092 kernels (a count that is not whole keeps two decimals)."""
    if n is None:
        return f"an unknown number of {plural or word + 's'}"
    whole = float(n).is_integer()
    text = f"{int(n):,}" if whole else f"{float(n):,.2f}".rstrip("0").rstrip(".")
    return f"{text} {word if whole and int(n) == 1 else (plural or word + 's')}"


def steps(numbers: Iterable[int | None]) -> str:
    """Step numbers as runs: "step 5", "steps 5–10", "steps 1, 3 and 5–7"."""
    nums = sorted({n for n in numbers if n is not None})
    if not nums:
        return "the capture"
    runs: list[list[int]] = []
    for n in nums:
        if runs and n == runs[-1][1] + 1:
            runs[-1][1] = n
        else:
            runs.append([n, n])
    parts = [str(a) if a == b else f"{a}–{b}" for a, b in runs]
    label = "step" if len(nums) == 1 else "steps"
    return f"{label} {parts[0]}" if len(parts) == 1 else f"{label} {', '.join(parts[:-1])} and {parts[-1]}"


def names(items: list[str], limit: int = 3) -> str:
    """A short list: "a, b and c", "a, b, c and 4 more"."""
    items = [i for i in items if i]
    if len(items) > limit:
        return f"{', '.join(items[:limit])} and {len(items) - limit} more"
    return items[0] if len(items) == 1 else f"{', '.join(items[:-1])} and {items[-1]}" if items else "none"


def short(name: str | None, width: int = 60) -> str:
    """A long kernel or op name cut at ``width`` characters with an ellipsis."""
    if name is None:
        return "an unnamed event"
    return name if len(name) <= width else name[: width - 1] + "…"


def wrap(text: str, width: int, indent: str, subsequent: str | None = None) -> str:
    """``text`` wrapped at words (never inside a word, a name, at a hyphen or between a number and
    its unit) to ``width``."""
    return textwrap.fill(_UNIT.sub(NBSP, text), width=max(width, len(indent) + 20), initial_indent=indent,
                         subsequent_indent=indent if subsequent is None else subsequent,
                         break_long_words=False, break_on_hyphens=False).replace(NBSP, " ")
