"""Where a run's replay tasks go (``gdan run --executor``, the Dagster ``executor`` resource):
worker processes on this machine (``pipelines.exec.pool``) or a Dask cluster
(``pipelines.exec.dask_pool``); both give the same ``run(tasks)`` with the same order and the
same bounded number of tasks in flight."""

from __future__ import annotations

from collections.abc import Callable
from contextlib import AbstractContextManager
from dataclasses import dataclass
from enum import StrEnum
from typing import TypeVar

from pipelines.exec.ordering import Runner
from pipelines.exec.pool import ordered_map

R = TypeVar("R")


class ExecutorKind(StrEnum):
    """Where the tasks of :meth:`Executor.ordered_map` run."""

    POOL = "pool"
    """Worker processes on this machine (:func:`pipelines.exec.pool.ordered_map`)."""
    DASK = "dask"
    """A Dask distributed cluster: the one at ``address``, else a local one started for the run."""


@dataclass(frozen=True, slots=True)
class Executor:
    """The executor of a run (``gdan run --executor``, the Dagster ``executor`` resource).

    ``address`` is a Dask scheduler (``tcp://host:8786``); without one, the Dask executor
    starts a local cluster of ``workers`` single-threaded worker processes for the map and
    stops it afterwards. The pool ignores ``address``.
    """

    kind: ExecutorKind = ExecutorKind.POOL
    address: str | None = None

    def ordered_map(self, fn: Callable[..., R], workers: int) -> AbstractContextManager[Runner[R]]:
        """Like :func:`pipelines.exec.pool.ordered_map`, on this executor; ``workers <= 1`` runs here."""
        if self.kind is ExecutorKind.DASK and workers > 1:
            from pipelines.exec.dask_pool import dask_ordered_map

            return dask_ordered_map(fn, workers, self.address)
        return ordered_map(fn, workers)
