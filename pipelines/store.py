"""The store on disk: Parquet tables under ``<root>/tables/``, written atomically, read by exact file lists.

Layout (see README "Store layout"); this module is the only one that spells it::

    <root>/inbox/                 files waiting to be ingested (kept after ingest)
    <root>/tables/<name>          symlink -> tables/.versions/<name>-<id>/ (the live version)
    <root>/tables/.versions/<name>-<id>/.files        the version's own Parquet files (manifest)
    <root>/tables/.versions/<name>-<id>/batch=<id>/   one folder per append batch, with its .files
    <root>/staging/<id>/<name>/   an append batch being written (invisible to readers)
    <root>/state/                 ingest bookkeeping (``pipelines.state``), the writer lock, and:
    <root>/state/snapshot.json    the published snapshot: exact files per table of the last whole run
    <root>/state/inputs.json      per derived table, the committed batches its last writer read
    <root>/state/warehouse.json   what the last warehouse build ran, and the catalog it produced
    <root>/.warehouse-<pid>.duckdb  the warehouse file being rebuilt (removed by :meth:`Store.recover`)
    <root>/annotations/           coaches' notes and tags on deals (``pipelines.annotations``)

Why this shape: nothing is found by globbing. Every version and batch folder carries a manifest
of the files the store wrote into it, and a table's committed content is the live version's
manifest plus the manifests of the batches that ``state.json`` records as committed. So a batch
published but not committed (a crash at the commit point), or a file dropped into a table
folder by someone else, is never read; :meth:`Store.foreign_files` reports the latter. A full
replace writes a new version folder and swaps the symlink with one ``rename(2)``. Readers of the
store (``pipelines.warehouse.connect``) do not even read the committed state: they read the
snapshot the pipeline publishes at the end of each whole run (:meth:`Store.publish`), so they
never see a run half done. Batches not recorded as committed are removed by :meth:`Store.recover`.
"""

from __future__ import annotations

import fcntl
import hashlib
import os
import shutil
import threading
import uuid
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import IO

import orjson
import pyarrow as pa
import pyarrow.dataset as ds
import pyarrow.parquet as pq

from schemas.catalog import ALL_TABLES

VERSIONS = ".versions"
BATCH_PREFIX = "batch="
MANIFEST = ".files"
"""In every version and batch folder: the Parquet files the store wrote there (JSON list)."""
FINGERPRINT = ".fingerprint"
"""A version folder's content hash."""
SNAPSHOT = "snapshot.json"
INPUTS = "inputs.json"
WAREHOUSE_TMP = ".warehouse-"
PART = "part-0.parquet"


def new_id() -> str:
    """A fresh, sortable-enough id for a batch or a table version."""
    return uuid.uuid4().hex[:16]


class UnknownTableError(KeyError):
    """A table name that ``schemas.ALL_TABLES`` does not define."""


@dataclass(frozen=True, slots=True)
class Snapshot:
    """The exact Parquet files of every table as of a list of committed batches.

    ``batches`` are the committed append batches it includes (in commit order); ``files`` maps
    each table with data to its files (absolute paths). Tables without files are absent.
    """

    batches: tuple[str, ...]
    files: Mapping[str, tuple[Path, ...]]


class Store:
    """A store folder: inbox, Parquet tables and ingest state.

    Only one writer runs at a time (:meth:`writer_lock`); any number of readers may read
    while it writes. A store made by :meth:`pinned` reads append tables as of the batches
    committed when it was made, and records them as the inputs of every table it writes.
    """

    def __init__(self, root: str | Path, *, pin: Sequence[str] | None = None) -> None:
        self.root = Path(root).absolute()
        self.pin = tuple(pin) if pin is not None else None

    def __repr__(self) -> str:
        return f"Store({str(self.root)!r})"

    def pinned(self) -> Store:
        """This store, reading as of the batches committed now (see :meth:`inputs`)."""
        return Store(self.root, pin=self.committed_batches())

    # -- paths ---------------------------------------------------------------------------
    @property
    def inbox(self) -> Path:
        """Where ``gdan ingest`` copies files and the ingest asset looks for new ones."""
        return self.root / "inbox"

    @property
    def annotations_dir(self) -> Path:
        """Coaches' notes and tags on deals (``pipelines.annotations``): JSON Lines beside the logs,
        never part of them."""
        return self.root / "annotations"

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

    @property
    def warehouse_record(self) -> Path:
        """What the last warehouse build ran and the catalog it produced (``pipelines.warehouse``)."""
        return self.state_dir / "warehouse.json"

    def warehouse_tmp(self) -> Path:
        """Where this process builds the next warehouse file before renaming it into place."""
        return self.root / f"{WAREHOUSE_TMP}{os.getpid()}.duckdb"

    def table_path(self, name: str) -> Path:
        """The folder (a symlink to the live version) holding table ``name``."""
        _schema(name)
        return self.tables_dir / name

    # -- committed content ---------------------------------------------------------------
    def committed_batches(self) -> tuple[str, ...]:
        """The append batches ``state.json`` records as committed, in commit order."""
        from pipelines.state import load_state

        return tuple(load_state(self.state_dir).committed)

    def reading(self) -> tuple[str, ...]:
        """The committed batches this store reads: its pin, else those committed now."""
        return self.pin if self.pin is not None else self.committed_batches()

    def files(self, name: str, batches: Iterable[str] | None = None) -> list[Path]:
        """The Parquet files of table ``name``: its live version's and those of ``batches``.

        ``batches`` defaults to the pin, else the batches committed now. Only files listed in
        the store's manifests count, so nothing written by anyone else is read.
        """
        return self._listing(name, self._batches(batches))[1]

    def batch_files(
        self, name: str, batches: Iterable[str], partition: Mapping[str, object] | None = None
    ) -> list[Path]:
        """The files of the given append batches of table ``name``, optionally of one partition.

        ``partition`` (e.g. ``{"bucket": 3}``) keeps the files under those partition folders.
        """
        version = self._version_of(name)
        if version is None:
            return []
        parts = [f"{k}={v}" for k, v in (partition or {}).items()]
        out: list[Path] = []
        for batch in batches:
            folder = version / f"{BATCH_PREFIX}{batch}"
            if folder.is_dir():
                out.extend(
                    folder / f for f in _manifest(folder) if all(p in f.split("/")[:-1] for p in parts)
                )
        return out

    def snapshot(self, batches: Iterable[str] | None = None) -> Snapshot:
        """The exact files of every table as of ``batches`` (default: the pin, else committed now)."""
        wanted = self._batches(batches)
        files = {name: tuple(found) for name in ALL_TABLES if (found := self.files(name, wanted))}
        return Snapshot(batches=wanted, files=files)

    def has_data(self, name: str) -> bool:
        """Whether table ``name`` has at least one committed Parquet file."""
        return bool(self.files(name))

    def inputs(self) -> dict[str, list[str]]:
        """Per table written by a pinned store: the committed batches its writer had read."""
        return _read_json(self.state_dir / INPUTS) or {}

    # -- reading -------------------------------------------------------------------------
    def read_table(
        self,
        name: str,
        columns: list[str] | None = None,
        where: ds.Expression | None = None,
    ) -> pa.Table:
        """All committed rows of table ``name`` (see :meth:`files`), typed by its schema.

        Partition folders that are not schema columns (``batch``, ``bucket``) are dropped.
        A table with no files yet is a typed empty table.
        """
        schema = _schema(name)
        wanted = columns or schema.names
        out_schema = pa.schema([schema.field(c) for c in wanted])
        batches = self.reading()
        while True:
            version, files = self._listing(name, batches)
            if version is None or not files:
                return out_schema.empty_table()
            try:
                dataset = ds.dataset(
                    [str(f) for f in files],
                    format="parquet",
                    partitioning="hive",
                    partition_base_dir=str(version),
                )
                return dataset.to_table(columns=wanted, filter=where).cast(out_schema)
            except FileNotFoundError:
                if version.exists():
                    raise

    def read_files(
        self, files: list[Path], columns: list[str] | None = None, where: ds.Expression | None = None
    ) -> pa.Table:
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
        that recompute a table on every run keep a rerun with no new input a no-op. A pinned
        store records its pin as the table's inputs. Holds the writer lock while it writes.
        """
        schema = _schema(name)
        data = table.select(schema.names).cast(schema)
        digest = _fingerprint(data, partition_by)
        link = self.table_path(name)
        with self.writer_lock():
            if not (link.exists() and _read_text(link / FINGERPRINT) == digest):
                version = self._new_version_dir(name)
                (version / FINGERPRINT).write_text(digest)
                if partition_by:
                    pq.write_to_dataset(
                        data, version, partition_cols=partition_by, basename_template="part-{i}.parquet"
                    )
                else:
                    pq.write_table(data, version / PART)
                _write_manifest(version)
                self._swap(name, version)
            if self.pin is not None:
                self._record_inputs(name, list(self.pin))

    # -- removing rows (corrections) -------------------------------------------------------
    def delete_rows(self, name: str, where: ds.Expression) -> int:
        """Remove the committed rows of table ``name`` that match ``where``; returns how many.

        The table gets a new version (one symlink swap, as :meth:`write_table`; readers of the
        published snapshot keep the old one): each committed file without such rows is carried
        over as a hard link, each file with some is rewritten without them, so the cost follows
        the files touched, not the table. Nothing changes when no row matches. Holds the writer lock.
        """
        _schema(name)
        keep = ~where | where.is_null()
        with self.writer_lock():
            live = self._version_of(name)
            if live is None:
                return 0
            folders = [live] + [
                live / f"{BATCH_PREFIX}{b}" for b in self.reading() if (live / f"{BATCH_PREFIX}{b}").is_dir()
            ]
            hits = {
                folder / f: n
                for folder in folders
                for f in _manifest(folder)
                if (n := ds.dataset(str(folder / f), format="parquet").count_rows(filter=where))
            }
            if not hits:
                return 0
            version = self._new_version_dir(name)
            for folder in folders:
                target = version / folder.relative_to(live)
                for f in _manifest(folder):
                    (target / f).parent.mkdir(parents=True, exist_ok=True)
                    if folder / f in hits:
                        kept = ds.dataset(str(folder / f), format="parquet").to_table(filter=keep)
                        pq.write_table(kept, target / f, compression="zstd")
                    else:
                        os.link(folder / f, target / f)
                if folder != live:
                    (target / MANIFEST).write_bytes((folder / MANIFEST).read_bytes())
            _write_manifest(version)
            self._swap(name, version)
            return sum(hits.values())

    # -- append batches ------------------------------------------------------------------
    def stage_file(self, batch_id: str, name: str, partition: Mapping[str, object] | None = None) -> Path:
        """The Parquet file of append batch ``batch_id`` of table ``name`` (in one partition).

        Its folder is created; the file is the caller's to write. It is published with the
        batch by :meth:`publish_batch`.
        """
        _schema(name)
        folder = self.staging_dir / batch_id / name
        for key, value in (partition or {}).items():
            folder = folder / f"{key}={value}"
        folder.mkdir(parents=True, exist_ok=True)
        return folder / PART

    def publish_batch(self, batch_id: str) -> list[str]:
        """Move every staged table of ``batch_id`` into its live table; returns the table names.

        Each batch folder gets its manifest, then moves with one ``rename(2)``. Readers see the
        batch only once the caller has recorded it as committed in the state; until then
        :meth:`recover` would undo it.
        """
        staged = self.staging_dir / batch_id
        names = sorted(p.name for p in staged.iterdir()) if staged.exists() else []
        for name in names:
            _write_manifest(staged / name)
            target = self._live_dir(name) / f"{BATCH_PREFIX}{batch_id}"
            if target.exists():
                shutil.rmtree(target)
            os.rename(staged / name, target)
        self.discard_batch(batch_id)
        return names

    def discard_batch(self, batch_id: str) -> None:
        """Drop a staged batch that will not be published (nothing to commit)."""
        shutil.rmtree(self.staging_dir / batch_id, ignore_errors=True)
        if self.staging_dir.exists() and not any(self.staging_dir.iterdir()):
            self.staging_dir.rmdir()

    def batch_ids(self, name: str) -> set[str]:
        """The append batches present in table ``name`` (committed or not)."""
        path = self.table_path(name)
        if not path.exists():
            return set()
        return {p.name[len(BATCH_PREFIX) :] for p in path.iterdir() if p.name.startswith(BATCH_PREFIX)}

    def recover(self, committed: set[str]) -> list[tuple[str, str]]:
        """Undo a crashed run: drop staging, every batch folder not in ``committed``, temp files.

        Temp files are a half-built warehouse file and a symlink not yet renamed into place.
        Returns the removed batches as (table, batch id).
        """
        if self.staging_dir.exists():
            shutil.rmtree(self.staging_dir)
        for tmp in self.root.glob(f"{WAREHOUSE_TMP}*"):
            tmp.unlink(missing_ok=True)
        if self.tables_dir.exists():
            for tmp in self.tables_dir.glob(".link-*"):
                tmp.unlink(missing_ok=True)
        removed = []
        for name in ALL_TABLES:
            for batch in sorted(self.batch_ids(name) - committed):
                shutil.rmtree(self.table_path(name) / f"{BATCH_PREFIX}{batch}")
                removed.append((name, batch))
        return removed

    # -- the readers' snapshot -----------------------------------------------------------
    def publish(self, snapshot: Snapshot) -> bool:
        """Make ``snapshot`` what readers see, in one atomic file replace; False when unchanged.

        Version folders it references are kept by later full replaces until a second later
        snapshot is published, so a reader that opened this one keeps reading for a run.
        """
        with self.writer_lock():
            path = self.state_dir / SNAPSHOT
            old = _read_json(path) or {}
            tables = {
                name: [f.relative_to(self.root).as_posix() for f in files]
                for name, files in snapshot.files.items()
            }
            if old.get("batches") == list(snapshot.batches) and old.get("tables") == tables:
                return False
            retain = sorted(_version_names(old.get("tables", {})))
            _write_json(path, {"batches": list(snapshot.batches), "tables": tables, "retain": retain})
            return True

    def published(self) -> Snapshot | None:
        """The snapshot readers see (the last whole run's), or None when none was published."""
        raw = _read_json(self.state_dir / SNAPSHOT)
        if raw is None:
            return None
        files = {name: tuple(self.root / f for f in paths) for name, paths in raw["tables"].items()}
        return Snapshot(batches=tuple(raw["batches"]), files=files)

    def foreign_files(self) -> list[Path]:
        """Files under ``tables/`` that the store did not write, sorted.

        A file in a live version folder is named through its table's folder (:meth:`table_path`).
        """
        if not self.tables_dir.exists():
            return []
        live = {v: n for n in ALL_TABLES if (v := self._version_of(n)) is not None}
        versions = self.tables_dir / VERSIONS
        out = []
        for entry in sorted(self.tables_dir.iterdir()):
            if entry.name == VERSIONS and entry.is_dir() and not entry.is_symlink():
                continue
            if entry.is_symlink() and entry.name in ALL_TABLES:
                continue
            out.extend(_walk(entry))
        for version in sorted(versions.iterdir()) if versions.is_dir() else []:
            if not version.is_dir() or version.is_symlink():
                out.append(version)
                continue
            known = {version / f for f in _manifest(version)} | {version / MANIFEST, version / FINGERPRINT}
            for batch in version.iterdir():
                if batch.name.startswith(BATCH_PREFIX) and batch.is_dir():
                    known |= {batch / f for f in _manifest(batch)} | {batch / MANIFEST}
            out.extend(f for f in _walk(version) if f not in known)
        named = []
        for path in out:
            holder = next((v for v in live if path.is_relative_to(v)), None)
            named.append(self.table_path(live[holder]) / path.relative_to(holder) if holder else path)
        return sorted(named)

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
    def _batches(self, batches: Iterable[str] | None) -> tuple[str, ...]:
        return tuple(batches) if batches is not None else self.reading()

    def _version_of(self, name: str) -> Path | None:
        """The live version folder of ``name`` (through the root as given), None when there is none."""
        link = self.table_path(name)
        if not link.is_symlink() or not link.exists():
            return None
        return self.tables_dir / os.readlink(link)

    def _listing(self, name: str, batches: tuple[str, ...]) -> tuple[Path | None, list[Path]]:
        """The live version of ``name`` and its files as of ``batches`` (see :meth:`files`).

        A version replaced twice while it is listed is deleted under the reader's feet: the
        listing then starts again from the new live version.
        """
        while True:
            version = self._version_of(name)
            if version is None:
                return None, []
            try:
                out = [version / f for f in _manifest(version)]
                present = {p.name for p in version.iterdir() if p.name.startswith(BATCH_PREFIX)}
                for batch in batches:
                    folder = f"{BATCH_PREFIX}{batch}"
                    if folder in present:
                        out.extend(version / folder / f for f in _manifest(version / folder))
            except FileNotFoundError:
                continue
            if version.exists():
                return version, out

    def _record_inputs(self, name: str, batches: list[str]) -> None:
        path = self.state_dir / INPUTS
        inputs = _read_json(path) or {}
        if inputs.get(name) != batches:
            _write_json(path, {**inputs, name: batches})

    def _new_version_dir(self, name: str) -> Path:
        path = self.tables_dir / VERSIONS / f"{name}-{new_id()}"
        path.mkdir(parents=True)
        return path

    def _live_dir(self, name: str) -> Path:
        """The live version folder of ``name``, creating an empty version when there is none."""
        live = self._version_of(name)
        if live is None:
            live = self._new_version_dir(name)
            _write_manifest(live)
            self._swap(name, live)
        return live

    def _swap(self, name: str, version: Path) -> None:
        """Point ``tables/<name>`` at ``version`` in one rename; delete versions nobody may read.

        Kept: the previous version (for readers that listed its files just before the swap) and
        the versions of the published snapshot and of the one before it.
        """
        link = self.table_path(name)
        previous = self._version_of(name)
        tmp_link = self.tables_dir / f".link-{name}-{new_id()}"
        os.symlink(os.path.relpath(version, self.tables_dir), tmp_link)
        os.replace(tmp_link, link)
        snapshot = _read_json(self.state_dir / SNAPSHOT) or {}
        retained = _version_names(snapshot.get("tables", {})) | set(snapshot.get("retain", []))
        keep = {version.name, previous.name if previous else None} | retained
        for old in (self.tables_dir / VERSIONS).glob(f"{name}-*"):
            if old.name not in keep:
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


def _write_manifest(folder: Path) -> None:
    """Record the Parquet files now under ``folder`` (outside batch folders) as its content."""
    files = sorted(
        p.relative_to(folder).as_posix()
        for p in folder.rglob("*.parquet")
        if not any(part.startswith(BATCH_PREFIX) for part in p.relative_to(folder).parts)
    )
    (folder / MANIFEST).write_bytes(orjson.dumps(files))


def _manifest(folder: Path) -> list[str]:
    """The files a folder's manifest lists (none when it has no manifest: not the store's)."""
    try:
        return list(orjson.loads((folder / MANIFEST).read_bytes()))
    except FileNotFoundError:
        return []


def _version_names(tables: Mapping[str, list[str]]) -> set[str]:
    """The version folder names that the snapshot's file paths (``tables/.versions/<v>/…``) go through."""
    prefix = f"tables/{VERSIONS}/"
    return {
        p[len(prefix) :].split("/", 1)[0] for paths in tables.values() for p in paths if p.startswith(prefix)
    }


def _walk(path: Path) -> list[Path]:
    """Every file (or symlink) at or under ``path``."""
    if path.is_symlink() or not path.is_dir():
        return [path]
    return [p for p in path.rglob("*") if p.is_symlink() or not p.is_dir()]


def _read_json(path: Path) -> dict | None:
    try:
        return orjson.loads(path.read_bytes())
    except FileNotFoundError:
        return None


def _write_json(path: Path, data: object) -> None:
    """Replace ``path`` by ``data`` atomically (temp file + fsync + rename)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}-{os.getpid()}.tmp")
    with open(tmp, "wb") as handle:
        handle.write(orjson.dumps(data))
        handle.flush()
        os.fsync(handle.fileno())
    os.replace(tmp, path)


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
