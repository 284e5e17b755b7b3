"""Map a function over a stream of tasks in worker processes, in order, with bounded memory.

Used by ingest (parsing line chunks) and replay (replaying match chunks): at most
``2 * workers`` tasks are in flight, so a long input never piles up in memory. Workers are
started with ``spawn`` (the pipeline may run inside Dagster's threads, where ``fork`` is
unsafe); with one worker the function runs in this process.
"""

from __future__ import annotations

import multiprocessing
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import Future, ProcessPoolExecutor
from contextlib import contextmanager
from typing import Any, TypeVar

R = TypeVar("R")
Runner = Callable[[Iterable[tuple[Any, ...]]], Iterator[R]]


TASKS_PER_WORKER = 50
"""Tasks a worker runs before it is replaced: caps the growth of per-process caches."""


@contextmanager
def ordered_map(fn: Callable[..., R], workers: int) -> Iterator[Runner[R]]:
    """Yield ``run(tasks)``: the results of ``fn(*task)`` for each task, in task order."""
    if workers <= 1:
        yield lambda tasks: (fn(*task) for task in tasks)
        return
    context = multiprocessing.get_context("spawn")
    with ProcessPoolExecutor(max_workers=workers, mp_context=context,
                             max_tasks_per_child=TASKS_PER_WORKER) as pool:

        def run(tasks: Iterable[tuple[Any, ...]]) -> Iterator[R]:
            pending: deque[Future[R]] = deque()
            for task in tasks:
                pending.append(pool.submit(fn, *task))
                while len(pending) >= 2 * workers:
                    yield pending.popleft().result()
            while pending:
                yield pending.popleft().result()

        yield run
