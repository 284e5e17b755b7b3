"""Coaches' notes and tags on deals: appended beside the logs, never editing them.

A note is one JSON object (``match_id``, ``deal_no``, optional ``step``, ``text``, ``tags``,
``author``, ``written_at`` in UTC, ``id``). Each note is its own file
``<store>/annotations/<written_at>-<id>.jsonl`` holding that one line, written to a temporary
name, fsynced and renamed into place: a reader sees a note whole or not at all, two writers never
interleave, and nothing ever rewrites an earlier note. A correction is a new note. Reading
collects the lines of every ``*.jsonl`` file there, skipping (and counting) lines that are not a
note, so a hand-edited file cannot break the page.
"""

from __future__ import annotations

import os
import uuid
from dataclasses import asdict, dataclass, field
from datetime import UTC, datetime
from pathlib import Path

import orjson

from pipelines.storage.store import Store

SUFFIX = ".jsonl"


@dataclass(frozen=True)
class Note:
    """One note or set of tags on a deal (optionally at one step of the replayer)."""

    match_id: str
    deal_no: int
    text: str
    tags: tuple[str, ...] = ()
    step: int | None = None
    author: str | None = None
    written_at: str = field(default_factory=lambda: datetime.now(UTC).isoformat(timespec="microseconds"))
    id: str = field(default_factory=lambda: uuid.uuid4().hex[:12])


def clean_tags(text: str) -> tuple[str, ...]:
    """Tags typed as text ("endgame, bomb timing" or "#endgame #bomb"), trimmed, without
    duplicates, in the order typed."""
    words = [w.strip().lstrip("#").strip() for w in text.replace("#", ",#").split(",")]
    return tuple(dict.fromkeys(w for w in words if w))


def append_note(store: Store | str | Path, note: Note) -> Path:
    """Write ``note`` as a new file of the store's annotations folder (atomically); its path."""
    if not note.text.strip() and not note.tags:
        raise ValueError("a note needs a text or at least one tag")
    folder = (store if isinstance(store, Store) else Store(store)).annotations_dir
    folder.mkdir(parents=True, exist_ok=True)
    stamp = note.written_at.replace(":", "").replace("+", "Z")
    path = folder / f"{stamp}-{note.id}{SUFFIX}"
    tmp = folder / f".{path.name}.tmp"
    with open(tmp, "wb") as handle:
        handle.write(orjson.dumps({**asdict(note), "tags": list(note.tags)}) + b"\n")
        handle.flush()
        os.fsync(handle.fileno())
    os.replace(tmp, path)
    return path


def _note(line: bytes) -> Note | None:
    """The note of one line, or ``None`` when the line is not a note."""
    try:
        data = orjson.loads(line)
        return Note(
            match_id=str(data["match_id"]),
            deal_no=int(data["deal_no"]),
            text=str(data.get("text") or ""),
            tags=tuple(str(t) for t in data.get("tags") or ()),
            step=None if data.get("step") is None else int(data["step"]),
            author=None if data.get("author") is None else str(data["author"]),
            written_at=str(data["written_at"]),
            id=str(data["id"]),
        )
    except (orjson.JSONDecodeError, KeyError, TypeError, ValueError):
        return None


def read_notes(
    store: Store | str | Path, *, match_id: str | None = None, deal_no: int | None = None
) -> tuple[list[Note], int]:
    """The notes of the store (of one match and deal when given), oldest first, and the number of
    lines skipped because they are not notes."""
    folder = (store if isinstance(store, Store) else Store(store)).annotations_dir
    notes: list[Note] = []
    skipped = 0
    for path in sorted(folder.glob(f"*{SUFFIX}")) if folder.is_dir() else []:
        for line in path.read_bytes().splitlines():
            if not line.strip():
                continue
            note = _note(line)
            if note is None:
                skipped += 1
            elif (match_id is None or note.match_id == match_id) and (
                deal_no is None or note.deal_no == deal_no
            ):
                notes.append(note)
    return sorted(notes, key=lambda n: (n.written_at, n.id)), skipped
