"""The service's files in the store: ``<store>/service/…``, JSON written atomically under a lock.

A file is written to a hidden temporary name beside it and renamed over the old one in one step,
so a reader sees the old or the new content, never half of it; a change (read, modify, write) holds
the file's lock (``filelock``), so two pages saving at once do not lose one of the changes.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

import orjson
from filelock import FileLock

from importers.jobs import file_name_problem

SERVICE_FOLDER = "service"
"""The folder of the store the service keeps its state in (never read by the pipeline)."""

T = TypeVar("T")


def service_dir(store: Path, *parts: str) -> Path:
    """``<store>/service/<parts…>``; ``ValueError`` for a part that is not one file name."""
    for part in parts:
        problem = file_name_problem(part)
        if problem is not None:
            raise ValueError(f"{part!r} cannot name a file in {store}/{SERVICE_FOLDER}: {problem}")
    return Path(store, SERVICE_FOLDER, *parts)


def read_json(path: Path) -> Any:
    """The JSON value in ``path``; None when there is no such file."""
    try:
        return orjson.loads(path.read_bytes())
    except FileNotFoundError:
        return None


def write_json(path: Path, value: Any) -> None:
    """Replace ``path`` by ``value`` as JSON in one step (the folder is created)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    temp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    with open(temp, "wb") as out:
        out.write(orjson.dumps(value, option=orjson.OPT_INDENT_2 | orjson.OPT_SORT_KEYS))
        out.flush()
        os.fsync(out.fileno())
    os.replace(temp, path)


def update_json(path: Path, change: Callable[[Any], T]) -> T:
    """Read ``path`` (None when missing), apply ``change`` to the value and write what it
    returns, holding the file's lock throughout; returns the written value."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with FileLock(path.with_name(f".{path.name}.lock")):
        value = change(read_json(path))
        write_json(path, value)
        return value
