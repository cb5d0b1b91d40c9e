"""The files tracedb keeps in the user's cache folder (the template of new databases), trusted
only when this user alone could have written them.

What is read from the cache goes into every new database, so a file there is used only if:

* its folder is written by this user alone (owned by the effective user, not writable by group
  or others); when the cache folder (``$TRACEDB_CACHE_DIR`` …, see
  :func:`tracedb.resources.cache_dir`) is shared, the files go into its subfolder
  ``user-<uid>``, created ``0700``;
* it is a regular file of this user that group and others cannot write, opened without
  following a symbolic link and without blocking (a FIFO there would block every first ingest);
* its content matches the SHA-256 written beside it (or inside it) when it was made: a damaged,
  truncated or edited file is made again, never copied.

Everything else is made again (or, where that fails, done without the cache): the cache only
saves time.
"""
from __future__ import annotations

import hashlib
import os
import stat
from pathlib import Path
from typing import BinaryIO

from ..resources import cache_dir

_UID = getattr(os, "geteuid", lambda: None)()
_OPEN_FLAGS = os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0)


def private(st: os.stat_result) -> bool:
    """True if only this user can have written the file or folder ``st`` describes."""
    return _UID is None or (st.st_uid == _UID and not st.st_mode & (stat.S_IWGRP | stat.S_IWOTH))


def private_dir() -> Path | None:
    """The cache folder this user alone writes: the cache folder itself (when it is missing, or
    is this user's and nobody else can write it), else its subfolder ``user-<uid>``; None when the
    cache is turned off or that subfolder is not this user's alone. Nothing is created here
    (:func:`make_dir` does, before a file is written)."""
    folder = cache_dir()
    if folder is None:
        return None
    for candidate in (folder, folder / f"user-{_UID}"):
        try:
            st = os.lstat(candidate) if candidate is not folder else os.stat(candidate)
        except FileNotFoundError:
            return candidate
        except OSError:
            return None
        if stat.S_ISDIR(st.st_mode) and private(st):
            return candidate
    return None


def make_dir(folder: Path) -> None:
    """Create the :func:`private_dir` ``folder`` if missing (``0700``).

    Raises:
        OSError: it cannot be made, or is not this user's alone."""
    folder.mkdir(mode=0o700, parents=True, exist_ok=True)
    st = os.stat(folder)
    if not (stat.S_ISDIR(st.st_mode) and private(st)):
        raise PermissionError(f"{folder} is not this user's alone")


def open_private(path: Path) -> BinaryIO | None:
    """``path`` opened for reading if it is a regular file only this user can have written (not
    a symbolic link, FIFO, device or folder); None otherwise, or if it cannot be opened."""
    try:
        fd = os.open(path, _OPEN_FLAGS)
    except OSError:
        return None
    try:
        st = os.fstat(fd)
        if stat.S_ISREG(st.st_mode) and private(st):
            if hasattr(os, "set_blocking"):
                os.set_blocking(fd, True)
            return os.fdopen(fd, "rb")
    except OSError:
        pass
    os.close(fd)
    return None


def file_sha256(f: BinaryIO) -> str:
    """SHA-256 of the rest of an open file."""
    h = hashlib.sha256()
    for block in iter(lambda: f.read(1 << 20), b""):
        h.update(block)
    return h.hexdigest()


def sidecar(path: Path) -> Path:
    """The file holding the SHA-256 of ``path``."""
    return path.with_name(path.name + ".sha256")


def verified(path: Path) -> bool:
    """True if ``path`` and its :func:`sidecar` are private regular files and the SHA-256 of
    ``path`` is the one its sidecar holds."""
    side = open_private(sidecar(path))
    if side is None:
        return False
    with side:
        want = side.read(200).decode("ascii", "replace").strip()
    f = open_private(path)
    if f is None:
        return False
    with f:
        return len(want) == 64 and file_sha256(f) == want


def write_sidecar(path: Path, tmp_path: Path) -> Path:
    """Write the SHA-256 of ``tmp_path`` (the file that will become ``path``) into a temporary
    sidecar of ``path``; returns it, for the caller to move into place after the file."""
    with open(tmp_path, "rb") as f:
        digest = file_sha256(f)
    tmp = sidecar(path).with_name(f".{sidecar(path).name}.{os.getpid()}.tmp")
    tmp.write_text(digest + "\n")
    return tmp
