"""The private temporary folders of the readers ($TMPDIR), and their removal after a kill.

A reader's folder holds FIFOs (split reads of a large trace, the traceEvents stream of an
object trace), a symlink (a path with pattern characters) or a copy of a CSV; it is removed
when the read ends. SIGKILL (or a crash) leaves it behind, so each folder is named after its
process, ``tracedb-<kind>-<ns>-<pid>-<random>`` (``ns``: the PID namespace, so that a
container sharing $TMPDIR is never taken for a dead process of ours), and :func:`sweep`
removes the folders of processes that no longer run: at the start of every ingest, and before
the first folder a process makes.
"""
from __future__ import annotations

import os
import re
import shutil
import tempfile

KINDS = ("split", "fifo", "link", "csv")
_NAME = re.compile(r"^tracedb-(?:%s)-(\d+)-(\d+)-" % "|".join(KINDS))
_swept = False


def _namespace() -> str:
    """The PID namespace of this process (its inode on Linux), else ``0``."""
    try:
        m = re.search(r"\[(\d+)\]", os.readlink("/proc/self/ns/pid"))
        return m.group(1) if m else "0"
    except OSError:
        return "0"


def _alive(pid: int) -> bool:
    if pid == os.getpid():
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:          # another user's process (EPERM): alive
        return True
    return True


def make(kind: str) -> str:
    """A new folder for a reader (``kind``: one of :data:`KINDS`); its path."""
    if not _swept:
        sweep()
    return tempfile.mkdtemp(prefix=f"tracedb-{kind}-{_namespace()}-{os.getpid()}-")


def sweep() -> list[str]:
    """Remove the reader folders in $TMPDIR of this user's processes (in this PID namespace)
    that no longer run; returns their paths. Errors are ignored: a folder that cannot be
    removed stays."""
    global _swept
    _swept = True
    removed = []
    ns, uid = _namespace(), os.getuid() if hasattr(os, "getuid") else None
    try:
        entries = list(os.scandir(tempfile.gettempdir()))
    except OSError:
        return removed
    for entry in entries:
        m = _NAME.match(entry.name)
        if not m or m.group(1) != ns:
            continue
        try:
            st = entry.stat(follow_symlinks=False)
            if not entry.is_dir(follow_symlinks=False) or (uid is not None and st.st_uid != uid):
                continue
        except OSError:
            continue
        if not _alive(int(m.group(2))):
            shutil.rmtree(entry.path, ignore_errors=True)
            removed.append(entry.path)
    return removed
