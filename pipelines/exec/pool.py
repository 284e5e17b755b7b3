"""Map a function over a stream of tasks in worker processes, in order, with bounded memory.

Used by ingest (parsing line chunks) and replay (replaying match chunks): at most
``2 * workers`` tasks are in flight, so a long input never piles up in memory. Not more: with a
longer backlog, ``ProcessPoolExecutor`` of Python 3.11 (fixed in 3.13 and 3.14 only) can stop
replacing the workers that retire after :data:`TASKS_PER_WORKER` tasks (CPython gh-115634) and
the run hangs, as an ingest with 8 tasks a worker ahead did (20,000 tasks, 800 retirements, ran
through at two). Workers are forked from a ``forkserver`` (the pipeline may run inside
Dagster's threads, where forking this process is unsafe; the server is a fresh single-threaded
interpreter) that has imported the workers' modules once (:data:`PRELOAD`) and frozen them out
of the garbage collector's scans: a worker started with ``spawn`` spent 1–3 CPU-s importing
them, once per :data:`TASKS_PER_WORKER` tasks (docs/performance.md). With one
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
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import Future, ProcessPoolExecutor
from contextlib import contextmanager
from functools import cache
from multiprocessing.process import BaseProcess
from typing import Any, TypeVar

from pipelines.exec.ordering import Runner, default_signals, in_order

R = TypeVar("R")


TASKS_PER_WORKER = 25
"""Tasks a worker runs before it is replaced: caps the growth of per-process caches (the rules
engine's reading caches; 50 let a replay worker reach 480 MiB at 100k deals, 25 keeps the
first run's peak at 1.34 GiB, docs/performance.md)."""

PRELOAD = ("pipelines.steps.parsing", "pipelines.steps.replay_task", "replay", "pipelines.exec.worker_start")
"""Modules the forkserver imports before it forks any worker: everything a task imports, then
``pipelines.exec.worker_start``, which freezes them out of the collector's scans."""

STOP_WAIT_S = 5.0
"""How long a terminated worker may take to exit before it is killed."""

PARENT_POLL_S = 1.0
"""How often a worker looks for its pool's process where the system has no process handles."""


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
    context = forkserver_context()
    pool = ProcessPoolExecutor(
        max_workers=workers,
        mp_context=context,
        initializer=start_worker,
        initargs=(os.getpid(),),
        max_tasks_per_child=TASKS_PER_WORKER,
    )

    def submit(task: tuple[Any, ...]) -> Future[R]:
        return pool.submit(fn, *task)

    def run(tasks: Iterable[tuple[Any, ...]]) -> Iterator[R]:
        return in_order(tasks, submit, 2 * workers, deque())

    try:
        yield run
    except BaseException:
        # ProcessPoolExecutor has no public way to stop its workers before Python 3.14
        # (terminate_workers); its ``_processes`` map is the one place they are listed.
        processes = list((pool._processes or {}).values())
        pool.shutdown(wait=False, cancel_futures=True)
        stop_processes(processes)
        raise
    pool.shutdown(wait=True)
