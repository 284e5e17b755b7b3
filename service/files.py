"""The service's files in the store: ``<store>/service/…``, JSON written atomically under a lock.

Accounts, table tokens, failed-login counts, the event registry and confirmations are not data of
the hand logs: they live here, never in a Delta table, so ``gdan sql`` and the dashboards' SQL
cannot read them. The folder is owner-only (0700) and every file is written under a hidden
temporary name with mode 0600 and renamed over the old one in one step, so a reader sees the old
or the new content, never half of it; a change (read, modify, write) holds a lock (``filelock``),
so two processes (the pages, a `gdan users` command) do not lose one of the changes.
"""

from __future__ import annotations

import os
import secrets
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, TypeVar

import orjson
from filelock import FileLock

from importers.jobs import file_name_problem

SERVICE_FOLDER = "service"
"""The folder of the store the service keeps its state in (never read by the pipeline)."""
KEY_BYTES = 32

T = TypeVar("T")


def service_dir(store: Path, *parts: str) -> Path:
    """``<store>/service/<parts…>``; ``ValueError`` for a part that is not one file name."""
    for part in parts:
        problem = file_name_problem(part)
        if problem is not None:
            raise ValueError(f"{part!r} cannot name a file in {store}/{SERVICE_FOLDER}: {problem}")
    return Path(store, SERVICE_FOLDER, *parts)


def folder(store: Path) -> Path:
    """``<store>/service/``, created owner-only (0700) when missing."""
    path = service_dir(store)
    path.mkdir(mode=0o700, parents=True, exist_ok=True)
    return path


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


def read_json(path: Path) -> Any:
    """The JSON value in ``path``; None when there is no such file."""
    try:
        return orjson.loads(path.read_bytes())
    except FileNotFoundError:
        return None


def write_json(path: Path, value: Any) -> None:
    """Replace ``path`` by ``value`` as JSON in one step, owner-only (the folder is created)."""
    path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
    write_private(path, orjson.dumps(value, option=orjson.OPT_INDENT_2 | orjson.OPT_SORT_KEYS))


def update_json(path: Path, change: Callable[[Any], T]) -> T:
    """Read ``path`` (None when missing), apply ``change`` to the value and write what it
    returns, holding the file's lock throughout; returns the written value."""
    path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
    with FileLock(path.with_name(f".{path.name}.lock")):
        value = change(read_json(path))
        write_json(path, value)
        return value


@contextmanager
def locked(store: Path) -> Iterator[None]:
    """Hold the lock of the service's own documents (accounts, tokens, throttle): one writer at a
    time, across processes. Never nested (a second lock of the same file would wait for the first)."""
    with FileLock(str(folder(store) / ".lock")):
        yield


def read_document(store: Path, name: str) -> dict[str, Any]:
    """The JSON object in ``<store>/service/<name>``; empty when the file does not exist.

    A file that is not a JSON object is an error naming the file (never silently reset: it holds
    the accounts)."""
    path = folder(store) / name
    try:
        document = read_json(path)
    except orjson.JSONDecodeError as exc:
        raise ValueError(f"{path}: not valid JSON ({exc})") from None
    if document is None:
        return {}
    if not isinstance(document, dict):
        raise ValueError(f"{path}: expected a JSON object, got {type(document).__name__}")
    return document


def write_document(store: Path, name: str, document: dict[str, Any]) -> None:
    """Write ``document`` as ``<store>/service/<name>`` (0600, atomically); call under :func:`locked`."""
    write_json(folder(store) / name, document)


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
