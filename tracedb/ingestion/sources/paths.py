"""Paths handed to DuckDB's readers, never as patterns.

``read_csv(path)`` / ``read_json(path)`` expand ``*``, ``?``, ``[…]`` and ``{…}`` in a path, so
a rank folder named ``exp[1]_ascend_pt`` beside ``exp1_ascend_pt`` would read exp1's file. A
path holding any of those characters is handed over as a symlink with a plain name in a
private temporary folder.
"""
from __future__ import annotations

import os
import shutil
from contextlib import contextmanager
from pathlib import Path

from . import tempdirs

PATTERN_CHARS = set("*?[]{}")


@contextmanager
def literal_path(path: Path):
    """Yield a string naming ``path`` that DuckDB reads literally (absolute, no pattern characters)."""
    text = str(Path(path).absolute())
    if not PATTERN_CHARS & set(text):
        yield text
        return
    folder = tempdirs.make("link")
    try:
        link = os.path.join(folder, "input" + "".join(Path(path).suffixes[-2:]).translate(
            {ord(c): None for c in PATTERN_CHARS}))
        os.symlink(text, link)
        yield link
    finally:
        shutil.rmtree(folder, ignore_errors=True)
