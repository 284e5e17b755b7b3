"""The replay step's worker task: replay a chunk of whole matches, then review it.

Its own small module because a spawned worker imports the module of the function it runs:
this one needs only pyarrow and the replayer, not the store, polars or DuckDB that
``pipelines.replaying`` imports (about 140 MiB less per worker; issue 17's peak memory).
"""

from __future__ import annotations

import time
from collections.abc import Callable

import pyarrow as pa

ReplayFn = Callable[[pa.Table], dict[str, pa.Table]]
"""Events of a chunk of whole matches -> the derived tables (``replay.replay_batch``)."""
ReviewFn = Callable[[pa.Table, dict[str, pa.Table]], pa.Table]
"""Events of a chunk and their replayed tables -> ``play_reviews`` rows."""


def replay_task(fn: ReplayFn, review: ReviewFn | None, ids: list[str], table: pa.Table
                ) -> tuple[list[str], int, dict[str, pa.Table], tuple[float, float]]:
    """Replay a chunk of whole matches, then review it unless ``review`` is None.

    Returns the match ids, the events' count, the tables, and the CPU seconds of the replay and
    of the review as measured in the worker (``time.process_time``).
    """
    start = time.process_time()
    out = fn(table)
    replayed = time.process_time()
    if review is None:
        return ids, table.num_rows, out, (replayed - start, 0.0)
    out = {**out, "play_reviews": review(table, out)}
    return ids, table.num_rows, out, (replayed - start, time.process_time() - replayed)
