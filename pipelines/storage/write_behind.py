"""Writes run in order in one background thread while the caller goes on.

A run's process reads the raw rows, cuts them into tasks and sends them to the workers, then
writes what comes back as Parquet. Encoding and compressing Parquet leave the interpreter's
lock, so with the writes in a thread of their own the next read and the next task's dispatch go
on beside them instead of after them: the process was the run's bottleneck while the workers
waited (docs/performance.md). At most :data:`DEPTH` writes wait, so what is held stays bounded.
"""

from __future__ import annotations

import queue
import threading
from collections.abc import Callable

DEPTH = 32
"""Writes that may wait for the thread before :meth:`WriteBehind.submit` blocks (a replay
chunk's result is one write per table, about a dozen)."""


class WriteBehind:
    """One thread running the writes it is given, in the order given.

    A write that fails ends the writing: the writes after it are dropped, and its error is
    raised in the caller by the next :meth:`submit` or by :meth:`close`.
    """

    def __init__(self, name: str, depth: int = DEPTH) -> None:
        self._writes: queue.Queue[Callable[[], None] | None] = queue.Queue(maxsize=depth)
        self._error: BaseException | None = None
        self._thread = threading.Thread(target=self._run, name=name, daemon=True)
        self._thread.start()

    def submit(self, write: Callable[[], None]) -> None:
        """Run ``write`` after the writes given before it; raise the error of one that failed."""
        self._raise_error()
        self._writes.put(write)

    def close(self) -> None:
        """Wait for every write given, then raise the error of one that failed."""
        self._writes.put(None)
        self._thread.join()
        self._raise_error()

    def _raise_error(self) -> None:
        if self._error is not None:
            raise self._error

    def _run(self) -> None:
        while (write := self._writes.get()) is not None:
            if self._error is None:
                try:
                    write()
                except BaseException as error:  # raised again in the caller's thread
                    self._error = error
