"""`--corrupt`: damaged logs are caught by the replayer with the manifest's code and seq (events.md
"Validation", replay/errors.py)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import orjson
import pytest

from replay import replay_match
from simulator import simulate_to_dir
from simulator.corrupt import DAMAGES


@pytest.fixture(scope="module")
def damaged(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, list[dict[str, Any]]]:
    out = tmp_path_factory.mktemp("corrupt")
    summary = simulate_to_dir(out, "matches", matches=30, format="deals:3", seed=9, corrupt=0.6)
    manifest = orjson.loads((out / "corrupt" / "manifest.json").read_bytes())
    assert summary.corrupted == len(manifest["matches"]) > 0
    return out, manifest["matches"]


def _read(path: Path) -> list[dict[str, Any]]:
    """Parse a log as a reader would: lines that are not JSON objects are reported apart, skipped here."""
    events = []
    for line in path.read_bytes().splitlines():
        try:
            events.append(orjson.loads(line))
        except orjson.JSONDecodeError:
            continue
    return events


def test_every_kind_of_damage_is_written(damaged: tuple[Path, list[dict[str, Any]]]) -> None:
    """The run covers every kind of damage, each entry naming a code from the vocabulary."""
    _, entries = damaged
    assert {e["damage"] for e in entries} == set(DAMAGES)
    assert all(e["code"] == DAMAGES[e["damage"]] for e in entries)


def test_replayer_reports_the_manifest_error(damaged: tuple[Path, list[dict[str, Any]]]) -> None:
    """Each damaged match is invalid with exactly the manifest's first error code and seq."""
    out, entries = damaged
    for entry in entries:
        events = _read(out / "corrupt" / entry["file"])
        assert {e["match"] for e in events} == {entry["match"]}
        result = replay_match(events)
        assert result.status == "invalid", entry
        assert (str(result.error.code), result.error.seq) == (entry["code"], entry["seq"]), (
            entry,
            result.error,
        )


def test_clean_copies_stay_valid(damaged: tuple[Path, list[dict[str, Any]]]) -> None:
    """Corruption never touches the clean logs: every source match still replays valid."""
    out, entries = damaged
    sources = {e["source"] for e in entries}
    clean: dict[str, list[dict[str, Any]]] = {}
    for path in out.glob("*.jsonl"):
        for line in path.read_bytes().splitlines():
            e = orjson.loads(line)
            if e["match"] in sources:
                clean.setdefault(e["match"], []).append(e)
    assert set(clean) == sources
    assert all(replay_match(events).status == "valid" for events in clean.values())
