"""Submitting entered results: one event file per match, put into the store's inbox atomically.

The entry page never writes tables: it appends v1 events to ``<store>/inbox/entry/`` (the path
from :class:`pipelines.storage.store.Store`), and the next ``gdan run`` ingests them like any log. A file
is written under a hidden temporary name (the ingest skips hidden files) and then linked to its
final name in one step, so the ingest never reads half a file, and an existing submission is
never overwritten (a correction is a new file with a new revision).
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import orjson

from importers.jobs import file_name_problem
from pipelines.storage.store import Store

ENTRY_FOLDER = "entry"
"""The inbox sub-folder the entry page writes to."""


class AlreadySubmitted(FileExistsError):
    """The match (at this revision) was submitted before: its file is in the inbox."""


def submission_path(store: Path, match_id: str, revision: int = 1) -> Path:
    """Where the events of ``match_id`` at ``revision`` go: ``inbox/entry/<match>.jsonl``, a
    correction ``…<match>.rev<N>.jsonl``; ``ValueError`` for an id that is not a file name."""
    problem = file_name_problem(match_id)
    if problem is not None:
        raise ValueError(f"match id {match_id!r} cannot name a file: {problem}")
    suffix = "" if revision == 1 else f".rev{revision}"
    return Store(store).inbox / ENTRY_FOLDER / f"{match_id}{suffix}.jsonl"


def submit(store: Path, events: Sequence[dict[str, Any]], revision: int = 1) -> Path:
    """Write one match's events to the inbox; return the file. ``AlreadySubmitted`` when that
    match and revision has a file already."""
    target = submission_path(store, str(events[0]["match"]), revision)
    target.parent.mkdir(parents=True, exist_ok=True)
    data = b"".join(orjson.dumps(ev) + b"\n" for ev in events)
    temp = target.with_name(f".{target.name}.{os.getpid()}.tmp")
    with open(temp, "wb") as out:
        out.write(data)
        out.flush()
        os.fsync(out.fileno())
    try:
        os.link(temp, target)
    except FileExistsError:
        raise AlreadySubmitted(f"{target.name} is in the inbox already") from None
    finally:
        temp.unlink()
    return target
