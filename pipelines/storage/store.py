"""The store on disk: Delta Lake tables under ``<root>/tables/``, one commit log naming their versions.

Why this shape: every table is a Delta table (delta-rs, ``deltalake``): appends and full replaces
are atomic per table, the schema is enforced by the table, old versions stay readable (time
travel), and any Delta reader (DuckDB over Arrow, Polars, Spark) can open it. A step appends its
batch to several tables, one Delta commit each, so the step's commit point is one row of the
commit log naming the version of every append table and memory table (:meth:`Store.commit`).
Nothing reads past the versions the last commit names: a version appended by a step that crashed
before its commit row is rolled back by :meth:`Store.recover` (``DeltaTable.restore``), and a
batch retried after a failed commit is not appended twice (its id is a Delta app transaction).
Readers (``pipelines.storage.warehouse.connect``) read the versions of the last *run* record, which
the pipeline writes at the end of each whole run (:meth:`Store.publish`), so a join never sees half
a batch; an older run stays readable (``gdan sql --as-of``) until ``gdan maintain`` vacuums it.

:class:`Store` is the facade the pipeline holds; each job is its own class: the folders
(``layout``), the writer lock (``lock``), the commit log (``commit_log``), table reads
(``tables``) and writes (``table_writes``), append batches (``staging``), the pipeline's memory
tables (``memory``), recovery and maintenance (``recovery``). Storage knows tables, versions and
the counters a commit row carries, never what a step means: nothing here imports the steps.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from contextlib import AbstractContextManager
from pathlib import Path
from typing import TYPE_CHECKING

import pyarrow as pa

from pipelines.storage.commit_log import NO_COMMIT, Commit, CommitLog, Snapshot
from pipelines.storage.delta import append_once
from pipelines.storage.layout import StoreLayout
from pipelines.storage.lock import WriterLock
from pipelines.storage.memory import MemoryTables
from pipelines.storage.recovery import Recovery
from pipelines.storage.staging import Staging
from pipelines.storage.table_writes import TableWriter
from pipelines.storage.tables import TableReader

if TYPE_CHECKING:
    import pyarrow.dataset as ds


class Store:
    """A store folder: inbox, Delta tables, the pipeline's memory and the commit log.

    Only one writer runs at a time (:meth:`writer_lock`); any number of readers may read
    while it writes. A store made by :meth:`pinned` reads append tables as of the commit
    that was the last when it was made, and records it as the input of every table it writes.
    Each method is its component's (see the module's docstring).
    """

    def __init__(self, root: str | Path, *, pin: Commit | None = None) -> None:
        self.layout = StoreLayout(root)
        self.root = self.layout.root
        self.pin = pin
        self.lock = WriterLock(self.layout.lock_file)
        self.log = CommitLog(self.layout, self.lock)
        self.tables = TableReader(self.layout, self.log, pin)
        self.writes = TableWriter(self.layout, self.lock, self.tables)
        self.memory = MemoryTables(self.layout, self.tables)
        self.staging = Staging(self.layout, self.tables)
        self.recovery = Recovery(self.layout, self.lock, self.log, self.staging)

    def __repr__(self) -> str:
        return f"Store({str(self.root)!r})"

    def pinned(self) -> Store:
        """This store, reading as of the step committed last (see :meth:`inputs`)."""
        return Store(self.root, pin=self.log.last_commit() or NO_COMMIT)

    def writer_lock(self) -> AbstractContextManager[None]:
        """Hold the store's single-writer lock (blocks until a concurrent writer finishes)."""
        return self.lock.hold()

    # -- paths ---------------------------------------------------------------------------
    @property
    def inbox(self) -> Path:
        return self.layout.inbox

    @property
    def annotations_dir(self) -> Path:
        return self.layout.annotations_dir

    @property
    def tables_dir(self) -> Path:
        return self.layout.tables_dir

    @property
    def state_dir(self) -> Path:
        return self.layout.state_dir

    @property
    def staging_dir(self) -> Path:
        return self.layout.staging_dir

    @property
    def warehouse_file(self) -> Path:
        return self.layout.warehouse_file

    @property
    def warehouse_record(self) -> Path:
        return self.layout.warehouse_record

    def warehouse_tmp(self) -> Path:
        return self.layout.warehouse_tmp()

    def table_path(self, name: str) -> Path:
        return self.layout.table_path(name)

    def check_table_path(self) -> None:
        self.layout.check_table_path()

    def memory_path(self, name: str) -> Path:
        return self.layout.memory_path(name)

    # -- the commit log ------------------------------------------------------------------
    def commits(self) -> list[Commit]:
        return self.log.commits()

    def last_commit(self) -> Commit | None:
        return self.log.last_commit()

    def committed_batches(self, until: int | None = None) -> tuple[str, ...]:
        return self.log.committed_batches(until)

    def reading(self) -> Commit:
        return self.tables.reading()

    def commit(self, batch: str | None, versions: Mapping[str, int], *, unquarantined: Sequence[str] = (),
               malformed_rows: int = 0, counts: Mapping[str, int] | None = None) -> Commit:
        return self.log.commit(batch, versions, unquarantined=unquarantined, malformed_rows=malformed_rows,
                               counts=counts)

    def next_seq(self) -> int:
        return self.log.next_seq()

    def publish(self, snapshot: Snapshot) -> bool:
        return self.log.publish(snapshot)

    def runs(self) -> list[Snapshot]:
        return self.log.runs()

    def published(self, run: int | None = None) -> Snapshot | None:
        return self.log.published(run)

    def last_run(self) -> int | None:
        return self.log.last_run()

    # -- reading tables ------------------------------------------------------------------
    def version(self, name: str) -> int | None:
        return self.tables.version(name)

    def snapshot(self, seq: int | None = None) -> Snapshot:
        return self.tables.snapshot(seq)

    def has_data(self, name: str) -> bool:
        return self.tables.has_data(name)

    def inputs(self) -> dict[str, int]:
        return self.tables.inputs()

    def input_of(self, name: str) -> int | None:
        return self.tables.input_of(name)

    def row_count(self, name: str) -> int:
        return self.tables.row_count(name)

    def committed_rows(self, name: str) -> int:
        return self.tables.committed_rows(name)

    def dataset(self, name: str, version: int | None = None) -> ds.Dataset | None:
        return self.tables.dataset(name, version)

    def data_files(self, name: str, version: int | None = None) -> list[str]:
        return self.tables.data_files(name, version)

    def read_table(self, name: str, columns: list[str] | None = None,
                   where: ds.Expression | None = None) -> pa.Table:
        return self.tables.read_table(name, columns, where)

    def batch_files(self, name: str, batches: Sequence[str],
                    partition: Mapping[str, object] | None = None) -> list[Path]:
        return self.tables.batch_files(name, batches, partition)

    def read_files(self, name: str, files: list[Path], columns: list[str] | None = None,
                   where: ds.Expression | None = None) -> pa.Table:
        return self.tables.read_files(name, files, columns, where)

    # -- writing tables ------------------------------------------------------------------
    def write_table(self, name: str, table: pa.Table, partition_by: list[str] | None = None) -> None:
        self.writes.write_table(name, table, partition_by)

    def delete_rows(self, name: str, column: str, values: Sequence[str]) -> int:
        return self.writes.delete_rows(name, column, values)

    def replace_rows(self, name: str, column: str, values: Sequence[str], rows: pa.Table) -> int:
        return self.writes.replace_rows(name, column, values, rows)

    def unnamed_versions(self) -> dict[str, int]:
        return self.writes.unnamed_versions()

    def append(self, path: Path, table: pa.Table | pa.RecordBatchReader, txn: str,
               partition_by: list[str] | None = None, *, step: bool = True) -> int:
        return append_once(path, table, txn, partition_by, step=step)

    def read_memory(self, name: str, schema: pa.Schema, *, latest: bool = False) -> pa.Table:
        return self.memory.read_memory(name, schema, latest=latest)

    # -- append batches ------------------------------------------------------------------
    def stage_file(self, batch_id: str, name: str, partition: Mapping[str, object] | None = None,
                   part: int = 0) -> Path:
        return self.staging.stage_file(batch_id, name, partition, part)

    def published_name(self, batch_id: str, name: str, staged: Path) -> str:
        return self.staging.published_name(batch_id, name, staged)

    def publish_batch(self, batch_id: str) -> dict[str, int]:
        return self.staging.publish_batch(batch_id)

    def discard_batch(self, batch_id: str) -> None:
        self.staging.discard_batch(batch_id)

    # -- recovery and maintenance --------------------------------------------------------
    def recover(self) -> list[str]:
        return self.recovery.recover()

    def foreign_files(self) -> list[Path]:
        return self.recovery.foreign_files()

    def maintain(self, retention_days: float = 7) -> dict[str, int]:
        return self.recovery.maintain(retention_days)
