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

    def add_rows(self, batch: str, rows: int, has_end: bool) -> None:
        """Record ``rows`` new raw rows of this match in ``batch``."""
        self.rows += rows
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
    """A file read once: its name, batch and line count."""

    name: str
    batch: str
    rows: int


@dataclass(slots=True)
class StoreState:
    """Everything the pipeline must remember between runs (see module docstring)."""

    committed: list[str] = field(default_factory=list)
    files: dict[str, FileRecord] = field(default_factory=dict)
    """Content hash (sha256) -> the file first read with that content."""
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

