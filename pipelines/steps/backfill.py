"""Fill the chunk summary tables of a store whose matches were replayed before they existed.

The replay step appends each replayed chunk's summaries (``pipelines.steps.chunk_summaries``:
``seat_patterns``, ``deal_fingerprints``, ``player_match_patterns``, ``player_match_leads``)
with its other tables, and the summary steps read only those. A store replayed before holds its
matches' replayed tables without these (``seat_patterns`` then was a table rewritten whole on
every run), so the first run after the upgrade computes them once from the whole store: one scan of
each replayed table splits its rows by a hash of the match id into slices of whole matches
(Arrow files under ``staging/``, so memory is bounded by a slice however large the store), each
slice is summarised as a chunk would be, and every summary table the store lacks is written and
named by one commit of its own. From then on they are appended per chunk.

A summary the commit log does not name is lacking when one of the replayed tables it is
computed from has rows: a store built since has both or neither, since every chunk with rows in
those tables has rows in the summary (``chunk_summaries.SOURCES``). The tables are replaced, not
appended to, so a run killed before the commit leaves each a whole table (the readers' run
keeps reading the version it names) and the next run writes the same content and commits it.
"""

from __future__ import annotations

import shutil
import zlib
from pathlib import Path

import pyarrow as pa
import pyarrow.compute as pc

from pipelines.steps.chunk_summaries import COLUMNS, SOURCES, summarise
from pipelines.storage.delta import new_id
from pipelines.storage.store import Store
from schemas.catalog import ALL_TABLES

SLICE_PLAYS = 1_500_000
"""``plays`` rows summarised at once (about 300 MiB in Arrow): the slices' size."""
_IPC = pa.ipc.IpcWriteOptions(compression="lz4")


def lacking(store: Store) -> list[str]:
    """The summary tables the last commit does not name although a table they come from has rows."""
    named = store.reading().versions
    return [name for name, sources in SOURCES.items()
            if name not in named and any(store.has_data(s) for s in sources)]


def backfill(store: Store) -> dict[str, int]:
    """Compute every :func:`lacking` summary table from the whole store, write it and commit.

    Returns the rows written per table (nothing lacking: empty, and nothing read). Holds the
    writer lock, after undoing a crashed step like every step (``Store.recover``, which also
    removes the slices a killed backfill left in ``staging/``).
    """
    with store.writer_lock():
        store.recover()
        names = lacking(store)
        if not names:
            return {}
        count = max(1, -(-store.row_count("plays") // SLICE_PLAYS))
        folder = store.staging_dir / f"backfill-{new_id()}"
        folder.mkdir(parents=True)
        parts: dict[str, list[pa.Table]] = {name: [] for name in names}
        try:
            for files in _split(store, folder, count):
                out = summarise({name: pa.ipc.open_file(path).read_all() for name, path in files.items()})
                for name in names:
                    parts[name].append(out[name])
                for path in files.values():
                    path.unlink()
        finally:
            shutil.rmtree(folder, ignore_errors=True)
        versions = {}
        for name, tables in parts.items():
            store.write_table(name, pa.concat_tables(tables))
            version = store.version(name)
            assert version is not None
            versions[name] = version
        last = store.reading()
        store.commit(None, versions, unquarantined=last.unquarantined, malformed_rows=last.malformed_rows)
        return {name: sum(t.num_rows for t in tables) for name, tables in parts.items()}


def _split(store: Store, folder: Path, count: int) -> list[dict[str, Path]]:
    """Every replayed table's :data:`COLUMNS` in ``count`` slices of whole matches (by a hash of
    the match id), one Arrow file per slice and table under ``folder``, in one scan per table."""
    files = [{name: folder / f"{k}-{name}.arrow" for name in COLUMNS} for k in range(count)]
    for name, columns in COLUMNS.items():
        schema = pa.schema([ALL_TABLES[name].field(c) for c in columns])
        writers = [pa.ipc.new_file(files[k][name], schema, options=_IPC) for k in range(count)]
        try:
            dataset = store.dataset(name)
            for batch in dataset.to_batches(columns=columns) if dataset is not None else ():
                rows = pa.Table.from_batches([batch]).cast(schema)
                slices = _slice_of(rows["match_id"], count)
                for k in pc.unique(slices).to_pylist():
                    writers[k].write_table(rows.filter(pc.equal(slices, k)))
        finally:
            for writer in writers:
                writer.close()
    return files


def _slice_of(match_ids: pa.ChunkedArray, count: int) -> pa.Array:
    """Each row's slice: a stable hash (crc32) of its match id, modulo ``count``."""
    ids = match_ids.combine_chunks()
    unique = pc.unique(ids)
    slices = pa.array([zlib.crc32(m.encode()) % count for m in unique.to_pylist()], pa.int64())
    return pc.take(slices, pc.index_in(ids, value_set=unique))
