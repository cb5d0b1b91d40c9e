r"""Text as a terminal shows it: escapes for what a terminal would act on, and cuts that keep the
part of a name that tells it apart.

Op and kernel names come from the traces, which anyone can write: a name holding an escape
sequence (screen clear, window title, OSC 52 clipboard) or a bidi override must reach the
terminal as visible text, never as the control it would be.

>>> print(visible("MatMul\x1b]52;c;Y21k\x07 \u202egnp.exe\nnext"))
MatMul\x1b]52;c;Y21k\x07 \u202egnp.exe⏎next
>>> cut("sm80_xmma_fprop_implicit_gemm_indexed_f16f16_f16f32_tn_n", 24)
'sm80_xmma…16_f16f32_tn_n'
"""
from __future__ import annotations

import os
import unicodedata
from typing import Iterable

ELLIPSIS = "…"
PROSE_SPACES = 4       # text with this many spaces reads as a sentence: cut at its end
_SEPARATORS = " /\\:._-(,#"


def _escape_char(c: str) -> str:
    o = ord(c)
    return f"\\x{o:02x}" if o < 0x100 else f"\\u{o:04x}" if o < 0x10000 else f"\\U{o:08x}"


def _invisible(c: str) -> bool:
    """A character a terminal acts on or does not show: controls (C0, DEL, C1), format characters
    (bidi overrides and isolates, zero-width characters, BOM), line and paragraph separators."""
    return unicodedata.category(c) in ("Cc", "Cf", "Zl", "Zp")


def visible(text: str, newline: str = "⏎") -> str:
    """Text as the terminal can show it safely: a newline as ``newline``, a tab as a space, every
    other control or invisible format character as a visible escape (``\\x1b``, ``\\u202e``)."""
    if text.isprintable():         # the common case, in C: no control, format or separator character
        return text
    text = text.replace("\r\n", "\n").replace("\n", newline).replace("\t", " ")
    return "".join(_escape_char(c) if _invisible(c) else c for c in text)


def cut(text: str, width: int) -> str:
    """``text`` in at most ``width`` characters. A name (a kernel, op, file, metric: few spaces)
    loses its middle to ``…`` — two fifths of the room for its start, the rest for its end, where
    names differ most (kernel tile sizes, the autograd node after its prefix, a file after its
    folders); prose (a sentence) loses its end."""
    if len(text) <= width:
        return text
    if width <= 1:
        return ELLIPSIS[:width]
    room = width - 1
    if text.count(" ") >= PROSE_SPACES:
        return text[:room] + ELLIPSIS
    head = room * 2 // 5
    return text[:head] + ELLIPSIS + text[len(text) - (room - head):]


def shared_prefix(values: Iterable[str]) -> str:
    """The start all the (at least two different) ``values`` share, up to and including its last
    separator (space, /, :, ., _, -, …), so that what is left starts a word; '' when the values
    are fewer than two different ones or share no such start.

    >>> shared_prefix(["/data/run/rank0/trace.json", "/data/run/rank1/trace.json"])
    '/data/run/'
    >>> shared_prefix(["autograd::engine::evaluate_function: AddBackward0",
    ...                "autograd::engine::evaluate_function: torch::autograd::AccumulateGrad"])
    'autograd::engine::evaluate_function: '
    """
    distinct = set(values)
    if len(distinct) < 2:
        return ""
    prefix = os.path.commonprefix(list(distinct))
    last = max(prefix.rfind(s) for s in _SEPARATORS)
    return prefix[: last + 1] if last >= 0 else ""
