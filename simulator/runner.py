"""Play many matches, in this process or across worker processes, in a deterministic order."""

from __future__ import annotations

import multiprocessing
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
            self._pool = multiprocessing.get_context("spawn").Pool(self.workers)
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        if self._pool is not None:
            self._pool.terminate()
            self._pool.join()
            self._pool = None

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
