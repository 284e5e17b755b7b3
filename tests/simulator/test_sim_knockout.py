"""The simulator's knockout stage (simulator/tournament.py, scoring.knockout; huaian Art. 14, 25)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import orjson
import pytest

from replay import replay_match
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


@pytest.mark.parametrize("rules", ["national", "huaian"])
def test_a_level_knockout_round_is_played_on(tmp_path: Path, rules: str) -> None:
    """national Art. 49 二 "打平時，加賽一副，至決出勝負" / huaian Art. 14 五: two-deal knockout rounds
    that end level get their play-off deals, every round has a winner and replays valid."""
    simulate_to_dir(tmp_path, "tournament", pairs=8, system="knockout", rules=rules, format="deals:2", seed=4)
    by_match: dict[str, list[dict[str, Any]]] = {}
    for f in sorted(tmp_path.glob("*.jsonl")):
        for line in f.read_bytes().splitlines():
            ev = orjson.loads(line)
            by_match.setdefault(ev["match"], []).append(ev)
    replays = [replay_match(events) for events in by_match.values()]
    assert [r.status for r in replays] == ["valid"] * 7
    assert all(r.rows["matches"][0]["winner"] in ("EW", "NS") for r in replays)
    assert sum(d["extra_deal"] for r in replays for d in r.rows["deals"]) >= 2


def test_knockout_needs_rounds_with_a_winner(tmp_path: Path) -> None:
    """huaian Art. 14 五: a deal-limited round whose draw_breaker does not decide knockout rounds
    (jiangsu: only the last round) can end level."""
    with pytest.raises(ValueError, match="must have a winner"):
        simulate_to_dir(tmp_path, "tournament", pairs=6, rules="jiangsu", format="deals:2", knockout=4)
    with pytest.raises(ValueError, match="between 2 and 6"):
        simulate_to_dir(tmp_path, "tournament", pairs=6, knockout=8)
