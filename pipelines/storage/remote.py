"""A store root that may be a folder or ``s3://bucket/prefix``: the local folder each command works in.

For a folder, that is the folder itself. For object storage it is a local copy
(``pipelines.storage.mirror``) kept per host under ``$GDAN_CACHE`` (default ``~/.cache/gdan``):

- a **writer** (``gdan run``, ``gdan maintain``) holds the store's lease (``pipelines.storage.lease``),
  pulls the whole store into its copy (dropping what a push cut off left unlogged), works there
  exactly as on a folder, and pushes its changes
  when the work succeeded (a run that failed or was interrupted publishes nothing: the next run
  redoes it from the store's state);
- ``gdan ingest`` pulls and pushes only the inbox (object puts are whole, so like a local ingest
  it needs no writer lock);
- a **reader** (``gdan sql``, the rankings, the exports) pulls the commit log and the tables into
  its own copy and reads the run published last, as from a folder;
- the **dashboards** read that copy too, pulled when they start and again whenever the commit log
  on object storage changed (:func:`follow_published`); they never write to the bucket.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

from filelock import FileLock

from pipelines.storage.lease import Lease
from pipelines.storage.mirror import COMMIT_LOG_PREFIX, READ_PARTS, Mirror
from pipelines.storage.object_store import RemoteRoot, client, remote_root, require_bucket

CACHE_ENV = "GDAN_CACHE"
INBOX_PARTS = ("inbox",)


def cache_folder(root: RemoteRoot, role: str) -> Path:
    """This host's copy of the store at ``root`` for ``role`` (``write``, ``ingest`` or ``read``):
    one each, so a reader's pull never removes a writer's unpublished files."""
    base = Path(os.environ.get(CACHE_ENV) or Path.home() / ".cache" / "gdan")
    return base / "s3" / root.bucket / (root.prefix or "_") / role


@contextmanager
def writable(store: Path) -> Iterator[Path]:
    """The folder to write the store ``store`` in; on object storage, under its lease, published
    back when the block ends without an error."""
    root = remote_root(store)
    if root is None:
        yield store
        return
    folder, mirror = _copy(root, "write")
    with Lease(mirror.s3, root).hold() as lease:
        mirror.pull()
        mirror.drop_cut_off_publish()
        yield folder
        lease.check()
        mirror.push(before_logs=lease.check)


@contextmanager
def ingestable(store: Path) -> Iterator[Path]:
    """The folder whose inbox ``gdan ingest`` copies into; on object storage, the inbox is pulled
    first and pushed when the block ends without an error."""
    root = remote_root(store)
    if root is None:
        yield store
        return
    folder, mirror = _copy(root, "ingest")
    with FileLock(folder / ".ingest.lock"):
        mirror.pull(INBOX_PARTS)
        yield folder
        mirror.push(INBOX_PARTS)


def readable(store: Path) -> Path:
    """The folder to read the store ``store`` from; on object storage, this host's reading copy,
    pulled now (the commit log, then the tables)."""
    root = remote_root(store)
    if root is None:
        return store
    folder, mirror = _copy(root, "read")
    with FileLock(folder / ".read.lock"):
        mirror.pull(READ_PARTS)
    return folder


def refresh(store: Path) -> bool:
    """Pull this host's reading copy of the object-storage store ``store`` when the store's commit
    log differs from the copy's (a run was published since); True when it pulled.

    The copy's readers keep reading the run they read during the pull: its downloads put the commit
    log's entries last, and a publish cut off before them leaves the copy on the run before.
    """
    root = remote_root(store)
    if root is None:
        raise ValueError(f"{store} is a folder: only an s3:// store has a reading copy to refresh")
    folder, mirror = _copy(root, "read")
    with FileLock(folder / ".read.lock"):
        if not mirror.behind(COMMIT_LOG_PREFIX):
            return False
        mirror.pull(READ_PARTS)
    return True


def follow_published(store: Path, every_s: float, stop: threading.Event,
                     failed: Callable[[Exception], None]) -> threading.Thread:
    """A daemon thread that :func:`refresh` es the reading copy of ``store`` every ``every_s``
    seconds until ``stop`` is set. A failed refresh (object storage unreachable) goes to ``failed``
    and the copy keeps the last run it pulled; the next refresh tries again."""

    def loop() -> None:
        while not stop.wait(every_s):
            try:
                refresh(store)
            except Exception as exc:  # reported; the readers keep the last run pulled
                failed(exc)

    thread = threading.Thread(target=loop, name=f"gdan-follow:{store}", daemon=True)
    thread.start()
    return thread


def _copy(root: RemoteRoot, role: str) -> tuple[Path, Mirror]:
    """This host's copy of the store at ``root`` for ``role`` (:func:`cache_folder`, made if new)
    and its mirror, once the bucket is known to exist."""
    s3 = client()
    require_bucket(s3, root)
    folder = cache_folder(root, role)
    folder.mkdir(parents=True, exist_ok=True)
    return folder, Mirror(s3, root, folder)
