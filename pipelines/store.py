"""The store on disk: Parquet tables under ``<root>/tables/``, written atomically.

Layout (see README "Store layout")::

    <root>/inbox/                 files waiting to be ingested (kept after ingest)
    <root>/tables/<name>          symlink -> tables/.versions/<name>-<id>/ (the live version)
    <root>/tables/<name>/batch=<id>/...   one folder per committed append batch
    <root>/staging/<id>/<name>/   an append batch being written (invisible to readers)
    <root>/state/                 ingest bookkeeping (see ``pipelines.state``) and the writer lock

Why this shape: readers (DuckDB views, ``read_table``) glob ``tables/<name>/**/*.parquet``.
A full replace writes a new version folder and swaps the symlink with one ``rename(2)``, so a
reader sees the old or the new table, never a mix. An append renames a finished batch folder
into the live version, so a reader sees whole batches only. Dot-prefixed folders are ignored
by readers. Batches not recorded as committed in the state are removed by :meth:`Store.recover`,
so a crash mid-run leaves the last good state once the next run starts.
"""

from __future__ import annotations

import fcntl
import hashlib
import os
import shutil
import threading
import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import IO

import pyarrow as pa
import pyarrow.dataset as ds
import pyarrow.parquet as pq

from schemas.catalog import ALL_TABLES

VERSIONS = ".versions"
BATCH_PREFIX = "batch="
FINGERPRINT = ".fingerprint"
"""A version folder's content hash (dot-named: readers ignore it)."""


def new_id() -> str:
    """A fresh, sortable-enough id for a batch or a table version."""
    return uuid.uuid4().hex[:16]


class UnknownTableError(KeyError):
    """A table name that ``schemas.ALL_TABLES`` does not define."""


class Store:
    """A store folder: inbox, Parquet tables and ingest state.

    Only one writer runs at a time (:meth:`writer_lock`); any number of readers may read
    while it writes.
    """

    def __init__(self, root: str | Path) -> None:
        self.root = Path(root).absolute()

    def __repr__(self) -> str:
        return f"Store({str(self.root)!r})"

    # -- paths ---------------------------------------------------------------------------
    @property
    def inbox(self) -> Path:
        """Where ``gdan ingest`` copies files and the ingest asset looks for new ones."""
        return self.root / "inbox"

    @property
    def tables_dir(self) -> Path:
        return self.root / "tables"

    @property
    def state_dir(self) -> Path:
        return self.root / "state"

    @property
    def staging_dir(self) -> Path:
        return self.root / "staging"

    @property
    def warehouse_file(self) -> Path:
        """The DuckDB file of views for ``dagster``/SQL users (written only by the warehouse asset)."""
        return self.root / "warehouse.duckdb"

    def table_path(self, name: str) -> Path:
        """The folder (a symlink to the live version) holding table ``name``'s Parquet files."""
        _schema(name)
        return self.tables_dir / name

    # -- reading -------------------------------------------------------------------------
    def has_data(self, name: str) -> bool:
        """Whether table ``name`` has at least one Parquet file."""
        path = self.table_path(name)
        return path.exists() and any(path.rglob("*.parquet"))

    def read_table(
        self,
        name: str,
        columns: list[str] | None = None,
        where: ds.Expression | None = None,
    ) -> pa.Table:
        """All rows of table ``name`` (every Parquet file, hive partitions), typed by its schema.

        Partition folders that are not schema columns (``batch``, ``bucket``) are dropped.
        A table with no files yet is a typed empty table.
        """
        schema = _schema(name)
        wanted = columns or schema.names
        out_schema = pa.schema([schema.field(c) for c in wanted])
        path = self.table_path(name)
        if not path.exists():
            return out_schema.empty_table()
        dataset = ds.dataset(path, format="parquet", partitioning="hive")
        if not dataset.files:
            return out_schema.empty_table()
        return dataset.to_table(columns=wanted, filter=where).cast(out_schema)

    def read_files(self, files: list[Path], columns: list[str] | None = None,
                   where: ds.Expression | None = None) -> pa.Table:
        """Rows of the given Parquet files of one table (no partition columns)."""
        if not files:
            raise ValueError("read_files needs at least one file")
        return ds.dataset([str(f) for f in files], format="parquet").to_table(columns=columns, filter=where)

    # -- full replace --------------------------------------------------------------------
    def write_table(self, name: str, table: pa.Table, partition_by: list[str] | None = None) -> None:
        """Replace table ``name`` by ``table`` atomically (new version folder + symlink swap).

        ``table`` is cast to the table's schema first, so a wrong column fails here, before
        anything on disk changes. ``partition_by`` columns become hive folders. Writing the
        same content again (same rows in the same order) changes nothing on disk, so assets
        that recompute a table on every run keep a rerun with no new input a no-op. Holds the
        writer lock while it writes.
        """
        schema = _schema(name)
        data = table.select(schema.names).cast(schema)
        digest = _fingerprint(data, partition_by)
        link = self.table_path(name)
        with self.writer_lock():
            if link.exists() and _read_text(link / FINGERPRINT) == digest:
                return
            version = self._new_version_dir(name)
            (version / FINGERPRINT).write_text(digest)
            if partition_by:
                pq.write_to_dataset(data, version, partition_cols=partition_by,
                                    basename_template="part-{i}.parquet")
            else:
                pq.write_table(data, version / "part-0.parquet")
            self._swap(name, version)

    # -- append batches ------------------------------------------------------------------
    def stage_dir(self, batch_id: str, name: str) -> Path:
        """The folder where an append batch of table ``name`` is written before commit."""
        _schema(name)
        path = self.staging_dir / batch_id / name
        path.mkdir(parents=True, exist_ok=True)
        return path

    def publish_batch(self, batch_id: str) -> list[str]:
        """Move every staged table of ``batch_id`` into its live table; returns the table names.

        Each move is one ``rename(2)`` of a whole folder. The caller records the batch as
        committed in the state afterwards; until then :meth:`recover` would undo it.
        """
        staged = self.staging_dir / batch_id
        names = sorted(p.name for p in staged.iterdir()) if staged.exists() else []
        for name in names:
            live = self._live_dir(name)
            target = live / f"{BATCH_PREFIX}{batch_id}"
            if target.exists():
                shutil.rmtree(target)
            os.rename(staged / name, target)
        shutil.rmtree(staged, ignore_errors=True)
        if self.staging_dir.exists() and not any(self.staging_dir.iterdir()):
            self.staging_dir.rmdir()
        return names

    def discard_batch(self, batch_id: str) -> None:
        """Drop a staged batch that will not be published (nothing to commit)."""
        shutil.rmtree(self.staging_dir / batch_id, ignore_errors=True)
        if self.staging_dir.exists() and not any(self.staging_dir.iterdir()):
            self.staging_dir.rmdir()

    def batch_ids(self, name: str) -> set[str]:
        """The append batches present in table ``name``."""
        path = self.table_path(name)
        if not path.exists():
            return set()
        return {p.name[len(BATCH_PREFIX):] for p in path.iterdir() if p.name.startswith(BATCH_PREFIX)}

    def recover(self, committed: set[str]) -> list[str]:
        """Undo a crashed run: drop staging and every batch folder not in ``committed``.

        Returns the removed ``<table>/batch=<id>`` names.
        """
        if self.staging_dir.exists():
            shutil.rmtree(self.staging_dir)
        removed = []
        for name in ALL_TABLES:
            for batch in sorted(self.batch_ids(name) - committed):
                shutil.rmtree(self.table_path(name) / f"{BATCH_PREFIX}{batch}")
                removed.append(f"{name}/{BATCH_PREFIX}{batch}")
        return removed

    # -- locking -------------------------------------------------------------------------
    @contextmanager
    def writer_lock(self) -> Iterator[None]:
        """Hold the store's single-writer lock (blocks until a concurrent writer finishes).

        Across processes an ``flock`` on ``state/.lock``; within a process a re-entrant lock
        per store root, so a writer may call another writing method while holding it.
        """
        with _thread_lock(self.root):
            depth = _lock_depth.get(self.root, 0)
            _lock_depth[self.root] = depth + 1
            try:
                if depth:
                    yield
                    return
                self.state_dir.mkdir(parents=True, exist_ok=True)
                with open(self.state_dir / ".lock", "a+") as handle:
                    _lock_exclusive(handle)
                    try:
                        yield
                    finally:
                        fcntl.flock(handle, fcntl.LOCK_UN)
            finally:
                _lock_depth[self.root] = depth

    # -- internals -----------------------------------------------------------------------
    def _new_version_dir(self, name: str) -> Path:
        path = self.tables_dir / VERSIONS / f"{name}-{new_id()}"
        path.mkdir(parents=True)
        return path

    def _live_dir(self, name: str) -> Path:
        """The live version folder of ``name``, creating an empty version when there is none."""
        link = self.table_path(name)
        if not link.exists():
            self._swap(name, self._new_version_dir(name))
        return link.resolve()

    def _swap(self, name: str, version: Path) -> None:
        """Point ``tables/<name>`` at ``version`` in one rename; keep one previous version.

        The previous version stays for readers that listed its files just before the swap;
        older ones are deleted.
        """
        link = self.table_path(name)
        previous = link.resolve() if link.is_symlink() else None
        tmp_link = self.tables_dir / f".link-{name}-{new_id()}"
        os.symlink(os.path.relpath(version, self.tables_dir), tmp_link)
        os.replace(tmp_link, link)
        keep = {version.resolve(), previous}
        for old in (self.tables_dir / VERSIONS).glob(f"{name}-*"):
            if old.resolve() not in keep:
                shutil.rmtree(old, ignore_errors=True)


lock_wait_notices: list[Callable[[int | None], None]] = []
"""Called with the holder's pid (None if unknown) when the writer lock is busy, before waiting."""


def _lock_exclusive(handle: IO[str]) -> None:
    """``flock`` the open lock file; if another process holds it, tell :data:`lock_wait_notices`
    (so a user is not left staring at a silent wait), then wait. The holder writes its pid in."""
    try:
        fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        handle.seek(0)
        text = handle.read().strip()
        for notice in list(lock_wait_notices):
            notice(int(text) if text.isdigit() else None)
        fcntl.flock(handle, fcntl.LOCK_EX)
    handle.seek(0)
    handle.truncate()
    handle.write(str(os.getpid()))
    handle.flush()


_thread_locks: dict[Path, threading.RLock] = {}
_lock_depth: dict[Path, int] = {}
_registry_lock = threading.Lock()


def _thread_lock(root: Path) -> threading.RLock:
    with _registry_lock:
        return _thread_locks.setdefault(root, threading.RLock())


def _fingerprint(data: pa.Table, partition_by: list[str] | None) -> str:
    """A hash of the table's content (Arrow IPC bytes) and partitioning."""
    sink = pa.BufferOutputStream()
    with pa.ipc.new_stream(sink, data.schema) as writer:
        writer.write_table(data)
    digest = hashlib.sha256(sink.getvalue())
    digest.update(repr(partition_by).encode())
    return digest.hexdigest()


def _read_text(path: Path) -> str | None:
    try:
        return path.read_text()
    except OSError:
        return None


def _schema(name: str) -> pa.Schema:
    try:
        return ALL_TABLES[name]
    except KeyError:
        raise UnknownTableError(f"unknown table {name!r}; known: {', '.join(sorted(ALL_TABLES))}") from None
