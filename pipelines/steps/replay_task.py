"""The replay step's worker task: replay a chunk of whole matches, summarise it, then review it.

Its own small module because a worker has the module of the function it runs imported (the
pool's forkserver preloads it, ``pipelines.exec.pool.PRELOAD``; a Dask worker imports it): this one
needs only pyarrow and the replayer, not the store, polars or DuckDB that
``pipelines.steps.replaying`` imports (about 140 MiB less per worker).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import NamedTuple

import pyarrow as pa

from pipelines.steps.chunk_summaries import summarise

ReplayFn = Callable[[pa.Table], dict[str, pa.Table]]
"""Events of a chunk of whole matches -> the derived tables (``replay.replay_batch``)."""
ReviewFn = Callable[[pa.Table, dict[str, pa.Table]], pa.Table]
"""Events of a chunk and their replayed tables -> ``play_reviews`` rows."""


class TaskCpu(NamedTuple):
    """CPU seconds of one task's parts, as measured in the worker (``time.process_time``)."""

    replay: float
    """In ``replay_batch``."""
    summaries: float
    """In the chunk's summary tables (``pipelines.steps.chunk_summaries``)."""
    review: float
    """In the reviews (0 without)."""


def replay_task(fn: ReplayFn, review: ReviewFn | None, ids: list[str], table: pa.Table
                ) -> tuple[list[str], int, dict[str, pa.Table], TaskCpu]:
    """Replay a chunk of whole matches, add its summary tables, then review it unless ``review``
    is None.

    Returns the match ids, the events' count, the tables, and the CPU seconds of each part.
    """
    start = time.process_time()
    out = fn(table)
    replayed = time.process_time()
    out = {**out, **summarise(out)}
    summarised = time.process_time()
    if review is None:
        return ids, table.num_rows, out, TaskCpu(replayed - start, summarised - replayed, 0.0)
    out["play_reviews"] = review(table, out)
    return ids, table.num_rows, out, TaskCpu(replayed - start, summarised - replayed,
                                             time.process_time() - summarised)
