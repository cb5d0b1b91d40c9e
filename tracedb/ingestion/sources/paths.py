"""Paths of input files: whether a profiler file's name holds a regular file, and paths handed
to DuckDB's readers, never as patterns.

``read_csv(path)`` / ``read_json(path)`` expand ``*``, ``?``, ``[…]`` and ``{…}`` in a path, so
a rank folder named ``exp[1]_ascend_pt`` beside ``exp1_ascend_pt`` would read exp1's file. A
path holding any of those characters is handed over as a symlink with a plain name in a
private temporary folder.
"""
from __future__ import annotations

import os
import shutil
import stat
from contextlib import contextmanager
from pathlib import Path

from ...errors import InputError
from . import tempdirs

PATTERN_CHARS = set("*?[]{}")


def regular(path: Path) -> bool:
    """Whether a file tracedb recognises by its name is there: False when nothing has that
    name, True for a regular file (or a link to one).

    Raises:
        InputError: the name is taken by something else (a FIFO, a device, a socket, a
            folder, a link to nothing): skipping it would lose its rows silently, and reading a
            FIFO would wait for a writer forever.
    """
    try:
        st = path.stat()
    except FileNotFoundError:
        if path.is_symlink():
            raise InputError("a link to nothing (the file it points to does not exist).", file=str(path),
                             hint="copy the profiler's file here, or remove the link.") from None
        return False
    except OSError as e:
        raise InputError(f"cannot read file: {e.strerror}", file=str(path)) from e
    if stat.S_ISREG(st.st_mode):
        return True
    kind = ("a folder" if stat.S_ISDIR(st.st_mode) else "a FIFO" if stat.S_ISFIFO(st.st_mode)
            else "a device" if stat.S_ISCHR(st.st_mode) or stat.S_ISBLK(st.st_mode)
            else "a socket" if stat.S_ISSOCK(st.st_mode) else "not a regular file")
    raise InputError(f"a profiler file's name, but {kind}, not a regular file.", file=str(path),
                     hint="copy the profiler's file here (tracedb reads regular files only).")


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
