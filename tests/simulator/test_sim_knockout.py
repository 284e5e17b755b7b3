"""The simulator's knockout stage (simulator/tournament.py, scoring.knockout; huaian Art. 14, 25)."""

from __future__ import annotations

from pathlib import Path

import orjson
import pytest

from simulator import simulate_to_dir


def _matches(folder: Path) -> list[dict[str, object]]:
    """match_start and match_end of every simulated match, by file order."""
    out = []
    for f in sorted(folder.glob("*.jsonl")):
        for line in f.read_bytes().splitlines():
            ev = orjson.loads(line)
            if ev["type"] in ("match_start", "match_end"):
                out.append(ev)
    return out


def test_knockout_of_every_pair_seeded_by_strength(tmp_path: Path) -> None:
    """5 pairs: a bracket of 8, byes to seeds 1–3 (huaian Art. 25), 3 rounds, one winner each."""
    summary = simulate_to_dir(tmp_path, "tournament", pairs=5, system="knockout", seed=2)
    assert summary.files == [f"national-knockout-s2-ko{r:02d}.jsonl" for r in (1, 2, 3)]
    events = _matches(tmp_path)
    starts = [e for e in events if e["type"] == "match_start"]
    assert [e["event"]["round"] for e in starts] == [1, 2, 2, 3]  # type: ignore[index]
    assert {e["event"]["stage"] for e in starts} == {"knockout"}  # type: ignore[index]
    assert all(e.get("winner") in ("EW", "NS") for e in events if e["type"] == "match_end")


def test_knockout_needs_rounds_with_a_winner(tmp_path: Path) -> None:
    """huaian Art. 14 五: a deal-limited round without a draw_breaker can end level."""
    with pytest.raises(ValueError, match="must have a winner"):
        simulate_to_dir(tmp_path, "tournament", pairs=6, rules="jiangsu", format="deals:2", knockout=4)
    with pytest.raises(ValueError, match="between 2 and 6"):
        simulate_to_dir(tmp_path, "tournament", pairs=6, knockout=8)
