"""Ingest bookkeeping: which files were read, which batches are committed, where each match stands.

One JSON file, ``<store>/state/state.json``, replaced atomically (temp file + fsync + rename).
Saving it is the commit point of a run: a batch folder whose id is not in ``committed`` is
debris of a crash and is removed by ``Store.recover``.
"""

from __future__ import annotations

import os
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import orjson

from pipelines.lines import Resume

STATE_VERSION = 1
INCOMPLETE = "incomplete"
"""Status of a match whose match_end has not arrived; a replayed match has its ``matches.status``."""


@dataclass(slots=True)
class MatchInfo:
    """Where one match stands, by the raw rows of it ingested so far."""

    bucket: int
    status: str = INCOMPLETE
    rows: int = 0
    has_end: bool = False
    batches: list[str] = field(default_factory=list)
    """Raw-event batches holding rows of this match."""
    late_batches: list[str] = field(default_factory=list)
    """Raw-event batches with rows that arrived after the match was replayed (not yet handled)."""
    duplicates: int = 0
    """Rows dropped as exact duplicates of another row (same seq and content)."""
    late_rows: int = 0
    """Rows that arrived after the match was replayed and differ from it (quarantined)."""
    revision: int = 1
    """The highest revision of the match ingested (``match_start.revision``): the one replayed."""
    superseded: list[int] = field(default_factory=list)
    """Lower revisions ingested: kept in ``raw_events``, never replayed (docs/event-extensions.md)."""
    retract: bool = False
    """The derived rows of a lower revision, replayed earlier, are still to be removed."""

    def add_rows(self, batch: str, rows: int, has_end: bool, revision: int = 1) -> None:
        """Record ``rows`` new raw rows of ``revision`` of this match in ``batch``.

        A higher revision than any before takes the match over: it is held as incomplete until
        its own ``match_end`` arrives, and a replayed lower revision is to be retracted. Rows of a
        lower revision are only recorded (their batch, so they can be listed as superseded).
        """
        self.rows += rows
        if revision < self.revision:
            if revision not in self.superseded:
                self.superseded = sorted([*self.superseded, revision])
            if batch not in self.batches:
                self.batches.append(batch)
            return
        if revision > self.revision:
            self.superseded = sorted({*self.superseded, self.revision})
            self.retract = self.retract or self.status != INCOMPLETE
            self.status, self.has_end, self.revision = INCOMPLETE, False, revision
            self.batches.extend(b for b in self.late_batches if b not in self.batches)
            self.late_batches = []
        if self.status == INCOMPLETE:
            self.has_end = self.has_end or has_end
            if batch not in self.batches:
                self.batches.append(batch)
        elif batch not in self.late_batches:
            self.late_batches.append(batch)

    @property
    def ready(self) -> bool:
        """Complete (its ``match_end`` arrived) and not replayed yet."""
        return self.status == INCOMPLETE and self.has_end


@dataclass(slots=True)
class FileRecord:
    """One read of an inbox file (the ingested-file log): its name, batch, rows and how far it got.

    A file that grows between runs is read on from ``offset`` when its first ``offset`` content
    bytes still hash to ``prefix`` (``pipelines.lines``), so each read has its own record.
    """

    name: str
    batch: str
    rows: int
    first_line: int = 1
    """Line number of the first line this read covered."""
    lines: int = 0
    """Whole lines of the file read so far, this read included (the next read starts after them)."""
    offset: int = -1
    """Content bytes read so far (whole lines; for ``.gz`` decompressed); -1: a read that cannot be
    continued (a converted foreign log), so a changed file is read whole again."""
    prefix: str = ""
    """sha256 of those ``offset`` bytes."""
    terminated: bool = True
    """Whether those bytes end with a line break."""
    pending: int = 0
    """Bytes of an unfinished last line (no line break yet) left for the next read."""
    problem: str | None = None
    """What was wrong with the read: ``empty``, ``damaged`` or ``unfinished_line`` (None: nothing)."""
    message: str | None = None
    """The problem as reported: what and where (line, byte position)."""
    revisions: dict[str, int] = field(default_factory=dict)
    """Match id -> the revision other than 1 that the file's ``match_start`` declares (a later read
    of the grown file gives its rows the same revision)."""

    def resume(self) -> Resume | None:
        """Where a read of a grown version of this file continues (None: read it whole)."""
        if self.offset < 0:
            return None
        return Resume(self.offset, self.lines, self.prefix, self.terminated)


@dataclass(slots=True)
class StoreState:
    """Everything the pipeline must remember between runs (see module docstring)."""

    committed: list[str] = field(default_factory=list)
    files: dict[str, FileRecord] = field(default_factory=dict)
    """Content hash (sha256) -> the read of the file first seen with that content (insertion order
    is read order, so the last record of a name is its latest read)."""
    fingerprints: dict[str, list[Any]] = field(default_factory=dict)
    """Inbox path -> [size, mtime_ns, sha256]: skips re-hashing unchanged files on a rerun."""
    matches: dict[str, MatchInfo] = field(default_factory=dict)
    unquarantined: list[str] = field(default_factory=list)
    """Raw-event batches whose malformed lines are not in ``quarantine`` yet."""
    malformed_rows: int = 0

    @property
    def committed_set(self) -> set[str]:
        return set(self.committed)

    def counts(self) -> dict[str, int]:
        """Matches by status, and raw rows by the status of their match (``malformed`` apart)."""
        out: dict[str, int] = {}
        for info in self.matches.values():
            out[f"matches_{info.status}"] = out.get(f"matches_{info.status}", 0) + 1
            out[f"rows_{info.status}"] = out.get(f"rows_{info.status}", 0) + info.rows
        out["rows_malformed"] = self.malformed_rows
        return out


def state_file(state_dir: Path) -> Path:
    return state_dir / "state.json"


def load_state(state_dir: Path) -> StoreState:
    """The saved state, or an empty one for a new store."""
    path = state_file(state_dir)
    if not path.exists():
        return StoreState()
    raw = orjson.loads(path.read_bytes())
    if raw.get("version") != STATE_VERSION:
        raise ValueError(f"{path}: state version {raw.get('version')!r}, expected {STATE_VERSION}")
    return StoreState(
        committed=raw["committed"],
        files={h: FileRecord(**r) for h, r in raw["files"].items()},
        fingerprints=raw["fingerprints"],
        matches={m: MatchInfo(**i) for m, i in raw["matches"].items()},
        unquarantined=raw["unquarantined"],
        malformed_rows=raw["malformed_rows"],
    )


def save_state(state_dir: Path, state: StoreState) -> None:
    """Write the state atomically: a reader or a crash sees the old or the new file, whole."""
    state_dir.mkdir(parents=True, exist_ok=True)
    data = {"version": STATE_VERSION, **asdict(state)}
    path = state_file(state_dir)
    tmp = path.with_name(f".{path.name}.tmp")
    with open(tmp, "wb") as handle:
        handle.write(orjson.dumps(data))
        handle.flush()
        os.fsync(handle.fileno())
    os.replace(tmp, path)

