"""Map a function over a stream of tasks on a Dask distributed cluster, in order, with bounded memory.

The Dask side of :class:`pipelines.exec.executor.Executor` (``gdan run --executor dask``): the same
contract as :func:`pipelines.exec.pool.ordered_map` (results in task order, at most two tasks per
worker thread in flight), so the replay step cannot tell which one ran its batches of whole
matches. Each task's arguments are scattered to the cluster and the task submitted on them, so
the large Arrow tables travel client -> worker once instead of inside the task graph. Scattered
data lives only on the worker that holds it: when that worker is lost (its host crashed, its
process was killed), Dask cancels the task, and the task is scattered and submitted again
(:class:`_Resubmitted`), so a lost worker costs time, never the run. A scatter that chose a worker
just as it was lost fails on the scheduler (the worker is gone when its data is recorded, or cannot
be reached); it is tried again the same way.

Without an ``address`` a local cluster is started for the map: ``workers`` worker processes of
one thread each, no dashboard, Dask's logging quiet below errors; it is closed when the map
ends. With an address the map only connects a client; the cluster stays up.

When the caller is interrupted (Ctrl-C, SIGTERM, any exception) the pending futures are
cancelled and the client (and the local cluster) closed before the exception goes on, so no
task keeps running on this run's behalf and no worker process outlives ``gdan``.
"""

from __future__ import annotations

import logging
import signal
import threading
import warnings
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from contextlib import ExitStack, contextmanager
from typing import Any, TypeVar

from distributed import Client, Future, LocalCluster
from distributed.client import FutureCancelledError

from pipelines.exec.ordering import Awaitable, Runner, default_signals, in_order

R = TypeVar("R")

RESUBMITS = 3
"""How often one task is submitted again after the worker holding its data was lost."""
LOST_WORKER_ON_SCATTER = (KeyError, OSError)
"""What a scatter raises when a worker it chose was lost meanwhile: the scheduler's ``KeyError``
naming the worker (it was removed before the data could be recorded), a connection error, or a
timeout (``OSError`` subclasses) while no worker is running."""
CONNECT_TIMEOUT_S = 60
"""How long connecting to a scheduler (or starting the local cluster's workers) may take."""


def _restore_signals(dask_worker: object) -> None:
    """Run on every worker of the local cluster: SIGTERM and SIGINT end it, as in the pool.

    A worker process inherits ignored signals from ``gdan`` (a background job ignores SIGINT);
    the cluster's ``close`` then could not stop it.
    """
    del dask_worker
    default_signals()


@contextmanager
def _interrupts_deferred() -> Iterator[None]:
    """Run the block with SIGINT and SIGTERM held back, then act on one that came meanwhile.

    A local cluster interrupted while it starts leaves workers that are not running yet, which
    neither its ``close`` nor distributed's exit hook can stop (an ``AssertionError`` at exit);
    started whole, it is closed as usual when the held signal then interrupts the run.
    """
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    received: list[int] = []

    def hold(signum: int, frame: object) -> None:
        del frame
        received.append(signum)

    previous = {s: signal.signal(s, hold) for s in (signal.SIGINT, signal.SIGTERM)}
    try:
        yield
    finally:
        for s, handler in previous.items():
            signal.signal(s, signal.SIG_DFL if handler is None else handler)
    if received:
        signal.raise_signal(received[0])


@contextmanager
def _client(workers: int, address: str | None) -> Iterator[Client]:
    with ExitStack() as stack:
        if address is None:
            with _interrupts_deferred(), warnings.catch_warnings():
                # Without a dashboard the scheduler still serves health checks over HTTP, on
                # port 8787 or, when another cluster has it, on a free one: said as a warning.
                warnings.filterwarnings("ignore", message="Port .* is already in use", category=UserWarning)
                cluster = stack.enter_context(LocalCluster(
                    n_workers=workers,
                    threads_per_worker=1,
                    processes=True,
                    dashboard_address=None,
                    silence_logs=logging.ERROR,
                ))
                client = stack.enter_context(Client(cluster, timeout=CONNECT_TIMEOUT_S))
                client.run(_restore_signals)
        else:
            client = stack.enter_context(Client(address, timeout=CONNECT_TIMEOUT_S))
        yield client


class _Resubmitted(Awaitable[R]):
    """A task on the cluster, submitted again (at most :data:`RESUBMITS` times each) when its
    scatter met a worker being lost, and when :meth:`result` finds that Dask cancelled it because
    the worker holding its scattered data was lost."""

    def __init__(self, submit: Callable[[tuple[Any, ...]], Future], task: tuple[Any, ...]) -> None:
        self.submit = submit
        self.task = task
        self.future = self._submitted()

    def _submitted(self) -> Future:
        for _ in range(RESUBMITS):
            try:
                return self.submit(self.task)
            except LOST_WORKER_ON_SCATTER:
                continue
        return self.submit(self.task)

    def result(self) -> R:
        for _ in range(RESUBMITS):
            try:
                return self.future.result()  # type: ignore[no-any-return]
            except FutureCancelledError:
                self.future = self._submitted()
        return self.future.result()  # type: ignore[no-any-return]


@contextmanager
def dask_ordered_map(fn: Callable[..., R], workers: int, address: str | None) -> Iterator[Runner[R]]:
    """Yield ``run(tasks)``: the results of ``fn(*task)`` for each task, in task order, on Dask.

    ``workers`` sizes the local cluster started when ``address`` is None; on a given cluster
    the number of tasks in flight follows its worker threads.
    """
    with _client(workers, address) as client:
        in_flight = 2 * max(1, sum(client.nthreads().values()))
        pending: deque[_Resubmitted[R]] = deque()

        def submit(task: tuple[Any, ...]) -> Future:
            return client.submit(fn, *client.scatter(list(task), hash=False), pure=False)

        def run(tasks: Iterable[tuple[Any, ...]]) -> Iterator[R]:
            return in_order(tasks, lambda task: _Resubmitted(submit, task), in_flight,
                            pending)  # type: ignore[arg-type]

        try:
            yield run
        except BaseException:
            client.cancel([p.future for p in pending], force=True)
            pending.clear()
            raise
