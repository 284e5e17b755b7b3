"""Fill the chunk summary tables of a store whose matches were replayed before they existed (issue 17).

The replay step appends each replayed chunk's summaries (``pipelines.chunk_summaries``:
``seat_patterns``, ``deal_fingerprints``, ``player_match_patterns``, ``player_match_leads``)
with its other tables, and the summary steps read only those. A store replayed before holds its
matches' replayed tables without these (``seat_patterns`` then was a table rewritten whole on
every run), so the first run after the upgrade computes them once from the whole store: the
replayed tables are read in slices of whole matches (match id ranges, so memory is bounded by
the slice), each summarised as a chunk would be, and every summary table the store lacks is
written and named by one commit of its own. From then on they are appended per chunk.

A summary the commit log does not name is lacking when one of the replayed tables it is
computed from has rows: a store built since has both or neither, since every chunk with rows in
those tables has rows in the summary (``chunk_summaries.SOURCES``). The tables are replaced, not
appended to, so a run killed before the commit leaves each a whole table (the readers' run
keeps reading the version it names) and the next run writes the same content and commits it.
"""

from __future__ import annotations

import pyarrow as pa
import pyarrow.compute as pc

from pipelines.chunk_summaries import COLUMNS, SOURCES, summarise
from pipelines.store import Store

SLICE_PLAYS = 1_500_000
"""``plays`` rows read at once (about 300 MiB in Arrow): the slices' size."""


def lacking(store: Store) -> list[str]:
    """The summary tables the last commit does not name although a table they come from has rows."""
    named = store.reading().versions
    return [name for name, sources in SOURCES.items()
            if name not in named and any(store.has_data(s) for s in sources)]


def backfill(store: Store) -> dict[str, int]:
    """Compute every :func:`lacking` summary table from the whole store, write it and commit.

    Returns the rows written per table (nothing lacking: empty, and nothing read). Holds the
    writer lock, after undoing a crashed step like every step (``Store.recover``).
    """
    with store.writer_lock():
        store.recover()
        names = lacking(store)
        if not names:
            return {}
        parts: dict[str, list[pa.Table]] = {name: [] for name in names}
        for where in _slices(store):
            tables = {name: store.read_table(name, columns, where) for name, columns in COLUMNS.items()}
            out = summarise(tables)
            for name in names:
                parts[name].append(out[name])
        versions = {}
        for name, tables in parts.items():
            store.write_table(name, pa.concat_tables(tables))
            version = store.version(name)
            assert version is not None
            versions[name] = version
        last = store.reading()
        store.commit(None, versions, unquarantined=last.unquarantined, malformed_rows=last.malformed_rows)
        return {name: sum(t.num_rows for t in tables) for name, tables in parts.items()}


def _slices(store: Store) -> list[pc.Expression]:
    """Filters on ``match_id`` that cut the store into ranges of whole matches of about
    :data:`SLICE_PLAYS` plays each (the first and last open-ended, so every match is in one)."""
    ids = sorted(set(store.read_table("matches", columns=["match_id"])["match_id"].to_pylist()))
    count = max(1, min(len(ids), -(-store.row_count("plays") // SLICE_PLAYS)))
    bounds = [ids[len(ids) * i // count] for i in range(1, count)]
    field = pc.field("match_id")
    out = []
    for i in range(count):
        where = pc.scalar(True)
        if i > 0:
            where = where & (field >= bounds[i - 1])
        if i < count - 1:
            where = where & (field < bounds[i])
        out.append(where)
    return out
