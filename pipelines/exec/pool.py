"""Map a function over a stream of tasks in worker processes, in order, with bounded memory.

Used by ingest (parsing line chunks) and replay (replaying match chunks): at most
``2 * workers`` tasks are in flight, so a long input never piles up in memory. Workers are
replaced every :data:`TASKS_PER_WORKER` tasks (on average) by **recycling the whole pool**: after
``workers * TASKS_PER_WORKER`` tasks the next task goes to a fresh pool while the old one finishes
its last tasks and shuts down. No pool retires a worker of its own (``max_tasks_per_child``):
Python 3.11's ``ProcessPoolExecutor`` handles a retired worker in its management thread
(``self.processes.pop(result_item.exit_pid)``), which raised ``KeyError`` under load and left the
run hanging (CPython gh-115634 and its kin, fixed in 3.13 and 3.14 only). A worker that dies
(killed, out of memory; even part-way through sending its result) breaks its pool, and the run
gets ``BrokenProcessPool`` instead of a hang. Workers are forked from a ``forkserver`` (the
pipeline may run inside Dagster's threads, where forking this process is unsafe; the server is a
fresh single-threaded interpreter) that has imported the workers' modules once (:data:`PRELOAD`)
and frozen them out of the garbage collector's scans: a worker started with ``spawn`` spent 1–3
CPU-s importing them, once per :data:`TASKS_PER_WORKER` tasks (docs/performance.md). With one
worker the function runs in this process.

Stopping is never left to the workers' goodwill. A worker inherits ignored signals from its
parent (a background job ignores SIGINT, and Dagster copies SIGINT's disposition to SIGTERM),
so :func:`default_signals` restores the default actions first thing in every worker. When the
caller is interrupted (Ctrl-C, SIGTERM, any exception) the pending tasks are cancelled and the
workers terminated, with a bounded wait and SIGKILL for one still starting up, instead of
waiting for the pool to drain. When the caller dies without a chance to do so (SIGKILL, a plain
SIGTERM outside gdan's handlers) each worker ends itself: it watches the process that started
the pool (:func:`exit_with_parent`) instead of running its task on and then waiting forever for
the next one.

:class:`pipelines.exec.executor.Executor` chooses between this pool and a Dask cluster.
"""

from __future__ import annotations

import atexit
import multiprocessing
import multiprocessing.context
import os
import select
import threading
from collections import deque
from collections.abc import Callable, Iterable, Iterator, MutableMapping, Sequence
from concurrent.futures import Future, ProcessPoolExecutor
from contextlib import contextmanager
from functools import cache
from multiprocessing.connection import Connection
from multiprocessing.process import BaseProcess
from typing import Any, TypeVar

from pipelines.exec.ordering import Runner, default_signals, in_order

R = TypeVar("R")


TASKS_PER_WORKER = 25
"""Tasks a worker runs, on average, before it is replaced (a pool runs ``workers`` times as many
before it is recycled): caps the growth of per-process caches (the rules
engine's reading caches; 50 let a replay worker reach 480 MiB at 100k deals, 25 keeps the
first run's peak at 1.34 GiB, docs/performance.md)."""

PRELOAD = ("pipelines.steps.parsing", "pipelines.steps.replay_task", "replay", "pandas",
           "pipelines.exec.worker_start")
"""Modules the forkserver imports before it forks any worker: everything a task imports, then
``pipelines.exec.worker_start``, which freezes them out of the collector's scans. ``pandas`` is
one of them although no task uses it: pyarrow imports it at a process's first conversion of
Python values (``pa.array``, ``pa.scalar``: its check for pandas objects), which cost every
fresh worker 0.15–0.2 CPU-s in its first task, once per :data:`TASKS_PER_WORKER` tasks."""

STOP_WAIT_S = 5.0
"""How long a terminated worker may take to exit before it is killed."""

PARENT_POLL_S = 1.0
"""How often a worker looks for its pool's process where the system has no process handles."""

WATCH_S = 1.0
"""How often a caller waiting for a task's result wakes: to look whether a worker of its pool has
died, and to act on a Ctrl-C or SIGTERM the kernel gave another thread (CPython runs signal
handlers in the main thread, and a signal to another thread does not end the main one's wait)."""


def start_worker(parent: int) -> None:
    """Pool initializer: :func:`default_signals`, and the worker ends when process ``parent``
    (the one that made the pool) does (:func:`exit_with_parent`, on a daemon thread)."""
    default_signals()
    threading.Thread(target=exit_with_parent, args=(parent,), name="exit-with-parent", daemon=True).start()


def exit_with_parent(parent: int) -> None:
    """Return never: wait until process ``parent`` has exited, then end this process at once.

    A worker's parent is the forkserver, not the pool's process, so the pool's process is
    watched by its pid: through a process handle where Linux has them (``os.pidfd_open``, no
    polling, no pid reuse), else by looking every :data:`PARENT_POLL_S`.
    """
    try:
        handle = os.pidfd_open(parent)
    except ProcessLookupError:
        os._exit(1)
    except (AttributeError, OSError):
        while _exists(parent):
            threading.Event().wait(PARENT_POLL_S)
    else:
        select.select([handle], [], [])
    os._exit(1)


def _exists(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        pass
    return True


def stop_processes(processes: Iterable[BaseProcess], wait_s: float = STOP_WAIT_S) -> None:
    """Terminate ``processes``, wait up to ``wait_s`` for each, then kill the ones still alive.

    SIGKILL covers a worker that has not yet run :func:`default_signals` and still ignores
    SIGTERM.
    """
    alive = [p for p in processes if p.is_alive()]
    for process in alive:
        process.terminate()
    for process in alive:
        process.join(wait_s)
        if process.is_alive():
            process.kill()
            process.join()


@cache
def forkserver_context() -> multiprocessing.context.BaseContext:
    """The ``forkserver`` context, its server preloading :data:`PRELOAD` and stopped at exit.

    ``multiprocessing`` leaves the server running when this process exits, to end later on its
    own; stopping it at exit waits for it, so its workers' CPU time counts to this process's
    children (``RUSAGE_CHILDREN``, as benchmarks measure it) and no server outlives a run.
    """
    context = multiprocessing.get_context("forkserver")
    context.set_forkserver_preload(list(PRELOAD))
    atexit.register(_stop_forkserver)
    return context


def start_forkserver() -> None:
    """Start the forkserver now, without waiting for it: its imports (:data:`PRELOAD`, ≈ 0.35 s)
    then run beside the caller's work instead of delaying the first pool's first task. The
    ingest calls it once it has new files, for the replay that follows (a run adding
    1,000 deals waited 0.7 s for its replay workers)."""
    from multiprocessing import forkserver

    forkserver_context()
    forkserver.ensure_running()


def _stop_forkserver() -> None:
    # The one way to stop the server is its private ``_stop`` (CPython 3.8 and later).
    from multiprocessing import forkserver

    stop = getattr(forkserver._forkserver, "_stop", None)
    if stop is not None:
        stop()


class _Pool:
    """A ``ProcessPoolExecutor`` with the private handles that stopping it needs.

    The executor has no public way to list or stop its workers before Python 3.14
    (``terminate_workers``): its ``_processes`` map (filled as workers start, the same map its
    manager thread watches) and its ``_result_queue`` are the one place they are reachable.
    """

    def __init__(self, fn: Callable[..., Any], workers: int) -> None:
        self.fn = fn
        self.executor = ProcessPoolExecutor(
            max_workers=workers,
            mp_context=forkserver_context(),
            initializer=start_worker,
            initargs=(os.getpid(),),
        )
        self.processes: MutableMapping[int, multiprocessing.Process] = self.executor._processes
        self.result_writer: Connection = self.executor._result_queue._writer  # type: ignore[attr-defined]
        self.retiring = False

    def submit(self, task: tuple[Any, ...]) -> Future[Any]:
        return self.executor.submit(self.fn, *task)

    def retire(self) -> None:
        """Let the workers finish the tasks already submitted, then exit."""
        self.retiring = True
        self.executor.shutdown(wait=False)

    def close(self) -> None:
        """Wait for the workers to finish and exit."""
        self.executor.shutdown(wait=True)

    def lost_a_worker(self) -> bool:
        """Whether a worker has died, rather than exited because the pool is retiring."""
        ended = [p.exitcode for p in list(self.processes.values()) if p.exitcode is not None]
        return any(code != 0 or not self.retiring for code in ended)

    def stop(self) -> None:
        """Cancel what is pending, stop the workers (:func:`stop_processes`) and let the
        executor's manager thread end (bounded by :data:`STOP_WAIT_S`).

        Waiting for the thread matters at exit: the interpreter's exit hook wakes every manager
        thread without the executor's lock, and one closing its wake-up pipe at that moment
        makes the hook fail with ``Bad file descriptor`` (CPython 3.11).
        """
        manager: threading.Thread | None = self.executor._executor_manager_thread  # type: ignore[assignment]
        processes = list(self.processes.values())
        self.executor.shutdown(wait=False, cancel_futures=True)
        self.break_up(processes)
        if manager is not None:
            manager.join(STOP_WAIT_S)

    def break_up(self, processes: Sequence[BaseProcess] | None = None) -> None:
        """Stop every worker and fail every task not yet done with ``BrokenProcessPool``.

        The executor's manager thread reads a result message whole: if a worker died part-way
        through sending one, the thread waits forever for the rest (the pipe's write end is
        also held here, so it never sees end-of-file), and with it every caller waiting for a
        result and the interpreter's exit, which joins the thread. With every worker gone,
        closing this process's write end gives the thread end-of-file: it marks the pool broken
        and exits.
        """
        stop_processes(list(self.processes.values()) if processes is None else processes)
        self.result_writer.close()


class _WatchedFuture:
    """A task's future whose :meth:`result` fails, instead of waiting forever, once a worker of
    its pool has died (:meth:`_Pool.break_up`)."""

    def __init__(self, future: Future[Any], pool: _Pool) -> None:
        self.future = future
        self.pool = pool

    def result(self) -> Any:
        while True:
            try:
                return self.future.result(timeout=WATCH_S)
            except TimeoutError:
                if self.pool.lost_a_worker():
                    self.pool.break_up()


class _RecycledPools:
    """Submits tasks to a pool (:class:`_Pool`) that is replaced by a fresh one every
    ``per_pool`` tasks.

    A replaced pool finishes its tasks and shuts down beside the new one; it is joined when the
    next pool replaces that one, by when the caller has taken its results (at most ``per_pool``
    tasks are in flight), so at most two pools are kept.
    """

    def __init__(self, fn: Callable[..., Any], workers: int, per_pool: int) -> None:
        self.fn = fn
        self.workers = workers
        self.per_pool = per_pool
        self.pools: list[_Pool] = []
        self.submitted = 0

    def submit(self, task: tuple[Any, ...]) -> _WatchedFuture:
        if not self.pools or self.submitted == self.per_pool:
            if self.pools:
                self.pools[-1].retire()
            while len(self.pools) > 1:
                self.pools.pop(0).close()
            self.pools.append(_Pool(self.fn, self.workers))
            self.submitted = 0
        self.submitted += 1
        pool = self.pools[-1]
        return _WatchedFuture(pool.submit(task), pool)

    def close(self) -> None:
        """Wait for every pool's workers to finish and exit."""
        for pool in self.pools:
            pool.close()

    def stop(self) -> None:
        """Cancel what is pending and stop every pool's workers."""
        for pool in self.pools:
            pool.stop()


@contextmanager
def ordered_map(fn: Callable[..., R], workers: int) -> Iterator[Runner[R]]:
    """Yield ``run(tasks)``: the results of ``fn(*task)`` for each task, in task order.

    Leaving the block normally waits for the workers to finish; leaving it by an exception
    (including KeyboardInterrupt and Dagster's interrupt error) cancels what is pending and
    stops the workers (:func:`stop_processes`) before the exception goes on.
    """
    if workers <= 1:
        yield lambda tasks: (fn(*task) for task in tasks)
        return
    pools = _RecycledPools(fn, workers, workers * TASKS_PER_WORKER)

    def run(tasks: Iterable[tuple[Any, ...]]) -> Iterator[R]:
        return in_order(tasks, pools.submit, 2 * workers, deque())

    try:
        yield run
    except BaseException:
        pools.stop()
        raise
    pools.close()
