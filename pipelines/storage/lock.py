"""The store's single-writer lock: one writer at a time across processes and threads,
re-entrant for the thread holding it, so a writer may call another writing method."""

from __future__ import annotations

import os
import threading
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
        """Hold the lock until the block ends (blocks until a concurrent writer finishes).

        Waiting for another thread of this process (steps run two at a time,
        ``pipelines.run.lanes``) is silent: the notices are about other processes.
        """
        self.path.parent.mkdir(parents=True, exist_ok=True)
        lock = FileLock(self.path, is_singleton=True)
        with _holds_lock:
            busy_here = _holds.get(self.path, 0) > 0
            got = _acquired_now(lock)
            if got:
                _holds[self.path] = _holds.get(self.path, 0) + 1
        if not got:
            if not busy_here:
                holder = _holder(self.path)
                for notice in list(lock_wait_notices):
                    notice(holder)
            lock.acquire()
            with _holds_lock:
                _holds[self.path] = _holds.get(self.path, 0) + 1
        try:
            self.path.write_text(str(os.getpid()))
            yield
        finally:
            with _holds_lock:
                _holds[self.path] -= 1
            lock.release()


def _acquired_now(lock: FileLock) -> bool:
    """Whether ``lock`` could be taken without waiting (it then is)."""
    try:
        lock.acquire(blocking=False)
    except Timeout:
        return False
    return True


_holds: dict[Path, int] = {}
"""Per lock file, how many holds threads of this process have (re-entered ones counted)."""
_holds_lock = threading.Lock()


def _holder(path: Path) -> int | None:
    """The pid the lock's holder wrote in its file (None if unknown)."""
    try:
        text = path.read_text().strip()
    except FileNotFoundError:
        return None
    return int(text) if text.isdigit() else None
