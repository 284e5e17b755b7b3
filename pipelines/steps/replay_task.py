"""The replay step's worker task: replay a chunk of whole matches, summarise it, then review it.

Its own small module because a worker has the module of the function it runs imported (the
pool's forkserver preloads it, ``pipelines.exec.pool.PRELOAD``; a Dask worker imports it): this one
needs only pyarrow and the replayer, not the store, polars or DuckDB that
``pipelines.steps.replaying`` imports (about 140 MiB less per worker).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping, Sequence
from typing import Any, NamedTuple

import pyarrow as pa

from pipelines.steps.chunk_summaries import summarise
from replay.replayer import paused_gc

ParsedEvents = Mapping[str, Sequence[Mapping[str, Any]]]
"""Each replayed match's events as parsed JSON objects, by match id."""
ReplayFn = Callable[[pa.Table], dict[str, pa.Table] | tuple[dict[str, pa.Table], ParsedEvents]]
"""Events of a chunk of whole matches -> the derived tables (``replay.replay_batch``, or a
stand-in), or the tables and the events it parsed (``replay.replay_batch_with_events``), which the
review then reads instead of parsing the chunk's payloads again."""
ReviewFn = Callable[[pa.Table, dict[str, pa.Table], ParsedEvents | None], pa.Table]
"""Events of a chunk, their replayed tables and, when the replay kept them, their parsed events
-> ``play_reviews`` rows."""


class TaskCpu(NamedTuple):
    """CPU seconds of one task's parts, as measured in the worker (``time.process_time``)."""

    replay: float
    """In the replay function (``replay_batch``)."""
    summaries: float
    """In the chunk's summary tables (``pipelines.steps.chunk_summaries``)."""
    review: float
    """In the reviews (0 without)."""


def replay_task(fn: ReplayFn, review: ReviewFn | None, ids: list[str], table: pa.Table
                ) -> tuple[list[str], int, dict[str, pa.Table], TaskCpu]:
    """Replay a chunk of whole matches, add its summary tables, then review it unless ``review``
    is None.

    Returns the match ids, the events' count, the tables, and the CPU seconds of each part. The
    cyclic garbage collector stays paused while the task holds the replay's parsed events
    (``replay.replayer.paused_gc``): a collection would traverse every one of them.
    """
    with paused_gc():
        start = time.process_time()
        replayed = fn(table)
        out, parsed = replayed if isinstance(replayed, tuple) else (replayed, None)
        replay_end = time.process_time()
        out = {**out, **summarise(out)}
        summarised = time.process_time()
        if review is None:
            return ids, table.num_rows, out, TaskCpu(replay_end - start, summarised - replay_end, 0.0)
        out["play_reviews"] = review(table, out, parsed)
        return ids, table.num_rows, out, TaskCpu(replay_end - start, summarised - replay_end,
                                                 time.process_time() - summarised)
