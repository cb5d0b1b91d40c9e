"""The worker thread that makes the SQLite calls of one input, so that a signal can stop a read.

Every SQLite call runs on a daemon thread while the main thread waits in slices of
:data:`WAIT` seconds, so Ctrl-C / SIGTERM (a KeyboardInterrupt in the main thread) ends the
command at once. The worker, which cannot be cancelled inside the driver (ADBC's SQLite driver
has no cancel), is left to finish its call on its own.
"""
from __future__ import annotations

import queue
import threading
from typing import Callable

WAIT = 0.1                   # seconds the main thread waits between signal checks


class Worker:
    """A daemon thread that runs the SQLite calls of one input, one at a time, while the caller
    waits in :data:`WAIT` slices (a signal handler's KeyboardInterrupt gets through at once)."""

    def __init__(self):
        self.jobs: queue.Queue = queue.Queue()
        self.busy = False
        self.thread = threading.Thread(target=self._loop, name="tracedb-sqlite", daemon=True)
        self.thread.start()

    def _loop(self) -> None:
        while True:
            job = self.jobs.get()
            if job is None:
                return
            fn, box, done = job
            try:
                box.append(("ok", fn()))
            except BaseException as e:   # noqa: BLE001 - handed to the caller
                box.append(("error", e))
            done.set()

    def call(self, fn: Callable):
        """Run ``fn`` on the worker; its result or its exception. An interrupt while it runs
        leaves it running (it cannot be stopped inside the driver) and marks the worker busy."""
        box: list = []
        done = threading.Event()
        self.jobs.put((fn, box, done))
        self.busy = True
        while not done.wait(WAIT):
            pass
        self.busy = False
        status, value = box[0]
        if status == "error":
            raise value
        return value

    def stop(self, last: Callable | None = None) -> None:
        """Run ``last`` (closing the connection) after the job in progress, then end the thread;
        does not wait."""
        if last is not None:
            self.jobs.put((last, [], threading.Event()))
        self.jobs.put(None)
