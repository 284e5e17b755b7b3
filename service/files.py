"""The service's private files in ``<store>/service/``: JSON documents and a key, owner-only.

Accounts, table tokens and failed-login counts are not data of the hand logs: they live here, never
in a Delta table, so ``gdan sql`` and the dashboards' SQL cannot read them. Every file is written
under a temporary name with mode 0600 and renamed over the old one (a reader never sees half a
file); a read-modify-write holds the folder's lock, so two processes (the dashboards and a `gdan
users` command) never lose each other's change.
"""

from __future__ import annotations

import os
import secrets
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import orjson
from filelock import FileLock

FOLDER = "service"
"""The store's sub-folder of the service's files."""

KEY_BYTES = 32


def folder(store: Path) -> Path:
    """``<store>/service/``, created owner-only (0700) when missing."""
    path = Path(store) / FOLDER
    path.mkdir(mode=0o700, parents=True, exist_ok=True)
    return path


@contextmanager
def locked(store: Path) -> Iterator[None]:
    """Hold the service folder's lock (one writer at a time, across processes)."""
    with FileLock(str(folder(store) / ".lock")):
        yield


def write_private(path: Path, data: bytes) -> None:
    """Write ``data`` to ``path`` atomically, readable and writable by the owner only (0600)."""
    temp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    fd = os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    try:
        with os.fdopen(fd, "wb") as out:
            out.write(data)
            out.flush()
            os.fsync(out.fileno())
        os.chmod(temp, 0o600)  # whatever the umask or an older file's mode
        os.replace(temp, path)
    finally:
        temp.unlink(missing_ok=True)


def read_document(store: Path, name: str) -> dict[str, Any]:
    """The JSON object in ``<store>/service/<name>``; empty when the file does not exist.

    A file that is not a JSON object is an error naming the file (never silently reset: it holds
    the accounts)."""
    path = folder(store) / name
    if not path.exists():
        return {}
    try:
        document = orjson.loads(path.read_bytes())
    except orjson.JSONDecodeError as exc:
        raise ValueError(f"{path}: not valid JSON ({exc})") from None
    if not isinstance(document, dict):
        raise ValueError(f"{path}: expected a JSON object, got {type(document).__name__}")
    return document


def write_document(store: Path, name: str, document: dict[str, Any]) -> None:
    """Write ``document`` as ``<store>/service/<name>`` (0600, atomically); call under :func:`locked`."""
    data = orjson.dumps(document, option=orjson.OPT_INDENT_2 | orjson.OPT_SORT_KEYS)
    write_private(folder(store) / name, data)


def store_key(store: Path) -> bytes:
    """The store's secret key (created on first use, 0600): the key of the table tokens' HMACs."""
    path = folder(store) / "key"
    if not path.exists():
        temp = path.with_name(f".key.{os.getpid()}.{secrets.token_hex(4)}")
        write_private(temp, secrets.token_bytes(KEY_BYTES))
        try:
            os.link(temp, path)  # the first process to create it wins; the others read its key
        except FileExistsError:
            pass
        finally:
            temp.unlink()
    return path.read_bytes()
