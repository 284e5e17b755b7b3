"""Reading the store's tables at the versions a store reads: the step commit it is pinned to or
the last one for append tables, the latest version for full-replace tables."""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pyarrow as pa

from pipelines.storage.commit_log import NO_COMMIT, Commit, CommitLog, Snapshot
from pipelines.storage.delta import (
    BATCH,
    INPUTS,
    at_version,
    files_at,
    is_uncommitted_append,
    latest_table,
    local_path,
    log_identity,
    rows_logged,
    scan,
    schema_of,
)
from pipelines.storage.layout import StoreLayout
from schemas.catalog import ALL_TABLES

if TYPE_CHECKING:
    import pyarrow.dataset as ds


class TableReader:
    """Reads the tables of the store at ``layout`` as of ``pin`` (None: the last step commit)."""

    def __init__(self, layout: StoreLayout, log: CommitLog, pin: Commit | None = None) -> None:
        self.layout = layout
        self.log = log
        self.pin = pin

    def reading(self) -> Commit:
        """The step commit this store reads: its pin, else the last one."""
        if self.pin is not None:
            return self.pin
        return self.log.last_commit() or NO_COMMIT

    def version(self, name: str) -> int | None:
        """The version of table ``name`` this store reads (None: no table yet).

        An append table is read at the version the store's commit names; a full-replace table
        (not named by step commits) at its latest version.
        """
        named = self.reading().versions.get(name)
        if named is not None:
            return named
        table = latest_table(self.layout.table_path(name))
        return None if table is None or is_uncommitted_append(table) else table.version()

    def snapshot(self, seq: int | None = None) -> Snapshot:
        """Every table's version as of the step commit ``seq`` (default: the one this store reads).

        Append tables at that commit's versions, full-replace tables at their latest version.
        """
        commit = self.reading() if seq is None else self.log.step(seq)
        reader = TableReader(self.layout, self.log, commit)
        versions = {name: v for name in ALL_TABLES if (v := reader.version(name)) is not None}
        return Snapshot(seq=commit.seq, versions=versions)

    def has_data(self, name: str) -> bool:
        """Whether table ``name`` has at least one row file at the version this store reads."""
        version = self.version(name)
        return bool(self.data_files(name, version)) if version is not None else False

    def inputs(self) -> dict[str, int]:
        """Per table written by a pinned store: the step commit (seq) its writer read."""
        return {name: seq for name in ALL_TABLES if (seq := self.input_of(name)) is not None}

    def input_of(self, name: str) -> int | None:
        """The step commit (seq) table ``name`` was last computed from (:meth:`inputs`), if recorded."""
        table = latest_table(self.layout.table_path(name))
        value = table.metadata().configuration.get(INPUTS) if table is not None else None
        return None if value is None else int(value)

    def row_count(self, name: str) -> int:
        """Rows of table ``name`` at its latest version, from the Delta log (no data file read)."""
        table = latest_table(self.layout.table_path(name))
        return 0 if table is None else rows_logged(table)

    def committed_rows(self, name: str) -> int:
        """Rows of table ``name`` at the version this store reads (:meth:`version`), from the Delta
        log's file statistics, so counting reads no data file (``gdan run``'s quarantine count)."""
        version = self.version(name)
        return 0 if version is None else rows_logged(at_version(self.layout.table_path(name), version))

    def dataset(self, name: str, version: int | None = None) -> ds.Dataset | None:
        """The Arrow dataset of table ``name`` at ``version`` (default :meth:`version`); None: no table.

        Over exactly the version's Parquet files, read by pyarrow's own file system with the
        partition columns from the paths (not delta-rs's ``to_pyarrow_dataset``, whose file
        system handler could abort the process at exit).
        """
        import pyarrow.dataset as ds  # a rerun with nothing new reads no table (it imports pandas)

        version = self.version(name) if version is None else version
        if version is None:
            return None
        path = self.layout.table_path(name)
        table = at_version(path, version)
        schema = schema_of(name)
        keys = list(table.metadata().partition_columns)
        fields = [
            schema.field(k) if k in schema.names else pa.field(k, pa.string() if k == BATCH else pa.int32())
            for k in keys
        ]
        full = pa.schema([*schema, *(f for f in fields if f.name not in schema.names)])
        files = [local_path(u) for u in table.file_uris()]
        partitioning = ds.partitioning(pa.schema(fields), flavor="hive") if keys else None
        return ds.dataset(files, schema=full, format="parquet", partitioning=partitioning,
                          partition_base_dir=str(path))

    def data_files(self, name: str, version: int | None = None) -> list[str]:
        """The absolute paths of the Parquet files of table ``name`` at ``version`` (:meth:`version`)."""
        version = self.version(name) if version is None else version
        if version is None:
            return []
        return [local_path(u) for u in files_at(self.layout.table_path(name), version)]

    def read_table(
        self,
        name: str,
        columns: list[str] | None = None,
        where: ds.Expression | None = None,
    ) -> pa.Table:
        """All rows of table ``name`` at the version this store reads, typed by its schema.

        Partition columns that are not schema columns (``batch``, ``bucket``) are dropped.
        A table with no rows yet is a typed empty table. A whole read (no ``where``) is kept for
        the next one of the same columns at the same version (:func:`_kept_read`).
        """
        schema = schema_of(name)
        wanted = columns or schema.names
        out_schema = pa.schema([schema.field(c) for c in wanted])
        version = self.version(name)
        if version is None:
            return out_schema.empty_table()
        path = self.layout.table_path(name)
        key = (path, version, log_identity(path, version), tuple(wanted))
        kept = _kept_read(key) if where is None else None
        if kept is not None:
            return kept
        dataset = self.dataset(name, version)
        assert dataset is not None
        table = scan(dataset, wanted, where).cast(out_schema)
        if where is None:
            _keep_read(key, table)
        return table

    def batch_files(
        self, name: str, batches: Sequence[str], partition: Mapping[str, object] | None = None
    ) -> list[Path]:
        """The Parquet files of the given committed batches of table ``name`` (one of :data:`BATCHED`).

        ``partition`` (e.g. ``{"bucket": 3}``) keeps the files of that partition; a list value
        (``{"bucket": [3, 5]}``) the files of any of those.
        """
        version = self.version(name)
        if version is None or not batches:
            return []
        filters: list[tuple[str, str, Any]] = [
            (k, "in", [str(x) for x in v]) if isinstance(v, list) else (k, "=", str(v))
            for k, v in (partition or {}).items()
        ]
        filters.append((BATCH, "in", list(batches)))
        uris = at_version(self.layout.table_path(name), version).file_uris(file_pruning_predicate=filters)
        return [Path(local_path(u)) for u in uris]

    def read_files(
        self,
        name: str,
        files: list[Path],
        columns: list[str] | None = None,
        where: ds.Expression | None = None,
    ) -> pa.Table:
        """Rows of the given Parquet files of table ``name``, typed by its schema (no partition columns)."""
        import pyarrow.dataset as ds

        if not files:
            raise ValueError("read_files needs at least one file")
        dataset = ds.dataset([str(f) for f in files], schema=schema_of(name), format="parquet")
        return scan(dataset, columns, where)


_reads_lock = threading.Lock()
_ReadKey = tuple[Path, int, tuple[int, int], tuple[str, ...]]
"""A whole read: the table's path, version, that version's log entry identity, the columns."""
_reads: OrderedDict[_ReadKey, pa.Table] = OrderedDict()
"""Whole tables read (:meth:`Store.read_table`), by path, version, its log entry's identity and
columns, least recently used first: a run's steps read ``match_scores`` six times, ``matches``
four, ``scoring_partitions`` eight (≈ 1.2 s of a run adding 1,000 deals to a 1M store)."""
READS_KEPT_BYTES = 96 * 2**20
"""At most this many bytes of :data:`_reads` (a table over half of it is not kept): at 1M deals
``match_scores``, ``matches`` and ``scoring_partitions`` (95 MiB together) are kept, and the
first run's scoring steps, whose peaks came within 150 MiB of the 2 GiB target, gain no more."""


def forget_reads_under(folder: Path) -> None:
    """Drop the whole reads kept of tables under ``folder`` (see ``delta.forget_under``)."""
    with _reads_lock:
        for key in [k for k in _reads if k[0].is_relative_to(folder)]:
            del _reads[key]


def _kept_read(key: _ReadKey) -> pa.Table | None:
    """A whole read kept by :func:`_keep_read` (a version never changes once written)."""
    with _reads_lock:
        table = _reads.get(key)
        if table is not None:
            _reads.move_to_end(key)
        return table


def _keep_read(key: _ReadKey, table: pa.Table) -> None:
    """Keep ``table`` for :func:`_kept_read`, dropping the least recently used over the budget."""
    if key[2][0] < 0 or table.nbytes > READS_KEPT_BYTES // 2:
        return
    with _reads_lock:
        _reads[key] = table
        while sum(t.nbytes for t in _reads.values()) > READS_KEPT_BYTES:
            _reads.popitem(last=False)
