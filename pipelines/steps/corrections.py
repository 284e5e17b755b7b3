"""Corrections (docs/event-extensions.md): retract a replaced revision's rows, list superseded revisions.

A referee corrects a match by submitting its whole log again with a higher
``match_start.revision``. The ingest state then holds the match at that revision
(``pipelines.steps.state.MatchInfo``) and the replay step replays it alone; this module does the two
other parts of the job:

- :func:`retract_matches` removes every row of the given matches from the tables the replay step
  appends to, before the new revision's rows are staged, so a match is in them once. Only the
  files holding rows of those matches are rewritten, each table's as one new Delta version
  (``Store.delete_rows``: readers of the published run keep the previous one), which the replay
  step's commit names. A crash after it and before that commit rolls the deletion back
  (``Store.recover``) and leaves the state asking for the retraction again, and the next replay
  completes it; readers never see the gap (they read the last published run).
- :func:`write_superseded` recomputes the ``superseded`` table: one row per lower revision of a
  match, from its raw rows, which are never removed.
"""

from __future__ import annotations

import polars as pl
import pyarrow as pa

from pipelines.steps.state import CORRECTED, MatchInfo, StoreState, load_state, select
from pipelines.storage.delta import of_matches
from pipelines.storage.store import Store
from schemas.tables import SUPERSEDED

_COLUMNS = ["match_id", "revision", "source_file", "ingested_at"]


def retract_matches(store: Store, match_ids: list[str], tables: list[str]) -> dict[str, int]:
    """Remove the rows of ``match_ids`` from ``tables`` (``Store.delete_rows``); rows removed per table."""
    if not match_ids:
        return {}
    removed = {name: store.delete_rows(name, "match_id", match_ids) for name in tables}
    return {name: n for name, n in removed.items() if n}


def superseded_table(store: Store, corrected: dict[str, MatchInfo]) -> pa.Table:
    """One ``superseded`` row per lower revision of each match of ``corrected``, from its raw rows.

    ``superseded_by`` is the revision in force (the match's highest); ``events`` counts the raw
    rows of the revision, duplicates included, as ``raw_events`` holds them.
    """
    frames = []
    for bucket in sorted({i.bucket for i in corrected.values()}):
        infos = {m: i for m, i in corrected.items() if i.bucket == bucket}
        batches = sorted({b for i in infos.values() for b in i.batches})
        files = store.batch_files("raw_events", batches, {"bucket": bucket})
        if not files:
            continue
        where = of_matches(infos)
        part = store.read_files("raw_events", files, columns=_COLUMNS, where=where)
        frame = pl.from_arrow(part)
        assert isinstance(frame, pl.DataFrame)
        frames.append(frame)
    if not frames:
        return SUPERSEDED.empty_table()
    in_force = pl.DataFrame(
        {"match_id": list(corrected), "superseded_by": [i.revision for i in corrected.values()]},
        schema={"match_id": pl.String, "superseded_by": pl.Int32},
    )
    out = (
        pl.concat(frames)
        .join(in_force, on="match_id")
        .filter(pl.col("revision") < pl.col("superseded_by"))
        .group_by("match_id", "revision", "superseded_by")
        .agg(
            source_files=pl.col("source_file").unique().sort(),
            ingested_at=pl.col("ingested_at").min(),
            events=pl.len(),
        )
        .sort("match_id", "revision")
    )
    return out.to_arrow().select(SUPERSEDED.names).cast(SUPERSEDED)


def write_superseded(store: Store, state: StoreState | None = None) -> int:
    """Replace ``superseded`` by the lower revisions the state records; returns its row count.

    Holds the writer lock, so the table matches the state committed at that moment (``state``,
    when the caller has loaded it already: the replay step, for this and ``incomplete_matches``);
    only the raw rows of corrected matches are read.
    """
    with store.writer_lock():
        state = load_state(store) if state is None else state
        corrected = select(state.matches, CORRECTED)
        table = superseded_table(store, corrected)
        store.write_table("superseded", table)
        return table.num_rows
