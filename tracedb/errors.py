"""Error family of tracedb: every failure the user can cause names the file, the place and a hint.

The CLI turns a :class:`TracedbError` into one line on stderr and an exit code; nothing else
(no traceback) unless ``--debug`` is given.
"""
from __future__ import annotations

EXIT_FAILURE = 1       # bad input, failed check, unknown view ... (2 is click's usage error)
EXIT_LOCKED = 3        # database held by another process
EXIT_INTERRUPTED = 130  # Ctrl-C, SIGTERM, SIGHUP (128 + SIGINT, as shells report Ctrl-C)


class TracedbError(Exception):
    """A failure with a clear message.

    Args:
        message: what went wrong, in one sentence.
        file: the input or database file concerned, if any.
        place: where in the file (byte offset, line, column name), if known.
        hint: what the user can do about it.
    """

    exit_code = EXIT_FAILURE

    def __init__(self, message: str, *, file: str | None = None, place: str | None = None,
                 hint: str | None = None):
        super().__init__(message)
        self.message = message
        self.file = file
        self.place = place
        self.hint = hint

    def __str__(self) -> str:
        where = ""
        if self.file:
            where = f"{self.file}"
            if self.place:
                where += f" ({self.place})"
            where += ": "
        text = f"{where}{self.message}"
        if self.hint:      # below a multi-line message (DuckDB's caret), on a line of its own
            text += ("\n" if "\n" in text else " ") + f"Hint: {self.hint}"
        return text


class InputError(TracedbError):
    """An input file is missing, empty, truncated, malformed or of an unknown format."""


class DatabaseLockedError(TracedbError):
    """The database file is held by another process (DuckDB allows one writer or many readers)."""

    exit_code = EXIT_LOCKED


class QueryError(TracedbError):
    """A view name, filter or SQL statement could not be run."""


def out_of_memory(e: BaseException, file: str | None = None) -> TracedbError | None:
    """A DuckDB out-of-memory error as a TracedbError that says which setting to raise (None
    for any other error): DuckDB ran out of its memory limit, the input is not at fault."""
    if type(e).__name__ != "OutOfMemoryException":
        return None
    first = str(e).splitlines()[0].replace("Out of Memory Error: ", "")
    return TracedbError(f"out of memory: {first}", file=file,
                        hint="raise --memory-limit (DuckDB's memory limit for this command), or lower --threads.")
