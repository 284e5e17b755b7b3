"""A store root that may be a folder or ``s3://bucket/prefix``: the local folder each command works in.

For a folder, that is the folder itself. For object storage it is a local copy
(``pipelines.storage.mirror``) kept per host under ``$GDAN_CACHE`` (default ``~/.cache/gdan``):

- a **writer** (``gdan run``, ``gdan maintain``) holds the store's lease (``pipelines.storage.lease``),
  pulls the whole store into its copy, works there exactly as on a folder, and pushes its changes
  when the work succeeded (a run that failed or was interrupted publishes nothing: the next run
  redoes it from the store's state);
- ``gdan ingest`` pulls and pushes only the inbox (object puts are whole, so like a local ingest
  it needs no writer lock);
- a **reader** (``gdan sql``, the rankings) pulls the commit log and the tables into its own copy
  and reads the run published last, as from a folder.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from filelock import FileLock

from pipelines.storage.lease import Lease
from pipelines.storage.mirror import READ_PARTS, Mirror
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
    s3 = client()
    require_bucket(s3, root)
    folder = cache_folder(root, "write")
    with Lease(s3, root).hold() as lease:
        mirror = Mirror(s3, root, folder)
        mirror.pull()
        yield folder
        lease.check()
        mirror.push()


@contextmanager
def ingestable(store: Path) -> Iterator[Path]:
    """The folder whose inbox ``gdan ingest`` copies into; on object storage, the inbox is pulled
    first and pushed when the block ends without an error."""
    root = remote_root(store)
    if root is None:
        yield store
        return
    s3 = client()
    require_bucket(s3, root)
    folder = cache_folder(root, "ingest")
    folder.mkdir(parents=True, exist_ok=True)
    with FileLock(folder / ".ingest.lock"):
        mirror = Mirror(s3, root, folder)
        mirror.pull(INBOX_PARTS)
        yield folder
        mirror.push(INBOX_PARTS)


def readable(store: Path) -> Path:
    """The folder to read the store ``store`` from; on object storage, this host's reading copy,
    pulled now (the commit log, then the tables)."""
    root = remote_root(store)
    if root is None:
        return store
    s3 = client()
    require_bucket(s3, root)
    folder = cache_folder(root, "read")
    folder.mkdir(parents=True, exist_ok=True)
    with FileLock(folder / ".read.lock"):
        Mirror(s3, root, folder).pull(READ_PARTS)
    return folder
