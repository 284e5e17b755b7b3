"""The pipeline's memory tables (``state/<name>/``): appended to by the steps, read at the
versions the store's commit names, each file read once per process."""

from __future__ import annotations

import threading
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq

from pipelines.storage.delta import READS, at_version, empty_table, latest_table, local_path
from pipelines.storage.layout import StoreLayout
from pipelines.storage.tables import TableReader


class MemoryTables:
    """The memory tables of the store at ``layout``, as of what ``reader`` reads."""

    def __init__(self, layout: StoreLayout, reader: TableReader) -> None:
        self.layout = layout
        self.reader = reader

    def read_memory(self, name: str, schema: pa.Schema, *, latest: bool = False) -> pa.Table:
        """Memory table ``name`` at the version the store's commit names, or its ``latest``.

        A typed empty table when there is none. ``latest`` is for memory outside step commits
        (the check memos), which a crash cannot leave half written (one append each).
        Memory tables are append-only between rollbacks, so this process keeps what it read and
        reads only the files a later version added (a version without some file read before, a
        rollback, is read whole).
        """
        path = self.layout.memory_path(name)
        if latest:
            table = latest_table(path)
        else:
            version = self.reader.reading().versions.get(name)
            table = None if version is None else at_version(path, version)
        if table is None:
            return empty_table(schema)
        files = [local_path(u) for u in table.file_uris()]
        with _memory_lock:
            known, rows = _memory.get(path, ((), empty_table(schema)))
        if not set(known) <= set(files) or not rows.schema.equals(schema):
            known, rows = (), empty_table(schema)
        new = [f for f in files if f not in set(known)]
        parts = [pq.ParquetFile(f).read().select(schema.names).cast(schema) for f in new]
        data = pa.concat_tables([rows, *parts]) if parts else rows
        READS[name] = READS.get(name, 0) + data.num_rows - rows.num_rows
        with _memory_lock:
            _memory[path] = ((*known, *new), data)
        return data


_memory: dict[Path, tuple[tuple[str, ...], pa.Table]] = {}
"""Per memory table: the files this process read and their rows (see :meth:`Store.read_memory`)."""
_memory_lock = threading.Lock()
