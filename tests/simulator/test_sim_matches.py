"""Simulated matches under every ruleset and round format replay `valid` (rules.md §5–§7, events.md)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import orjson
import pytest
from sim_playcheck import check_plays

from replay import replay_match
from simulator import simulate_match

RULESETS = ("national", "huaian", "bcta", "jiangsu", "njupt")
FORMATS = {"deals:3": 12, "timed:25": 10, "timed_deals:30:4": 10, "until_a": 3}
"""Round formats (rules.md §7) and how many seeds of each to play per ruleset."""


def _cases() -> list[tuple[str, str, int]]:
    return [(r, f, seed) for r in RULESETS for f, n in FORMATS.items() for seed in range(n)]


def _check_envelope(events: list[dict[str, Any]]) -> None:
    """events.md framing: v 1, one match id, seq 0.. without gaps, times never going back."""
    assert [e["seq"] for e in events] == list(range(len(events)))
    assert {e["v"] for e in events} == {1}
    assert len({e["match"] for e in events}) == 1
    times = [datetime.fromisoformat(e["t"]) for e in events]
    assert times == sorted(times)
    assert events[0]["type"] == "match_start" and events[-1]["type"] == "match_end"


def _check_format(events: list[dict[str, Any]], fmt: str) -> None:
    """rules.md §7: deal-count formats stop at N deals; timed formats start no deal after the limit."""
    kind, *numbers = fmt.split(":")
    starts = [e for e in events if e["type"] == "deal_start"]
    end = events[-1]
    if kind in ("deals", "timed_deals"):
        assert len(starts) <= int(numbers[-1])
        if end["reason"] == "deals":
            assert len(starts) == int(numbers[-1])
    if kind in ("timed", "timed_deals"):
        t0 = datetime.fromisoformat(events[0]["t"])
        deadline = t0 + timedelta(minutes=int(numbers[0]))
        assert all(datetime.fromisoformat(e["t"]) < deadline for e in starts)
        if end["reason"] == "time":
            assert datetime.fromisoformat(end["t"]) >= deadline
    if kind == "until_a":
        assert end["reason"] in ("passed_a", "a_failures")


@pytest.mark.parametrize(("rules", "fmt", "seed"), _cases())
def test_simulated_match_replays_valid(rules: str, fmt: str, seed: int) -> None:
    """Every event of a simulated match passes the replayer and the independent play check."""
    events = simulate_match(rules, fmt, seed)
    _check_envelope(events)
    _check_format(events, fmt)
    result = replay_match(events)
    assert result.status == "valid", result.error
    assert check_plays(events) == []


def test_match_start_and_wild_plays_are_declared() -> None:
    """events.md: match_start carries rules, format, seats and players; plays with a wild carry `combo`."""
    events = simulate_match("jiangsu", "deals:3", 7)
    start = events[0]
    assert start["rules"] == "jiangsu"
    assert start["format"] == {"kind": "deals", "deals": 3}
    assert set(start["seats"]) == {"E", "N", "W", "S"}
    assert set(start["players"]) == set(start["seats"].values())
    level = "2"
    wild_plays = 0
    for e in events:
        if e["type"] == "deal_start":
            level = e["level"]
        if e["type"] == "play" and "H" + level in e["cards"]:
            wild_plays += 1
            assert set(e["combo"]) == {"type", "rank"}
    assert wild_plays > 0


def test_independent_matches_start_two_hours_apart_from_start(tmp_path: Path) -> None:
    """``simulate_to_dir(kind="matches", start=...)``: the first match starts then, the next two
    hours later (a benchmark's added matches come after the store's, as a league's next rounds)."""
    from simulator import simulate_to_dir

    first = datetime(2031, 1, 5, 9, 0, tzinfo=UTC)
    simulate_to_dir(tmp_path, kind="matches", matches=2, players=4, format="deals:1", seed=3, start=first)
    starts = [orjson.loads(line) for f in sorted(tmp_path.glob("*.jsonl"))
              for line in f.read_bytes().splitlines() if b'"match_start"' in line]
    assert [datetime.fromisoformat(e["t"]) for e in starts] == [first, first + timedelta(hours=2)]
