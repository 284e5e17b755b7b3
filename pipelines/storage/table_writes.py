"""Writing the store's full-replace tables: a whole replacement that is a no-op when the content
is unchanged, and row deletions and replacements whose cost follows the rows touched."""

from __future__ import annotations

import hashlib
import io
from collections.abc import Sequence
from typing import TYPE_CHECKING

import pyarrow as pa
from deltalake import DeltaTable, write_deltalake

from pipelines.storage.delta import (
    INPUTS,
    append_once,
    latest_table,
    new_id,
    open_table,
    schema_of,
    table_uri,
)
from pipelines.storage.layout import StoreLayout
from pipelines.storage.lock import WriterLock
from pipelines.storage.tables import TableReader
from schemas.catalog import ALL_TABLES

if TYPE_CHECKING:
    from typing_extensions import Buffer

FINGERPRINT = "gdan.fingerprint"
"""Table property of a full-replace table: the content hash of its last write."""


class TableWriter:
    """Writes the tables of the store at ``layout`` under ``lock``; a pinned ``reader`` records
    its pin as the input of every table written."""

    def __init__(self, layout: StoreLayout, lock: WriterLock, reader: TableReader) -> None:
        self.layout = layout
        self.lock = lock
        self.reader = reader

    def write_table(self, name: str, table: pa.Table, partition_by: list[str] | None = None) -> None:
        """Replace table ``name`` by ``table`` (one Delta overwrite commit).

        ``table`` is cast to the table's schema first, so a wrong column fails here, before
        anything on disk changes. ``partition_by`` columns become partitions. Writing the
        same content again (same rows in the same order) changes nothing on disk, so assets
        that recompute a table on every run keep a rerun with no new input a no-op. A pinned
        store records its pin as the table's input (:meth:`inputs`). Holds the writer lock.
        """
        schema = schema_of(name)
        data = table.select(schema.names).cast(schema)
        properties = {FINGERPRINT: _fingerprint(data, partition_by)}
        if self.reader.pin is not None:
            properties[INPUTS] = str(self.reader.pin.seq)
        path = self.layout.table_path(name)
        with self.lock.hold():
            current = latest_table(path)
            config = current.metadata().configuration if current is not None else {}
            if all(config.get(k) == v for k, v in properties.items()):
                return
            writer = open_table(path) if current is not None else None
            if writer is None or config.get(FINGERPRINT) != properties[FINGERPRINT]:
                write_deltalake(
                    writer if writer is not None else table_uri(path), data, mode="overwrite",
                    partition_by=partition_by, schema_mode="overwrite" if writer is not None else None,
                )
            # One handle for the overwrite and the properties (each opening costs ≈ 10 ms here).
            handle = writer or DeltaTable(table_uri(path))
            handle.alter.set_table_properties(properties, raise_if_not_exists=False)

    def delete_rows(self, name: str, column: str, values: Sequence[str]) -> int:
        """Remove the committed rows of table ``name`` whose ``column`` is one of ``values``.

        Returns how many. One Delta ``DELETE`` commit (a new version; readers of the published
        run keep the old one): only the files holding such rows are rewritten, the others stay
        as they are, so the cost follows the files touched, not the table. Nothing changes when
        no row matches. The new version is named by the step's commit (:meth:`unnamed_versions`);
        a crash before it is rolled back by :meth:`recover`. Holds the writer lock.
        """
        schema_of(name)
        if not values:
            return 0
        listed = ", ".join("'" + v.replace("'", "''") + "'" for v in values)
        with self.lock.hold():
            table = open_table(self.layout.table_path(name))
            if table is None:
                return 0
            metrics = table.delete(f'"{column}" IN ({listed})')
            return int(metrics.get("num_deleted_rows", 0))

    def replace_rows(self, name: str, column: str, values: Sequence[str], rows: pa.Table) -> int:
        """Replace the rows of full-replace table ``name`` whose ``column`` is one of ``values``
        by ``rows``; returns the table's version after.

        A Delta ``DELETE`` (:meth:`delete_rows`: only the files holding such rows are rewritten)
        and an append of ``rows``, so the cost follows the rows replaced, not the table (the luck
        step's per-match sums). The table's content fingerprint is cleared, so that the
        next :meth:`write_table` writes whatever it is given, and a pinned store records its pin
        as the table's input. Two commits, not one: a caller that must tell a crash in between
        from a whole replacement records the version returned (``pipelines.steps.luck_statistics``).
        """
        schema = schema_of(name)
        path = self.layout.table_path(name)
        properties = {FINGERPRINT: ""}
        if self.reader.pin is not None:
            properties[INPUTS] = str(self.reader.pin.seq)
        with self.lock.hold():
            self.delete_rows(name, column, values)
            if rows.num_rows:
                append_once(path, rows.select(schema.names).cast(schema), new_id(), step=False)
            DeltaTable(table_uri(path)).alter.set_table_properties(properties, raise_if_not_exists=False)
            return DeltaTable(table_uri(path)).version()

    def unnamed_versions(self) -> dict[str, int]:
        """Tables named by the last step commit whose latest Delta version is past the one named.

        A step's :meth:`delete_rows` leaves such versions; its commit names them with its appends.
        """
        named = self.reader.reading().versions
        out = {}
        for name in ALL_TABLES:
            table = latest_table(self.layout.table_path(name)) if name in named else None
            if table is not None and table.version() > named[name]:
                out[name] = table.version()
        return out


def _fingerprint(data: pa.Table, partition_by: list[str] | None) -> str:
    """A hash of the table's content (Arrow IPC bytes) and partitioning.

    The IPC stream goes straight into the hash: held in a buffer it was one more copy of every
    table written whole (the luck sums of the 1M store: ≈ 300 MB)."""
    digest = hashlib.sha256()
    with _HashSink(digest) as sink, pa.ipc.new_stream(sink, data.schema) as writer:
        writer.write_table(data)
    digest.update(repr(partition_by).encode())
    return digest.hexdigest()


class _HashSink(io.RawIOBase):
    """A write-only file that feeds what is written to a hash."""

    def __init__(self, digest: hashlib._Hash) -> None:
        super().__init__()
        self.digest = digest

    def writable(self) -> bool:
        return True

    def write(self, data: Buffer) -> int:
        view = memoryview(data)
        self.digest.update(view)
        return view.nbytes
