"""Play many matches, in this process or across worker processes, in a deterministic order."""

from __future__ import annotations

import multiprocessing
import signal
import threading
from collections.abc import Callable, Sequence
from types import TracebackType

import orjson

from simulator.match import MatchResult, MatchSpec, play_match

Played = tuple[bytes, MatchResult]
"""A played match: its events as JSON Lines bytes, and the referee's result."""


def play_to_bytes(spec: MatchSpec) -> Played:
    """Play one match and serialise its events (one JSON object per line, keys in writing order)."""
    events, result = play_match(spec)
    return b"".join(orjson.dumps(e) + b"\n" for e in events), result


STOP_WAIT_S = 5.0
"""How long a terminated worker may take to exit before it is killed."""


def _default_signals() -> None:
    """Pool initializer: SIGTERM and SIGINT end the worker, whatever its parent ignored.

    Spawned workers inherit ignored dispositions: a background job ignores SIGINT, and Dagster
    (run earlier in the same process, e.g. by a test) leaves SIGTERM with SIGINT's disposition.
    A worker ignoring SIGTERM would make ``Pool.terminate`` wait for ever.
    """
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def _kill_workers(pool: multiprocessing.pool.Pool) -> None:
    """SIGKILL every worker of ``pool`` still alive (``Pool`` lists them only in ``_pool``)."""
    for worker in list(pool._pool):  # type: ignore[attr-defined]
        if worker.is_alive():
            worker.kill()


class Runner:
    """Runs batches of match specs; with `workers` > 1 a process pool spreads them over cores.

    Results always come back in spec order and every match has its own seeds, so the output is
    the same for any number of workers.
    """

    def __init__(self, workers: int = 1) -> None:
        self.workers = max(1, workers)
        self._pool: multiprocessing.pool.Pool | None = None

    def __enter__(self) -> Runner:
        if self.workers > 1:
            # spawn, not fork: forking a process that runs threads (a test runner, a UI) can copy
            # a held lock into the child and hang it.
            self._pool = multiprocessing.get_context("spawn").Pool(self.workers, initializer=_default_signals)
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        """Let the workers finish after a normal exit; stop them after an exception or interrupt.

        Normally every task is done, so closing the pool lets each worker exit on its own (no
        signal needed). After an exception the pool is terminated, and a worker still alive
        :data:`STOP_WAIT_S` later (one still starting up has not yet restored SIGTERM) is killed,
        so ``terminate`` never waits for ever.
        """
        pool, self._pool = self._pool, None
        if pool is None:
            return
        if exc_type is None:
            pool.close()
            pool.join()
            return
        watchdog = threading.Timer(STOP_WAIT_S, _kill_workers, args=(pool,))
        watchdog.daemon = True
        watchdog.start()
        try:
            pool.terminate()
            pool.join()
        finally:
            watchdog.cancel()

    def run(
        self, specs: Sequence[MatchSpec], done: Callable[[MatchResult], None] | None = None
    ) -> list[Played]:
        """Play `specs`; `done` is called after each match (for progress bars)."""
        out: list[Played] = []
        results = (
            self._pool.imap(play_to_bytes, specs, chunksize=1)
            if self._pool is not None
            else map(play_to_bytes, specs)
        )
        for played in results:
            out.append(played)
            if done is not None:
                done(played[1])
        return out
