"""A local copy of a store on object storage, brought in line with it (:meth:`Mirror.pull`) and
published back to it (:meth:`Mirror.push`).

Why a copy: every part of the store (the Delta tables, the staging and linking of batches, the
commit log, recovery, the DuckDB views) works on a folder, and works there the same whatever the
root is; object storage holds the store of record. What makes that safe:

- **Pull** makes the copy equal to the store's objects under the parts pulled: new or changed
  objects are downloaded, files that no object backs any more (or that were changed here and never
  published: a crashed writer's) are removed. A file is known unchanged by its ETag and its local
  size and mtime, kept in the copy's manifest. Downloads go in the push's order (the commit log's
  entries last), so a reader of the copy during a pull (the dashboards) never sees a run whose
  tables are not all there yet.
- **Push** uploads in the order a reader depends on: data files first, then each Delta table's log
  entries (versions in order; an entry that already exists is refused, ``If-None-Match: *``, so a
  second writer cannot overwrite a version), and the commit log's entries last. Readers read only
  the versions the commit log's last run names, so an upload cut off at any point leaves the
  published runs whole, and the next writer's pull and recovery (``Store.recover``) treat the rest
  as a crash of a local writer. Objects whose files were removed here (vacuumed, restored) are
  deleted last.
- A push first records the Delta tables' data files it is about to upload (the object
  ``state/.publishing``) and removes the record once it is whole. A push cut off before the table
  logs that add those files leaves them in the store, added by no log: the next writer, finding
  the record, deletes them (:meth:`Mirror.drop_cut_off_publish`), where a local store would report
  them as foreign files. Only files a push of this store uploaded are ever deleted so. A writer
  checks its lease again before its first log entry, so one that stalled past its lease while
  uploading data files (and whose files the next writer may be deleting) adds no version.

What stays local: the staging area, the writer's ``flock`` file, the warehouse's DuckDB file and its
record (they name this host's paths), and hidden partial copies.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path

from botocore.exceptions import ClientError

from pipelines.storage.delta import DELTA_LOG, forget_under, logged_files
from pipelines.storage.layout import LOCK_FILE, WAREHOUSE_TMP
from pipelines.storage.lease import LEASE_KEY
from pipelines.storage.object_store import ObjectStoreError, RemoteObject, RemoteRoot, S3Client, list_objects
from pipelines.storage.tables import forget_reads_under

MANIFEST = ".gdan-mirror.json"
"""The copy's manifest: per store path, the ETag of the object it was last synced with and the
local file's size and mtime then."""
COMMIT_LOG_PREFIX = "state/commits/"
"""The commit log's Delta table: pushed after every other table (it names their versions)."""
PARTS = ("inbox", "annotations", "tables", "state")
"""The store's top-level folders that live on object storage."""
READ_PARTS = ("state", "tables")
"""What a reader (``gdan sql``, the rankings) pulls: the commit log first, then the tables."""
PULLING = ".pulling"
"""Suffix of a download under way (hidden: a pull cut off leaves it, and the next pull removes it)."""
PUBLISHING = "state/.publishing"
"""The record of a push under way: the data files of Delta tables it uploads (JSON list of store
paths), written before the first of them and deleted after the push's last object."""
LOCAL_ONLY = (f"state/{LOCK_FILE}", "state/warehouse.json", LEASE_KEY)

push_steps: list[Callable[[str], None]] = []
"""Called with each store path just before it is uploaded or deleted (tests cut a push off there)."""


class PushConflictError(ObjectStoreError):
    """A Delta log entry being published already exists on object storage: another writer."""


@dataclass(frozen=True, slots=True)
class Synced:
    """What the manifest knows of one file: the object's ETag, the local size and mtime."""

    etag: str
    size: int
    mtime_ns: int


class Mirror:
    """The local copy at ``folder`` of the store at ``root``."""

    def __init__(self, s3: S3Client, root: RemoteRoot, folder: Path) -> None:
        self.s3 = s3
        self.root = root
        self.folder = folder

    def pull(self, parts: Iterable[str] = PARTS) -> int:
        """Make the copy's ``parts`` equal to the store's; returns the files downloaded.

        Parts are listed in the order given, so a commit log listed before the tables names no
        version whose files the listing missed. Tables this process keeps open under the copy are
        dropped when a file was removed or replaced.
        """
        manifest = self._manifest()
        remote: dict[str, RemoteObject] = {}
        replaced = 0
        for part in parts:
            listed = list_objects(self.s3, self.root, f"{part}/")
            remote.update({k: o for k, o in listed.items() if _synced(k)})
            for path in _files(self.folder / part):
                relative = path.relative_to(self.folder).as_posix()
                if path.name.endswith(PULLING):
                    path.unlink()
                    continue
                if _synced(relative) and relative not in remote:
                    path.unlink()
                    replaced += 1
                    manifest.pop(relative, None)
                    _prune_empty(path.parent, self.folder)
        downloaded = 0
        for relative, obj in sorted(remote.items(), key=lambda item: _push_order(item[0])):
            target = self.folder / relative
            if not _unchanged(manifest.get(relative), obj.etag, target):
                replaced += target.exists()
                target.parent.mkdir(parents=True, exist_ok=True)
                partial = target.with_name(f".{target.name}{PULLING}")
                self.s3.download_file(self.root.bucket, self.root.key(relative), str(partial))
                os.replace(partial, target)
                downloaded += 1
            manifest[relative] = _synced_now(obj.etag, target)
        self._save(manifest)
        if replaced:
            forget_under(self.folder.absolute())
            forget_reads_under(self.folder.absolute())
        return downloaded

    def behind(self, part: str) -> bool:
        """Whether the store's objects under ``part`` differ from what the copy last pulled of them
        (one listing of that part: cheap for the commit log, asked every few seconds)."""
        listed = {k: o.etag for k, o in list_objects(self.s3, self.root, part).items() if _synced(k)}
        known = {k: s.etag for k, s in self._manifest().items() if k.startswith(part)}
        return listed != known

    def push(self, parts: Iterable[str] = PARTS, before_logs: Callable[[], None] | None = None) -> int:
        """Publish the changes of the copy's ``parts`` to the store in a reader-safe order; returns
        the files uploaded. ``before_logs`` is called once, before the first Delta log entry: a
        writer checks there that its lease is still its own (the data files before may take long,
        and a writer whose lease was taken over meanwhile must add no version to any table)."""
        parts = tuple(parts)
        manifest = {k: s for k, s in self._manifest().items() if k.split("/", 1)[0] in parts}
        files = (p for part in parts for p in _files(self.folder / part))
        local = {k: p for p in files if _synced(k := p.relative_to(self.folder).as_posix())}
        changed = [k for k, p in local.items() if not _unchanged(manifest.get(k), None, p)]
        gone = sorted(k for k in manifest if k not in local)
        table_data = [k for k in changed if self._is_table_data(k)]
        if table_data:
            self.s3.put_object(Bucket=self.root.bucket, Key=self.root.key(PUBLISHING),
                               Body=json.dumps(sorted(table_data)).encode())
        check = before_logs
        for relative in sorted(changed, key=_push_order):
            if check is not None and _push_order(relative)[0] > 0:
                check()
                check = None
            for step in list(push_steps):
                step(relative)
            self._upload(relative, local[relative])
        for relative in gone:
            for step in list(push_steps):
                step(relative)
            self.s3.delete_object(Bucket=self.root.bucket, Key=self.root.key(relative))
        if table_data:
            self.s3.delete_object(Bucket=self.root.bucket, Key=self.root.key(PUBLISHING))
        listed = {k: o for part in parts for k, o in list_objects(self.s3, self.root, f"{part}/").items()}
        kept = self._manifest()
        for relative in gone:
            kept.pop(relative, None)
        for relative in changed:
            kept[relative] = _synced_now(listed[relative].etag, local[relative])
        self._save(kept)
        return len(changed)

    def drop_cut_off_publish(self) -> int:
        """Delete, from the store and the copy, the data files that a push cut off before its end
        uploaded and that no Delta log of the store adds (see :data:`PUBLISHING`); returns how
        many. Called by a writer, under the lease, on a freshly pulled copy."""
        try:
            record = self.s3.get_object(Bucket=self.root.bucket, Key=self.root.key(PUBLISHING))
        except ClientError as exc:
            if exc.response.get("Error", {}).get("Code") in {"NoSuchKey", "404"}:
                return 0
            raise
        manifest = self._manifest()
        known: dict[str, set[str]] = {}
        dropped = 0
        for relative in json.loads(record["Body"].read()):
            top, name, inside = relative.split("/", 2)
            table_dir = f"{top}/{name}"
            if table_dir not in known:
                known[table_dir] = logged_files(self.folder / table_dir)
            if inside in known[table_dir]:
                continue
            self.s3.delete_object(Bucket=self.root.bucket, Key=self.root.key(relative))
            path = self.folder / relative
            path.unlink(missing_ok=True)
            _prune_empty(path.parent, self.folder)
            manifest.pop(relative, None)
            dropped += 1
        self._save(manifest)
        self.s3.delete_object(Bucket=self.root.bucket, Key=self.root.key(PUBLISHING))
        if dropped:
            forget_under(self.folder.absolute())
            forget_reads_under(self.folder.absolute())
        return dropped

    def _is_table_data(self, relative: str) -> bool:
        """Whether ``relative`` is a data file of a Delta table of the copy (under ``tables/<name>``
        or ``state/<name>``, not in its log), not a log entry or an inbox file."""
        parts = relative.split("/")
        if len(parts) < 3 or DELTA_LOG in parts or parts[0] not in ("tables", "state"):
            return False
        return (self.folder / parts[0] / parts[1] / DELTA_LOG).is_dir()

    def _upload(self, relative: str, path: Path) -> None:
        key = self.root.key(relative)
        if _is_log_entry(relative):
            try:
                self.s3.put_object(Bucket=self.root.bucket, Key=key, Body=path.read_bytes(), IfNoneMatch="*")
            except ClientError as exc:
                if exc.response.get("Error", {}).get("Code") in {"PreconditionFailed", "412"}:
                    raise PushConflictError(
                        f"store {self.root}: {relative} already exists there (another writer published "
                        "it); nothing after it was published, and a rerun starts from the store's state"
                    ) from None
                raise
            return
        self.s3.upload_file(str(path), self.root.bucket, key)

    def _manifest(self) -> dict[str, Synced]:
        try:
            raw = json.loads((self.folder / MANIFEST).read_bytes())
        except FileNotFoundError:
            return {}
        return {k: Synced(*v) for k, v in raw.items()}

    def _save(self, manifest: dict[str, Synced]) -> None:
        self.folder.mkdir(parents=True, exist_ok=True)
        tmp = self.folder / f".{MANIFEST}-{os.getpid()}"
        tmp.write_text(json.dumps({k: [s.etag, s.size, s.mtime_ns] for k, s in sorted(manifest.items())}))
        os.replace(tmp, self.folder / MANIFEST)


def _files(folder: Path) -> list[Path]:
    return [p for p in folder.rglob("*") if p.is_file()] if folder.is_dir() else []


def _synced(relative: str) -> bool:
    """Whether the store path ``relative`` lives on object storage (not local-only, not hidden)."""
    name = relative.rsplit("/", 1)[-1]
    return relative not in LOCAL_ONLY and not name.startswith(".") and not name.startswith(WAREHOUSE_TMP)


def _is_log_entry(relative: str) -> bool:
    """A Delta log entry (``_delta_log/<version>.json``): written once, never replaced."""
    parent, _, name = relative.rpartition("/")
    return parent.endswith(DELTA_LOG) and name.endswith(".json") and name[:-5].isdigit()


def _push_order(relative: str) -> tuple[int, str]:
    """Data files, then Delta log entries of every table, then the commit log's."""
    if f"/{DELTA_LOG}/" not in relative:
        return (0, relative)
    return (2 if relative.startswith(COMMIT_LOG_PREFIX) else 1, relative)


def _unchanged(known: Synced | None, etag: str | None, path: Path) -> bool:
    """Whether ``path`` is still what the manifest recorded (and, ``etag`` given, that object)."""
    if known is None or (etag is not None and known.etag != etag):
        return False
    try:
        info = path.stat()
    except FileNotFoundError:
        return False
    return (info.st_size, info.st_mtime_ns) == (known.size, known.mtime_ns)


def _prune_empty(folder: Path, top: Path) -> None:
    """Remove ``folder`` and its parents below ``top`` while they are empty (no table folder is
    left behind for a table whose files are gone)."""
    while folder != top and folder.is_dir() and not any(folder.iterdir()):
        folder.rmdir()
        folder = folder.parent


def _synced_now(etag: str, path: Path) -> Synced:
    info = path.stat()
    return Synced(etag, info.st_size, info.st_mtime_ns)
