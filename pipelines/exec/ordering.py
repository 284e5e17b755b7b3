"""What the process pool and the Dask cluster share: tasks submitted in order with a bounded
number in flight, and workers that end on SIGTERM and SIGINT whatever their parent ignored."""

from __future__ import annotations

import signal
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from typing import Any, Protocol, TypeVar

R = TypeVar("R")
R_co = TypeVar("R_co", covariant=True)
Runner = Callable[[Iterable[tuple[Any, ...]]], Iterator[R]]
"""A started map: give it the tasks, iterate the results in task order."""


def default_signals() -> None:
    """Pool initializer: SIGTERM and SIGINT end this worker, whatever its parent ignored.

    The parent stops the workers itself when it is interrupted, so a worker needs no
    KeyboardInterrupt traceback of its own: the default action (exit) is what it should do.
    """
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    signal.signal(signal.SIGINT, signal.SIG_DFL)


class Awaitable(Protocol[R_co]):
    """A submitted task: a ``concurrent.futures`` or a Dask future."""

    def result(self) -> R_co: ...


def in_order(
    tasks: Iterable[tuple[Any, ...]],
    submit: Callable[[tuple[Any, ...]], Awaitable[R]],
    in_flight: int,
    pending: deque[Awaitable[R]],
) -> Iterator[R]:
    """Submit each task in turn and yield the results in task order, never keeping more than
    ``in_flight`` tasks submitted and not yet yielded.

    ``pending`` holds those tasks, so a caller that is interrupted can cancel them.
    """
    for task in tasks:
        pending.append(submit(task))
        while len(pending) >= in_flight:
            yield pending.popleft().result()
    while pending:
        yield pending.popleft().result()
