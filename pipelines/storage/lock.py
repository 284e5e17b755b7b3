"""The store's single-writer lock: one writer at a time across processes and threads,
re-entrant for the thread holding it, so a writer may call another writing method."""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

from filelock import FileLock, Timeout

lock_wait_notices: list[Callable[[int | None], None]] = []
"""Called with the holder's pid (None if unknown) when the writer lock is busy, before waiting."""


class WriterLock:
    """The lock on ``path`` (a ``flock`` through ``filelock``, one lock object per path in this
    process, whose holds count per thread).

    A writer that finds the lock busy tells :data:`lock_wait_notices` the holder's pid (so a user
    is not left staring at a silent wait), then waits; the holder writes its pid in the file.
    """

    def __init__(self, path: Path) -> None:
        self.path = path

    @contextmanager
    def hold(self) -> Iterator[None]:
        """Hold the lock until the block ends (blocks until a concurrent writer finishes)."""
        self.path.parent.mkdir(parents=True, exist_ok=True)
        lock = FileLock(self.path, is_singleton=True)
        try:
            lock.acquire(blocking=False)
        except Timeout:
            holder = _holder(self.path)
            for notice in list(lock_wait_notices):
                notice(holder)
            lock.acquire()
        try:
            self.path.write_text(str(os.getpid()))
            yield
        finally:
            lock.release()


def _holder(path: Path) -> int | None:
    """The pid the lock's holder wrote in its file (None if unknown)."""
    try:
        text = path.read_text().strip()
    except FileNotFoundError:
        return None
    return int(text) if text.isdigit() else None
