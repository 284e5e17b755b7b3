"""Append batches: a step stages its output as Parquet files under ``staging/<batch>/``, then
each staged table is appended to its Delta table by linking the files in, one Delta commit per
table carrying the batch id, so a retried batch is never appended twice."""

from __future__ import annotations

import os
import shutil
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import orjson
import pyarrow as pa
import pyarrow.parquet as pq
from deltalake import CommitProperties, DeltaTable, Schema, Transaction
from deltalake.transaction import AddAction, create_table_with_add_actions

from pipelines.storage.delta import (
    APP,
    BATCH,
    BATCH_KEY,
    BATCHED,
    commit_once,
    open_table,
    schema_of,
    table_uri,
)
from pipelines.storage.layout import StoreLayout
from pipelines.storage.tables import TableReader
from schemas.catalog import ALL_TABLES

APPEND_ROWS = 65_536
"""Rows per record batch when a staged batch is streamed into its Delta table."""


class Staging:
    """The staged batches of the store at ``layout``."""

    def __init__(self, layout: StoreLayout, reader: TableReader) -> None:
        self.layout = layout
        self.reader = reader

    def stage_file(
        self, batch_id: str, name: str, partition: Mapping[str, object] | None = None, part: int = 0
    ) -> Path:
        """Parquet file ``part`` of append batch ``batch_id`` of table ``name`` (in one partition).

        Its folder is created; the file is the caller's to write. Every part is appended with
        the batch by :meth:`publish_batch`.
        """
        schema_of(name)
        folder = self.layout.staging_dir / batch_id / name
        for key, value in (partition or {}).items():
            folder = folder / f"{key}={value}"
        folder.mkdir(parents=True, exist_ok=True)
        return folder / f"part-{part:05d}.parquet"

    def published_name(self, batch_id: str, name: str, staged: Path) -> str:
        """The path, relative to table ``name``'s folder, under which :meth:`publish_batch` links
        the staged file ``staged`` (a :meth:`stage_file` path of batch ``batch_id``)."""
        folder = self.layout.staging_dir / batch_id / name
        values = _partition_values(folder, staged, batch_id if name in BATCHED else None)
        table_dir = self.layout.table_path(name)
        return _target(table_dir, batch_id, values, staged.name).relative_to(table_dir).as_posix()

    def publish_batch(self, batch_id: str) -> dict[str, int]:
        """Append every staged table of ``batch_id`` to its Delta table; returns the new versions.

        One Delta commit per table adding the staged files themselves (:meth:`_append_staged`:
        linked into the table, not rewritten), carrying the app transaction ``gdan-batch-<id>``:
        a table that already holds this batch (a retry after a commit whose answer was lost) is
        not appended again. Readers and the next steps see the batch only once :meth:`commit`
        names these versions; until then :meth:`recover` would roll them back.
        """
        staged = self.layout.staging_dir / batch_id
        names = sorted(p.name for p in staged.iterdir()) if staged.exists() else []
        versions = {}
        for name in names:
            versions[name] = self._append_staged(name, batch_id, staged / name)
        self.discard_batch(batch_id)
        return versions

    def discard_batch(self, batch_id: str) -> None:
        """Drop a staged batch that will not be published (nothing to commit)."""
        shutil.rmtree(self.layout.staging_dir / batch_id, ignore_errors=True)
        if self.layout.staging_dir.exists() and not any(self.layout.staging_dir.iterdir()):
            self.layout.staging_dir.rmdir()

    def _append_staged(self, name: str, batch_id: str, folder: Path) -> int:
        """Append the staged Parquet files of one table of a batch as Delta add actions.

        Each staged file is linked into the table's folder under its partition path
        (:func:`_target`) and the links are committed in one Delta commit
        (``create_write_transaction``, or ``create_table_with_add_actions`` for the table's first
        batch), so no row is decoded or encoded again (``write_deltalake`` re-encoded
        every appended row). A staged file whose Arrow schema is not exactly the table's is
        rewritten once, cast to it, so every file of the table reads with the table's schema.
        The links a crashed publish left uncommitted are removed by :meth:`recover`.
        """
        files = sorted(folder.rglob("*.parquet"))
        if not files:
            return self.reader.version(name) or 0
        keys = [p.split("=", 1)[0] for p in files[0].relative_to(folder).parts[:-1]]
        batched = name in BATCHED
        partition_by = [BATCH, *keys] if batched else keys
        schema = schema_of(name)
        out = pa.schema([*schema, *(pa.field(k, pa.int32()) for k in keys),
                         *([pa.field(BATCH, pa.string())] if batched else [])])
        path = self.layout.table_path(name)
        app = f"{APP}{batch_id}"
        properties = CommitProperties(app_transactions=[Transaction(app_id=app, version=1)],
                                      custom_metadata={BATCH_KEY: batch_id})

        def link_and_commit(current: DeltaTable | None) -> None:
            actions = []
            for file in files:
                values = _partition_values(folder, file, batch_id if batched else None)
                target = _target(path, batch_id, values, file.name)
                _place(file, target, schema)
                actions.append(_add_action(path, target, values))
            _commit_adds(path, current, actions, out, partition_by, properties)

        return commit_once(path, app, link_and_commit)

    def remove_orphans(self) -> list[Path]:
        """Remove the files a crashed :meth:`publish_batch` linked into a table but did not commit.

        They are found from the staged batches still in ``staging/`` (a publish drops its batch
        only after every table's commit): each staged file's link in its table (:func:`_target`)
        is an orphan when that table does not hold the batch's app transaction. Returns them.
        """
        out = []
        for staged in sorted(self.layout.staging_dir.glob("*/*")) if self.layout.staging_dir.exists() else []:
            batch_id, name = staged.parent.name, staged.name
            if name not in ALL_TABLES or not staged.is_dir():
                continue
            path = self.layout.table_path(name)
            table = open_table(path)
            if table is not None and table.transaction_version(f"{APP}{batch_id}") is not None:
                continue
            for file in sorted(staged.rglob("*.parquet")):
                values = _partition_values(staged, file, batch_id if name in BATCHED else None)
                target = _target(path, batch_id, values, file.name)
                if target.exists():
                    target.unlink()
                    out.append(target)
                    _prune_empty(target.parent, path)
            if table is None and path.exists() and not any(path.rglob("*")):
                path.rmdir()
        return out


def _partition_values(folder: Path, file: Path, batch_id: str | None) -> dict[str, str]:
    """The partition values of staged ``file`` from its path under ``folder`` (``key=value``
    folders), the batch first when the table is partitioned by batch (``batch_id`` given)."""
    values = dict(p.split("=", 1) for p in file.relative_to(folder).parts[:-1])
    return {BATCH: batch_id, **values} if batch_id is not None else values


def _target(table_dir: Path, batch_id: str, values: Mapping[str, str], name: str) -> Path:
    """Where staged file ``name`` of batch ``batch_id`` is linked in the table at ``table_dir``:
    under its partition path (``values`` in partition order), named after the batch."""
    folder = table_dir.joinpath(*(f"{k}={v}" for k, v in values.items()))
    return folder / f"part-{batch_id}-{name}"


def _place(staged: Path, target: Path, schema: pa.Schema) -> None:
    """Put the staged Parquet file at ``target`` in its table: a hard link when its Arrow schema
    is exactly ``schema`` (types, nullability, field order), else a copy cast to ``schema``."""
    target.parent.mkdir(parents=True, exist_ok=True)
    target.unlink(missing_ok=True)
    if pq.read_schema(staged).remove_metadata().equals(schema.remove_metadata()):
        os.link(staged, target)
        return
    source = pq.ParquetFile(staged)
    with pq.ParquetWriter(target, schema, compression="zstd", store_schema=False) as writer:
        for batch in source.iter_batches(batch_size=APPEND_ROWS, columns=schema.names):
            writer.write_table(pa.Table.from_batches([batch]).select(schema.names).cast(schema))


STATS_COLUMNS = 32
"""Leading columns with min/max/null-count statistics in an add action (Delta's default
``delta.dataSkippingNumIndexedCols``)."""
_STATS_TYPES = (pa.types.is_integer, pa.types.is_string)
"""Column types whose Parquet footer min/max are exact in Delta's statistics (timestamps are
kept to milliseconds there and floats have NaN, so those get a null count only)."""
_STRING_STATS = 32
"""Longest string min/max kept (Delta truncates longer ones; such a column gets no min/max)."""


def _add_action(table_dir: Path, file: Path, values: Mapping[str, str]) -> AddAction:
    """The Delta add action of the Parquet ``file`` in the table at ``table_dir``, with the
    statistics its footer gives (rows; min, max and nulls of flat columns: data skipping)."""
    info = file.stat()
    return AddAction(
        path=file.relative_to(table_dir).as_posix(),
        size=info.st_size,
        partition_values=dict(values),
        modification_time=info.st_mtime_ns // 1_000_000,
        data_change=True,
        stats=orjson.dumps(_file_stats(pq.ParquetFile(file).metadata)).decode(),
    )


def _file_stats(meta: pq.FileMetaData) -> dict[str, Any]:
    """Delta's ``stats`` of one Parquet file from its footer: ``numRecords``, and per flat column
    among the first :data:`STATS_COLUMNS` its ``nullCount`` and, when exact, ``minValues``/``maxValues``."""
    arrow = meta.schema.to_arrow_schema()
    mins: dict[str, Any] = {}
    maxs: dict[str, Any] = {}
    nulls: dict[str, int] = {}
    leaves = {meta.schema.column(i).path: i for i in range(meta.num_columns)}
    for field in list(arrow)[:STATS_COLUMNS]:
        index = leaves.get(field.name)
        if index is None:
            continue
        stats = [meta.row_group(g).column(index).statistics for g in range(meta.num_row_groups)]
        if not all(s is not None and s.has_null_count for s in stats):
            continue
        nulls[field.name] = sum(s.null_count for s in stats)
        ranged = [s for s in stats if s.num_values]
        exact = any(check(field.type) for check in _STATS_TYPES)
        if not exact or not ranged or not all(s.has_min_max for s in ranged):
            continue
        low, high = min(s.min for s in ranged), max(s.max for s in ranged)
        if isinstance(low, str) and max(len(low), len(high)) > _STRING_STATS:
            continue
        mins[field.name], maxs[field.name] = low, high
    return {"numRecords": meta.num_rows, "minValues": mins, "maxValues": maxs, "nullCount": nulls}


def _commit_adds(
    table_dir: Path,
    current: DeltaTable | None,
    actions: list[AddAction],
    schema: pa.Schema,
    partition_by: list[str],
    properties: CommitProperties,
) -> None:
    """Commit ``actions`` (files already in the table's folder) as one Delta append; the first
    commit of a table creates it with ``schema`` (schema columns, then partition columns)."""
    if current is None:
        create_table_with_add_actions(
            table_uri(table_dir), Schema.from_arrow(schema), actions, mode="append",
            partition_by=partition_by or None, commit_properties=properties,
        )
        return
    current.create_write_transaction([*actions], mode="append", schema=current.schema(),
                                     partition_by=partition_by or None, commit_properties=properties)


def _prune_empty(folder: Path, top: Path) -> None:
    """Remove ``folder`` and its parents up to (not including) ``top`` while they are empty."""
    while folder != top and folder.is_dir() and not any(folder.iterdir()):
        folder.rmdir()
        folder = folder.parent
