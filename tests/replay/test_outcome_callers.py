"""The three writers and readers of deal results agree (rules.md §5.8, §7, §10): the simulator's
referee writes ``deal_end`` and ``match_end``, the replayer derives them again and checks every
level, and the score-sheet importer, given only the finishing orders, writes the same levels and
end — all three through ``replay.outcome``."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from importers.scoresheet import DealResult, MatchSpec, match_events
from replay.replayer import replay_match
from replay.rulesets import BUILTIN, RoundFormat, Ruleset, parse_ruleset
from simulator.api import simulate_match

RULESET_DIR = Path(__file__).parents[2] / "replay" / "rulesets"


def _ruleset(rules: str) -> tuple[str, Ruleset]:
    """The simulator's argument (an id, or a ruleset file's path) and the ruleset."""
    if rules in BUILTIN:
        return rules, BUILTIN[rules]
    path = RULESET_DIR / f"{rules}.toml"
    return str(path), parse_ruleset(path.read_text(encoding="utf-8"), ".toml")


def _results(events: list[dict[str, Any]]) -> list[tuple[str, Any]]:
    """What the level rules decide in a match's events: each deal's order and levels after it, the end."""
    out: list[tuple[str, Any]] = []
    for ev in events:
        if ev["type"] == "deal_end":
            out.append(("deal_end", (ev["order"], ev["levels"])))
        elif ev["type"] == "match_end":
            out.append(("match_end", (ev["reason"], ev["winner"], ev["levels"])))
    return out


def _from_sheet(events: list[dict[str, Any]], ruleset: Ruleset) -> list[dict[str, Any]]:
    """The events the score-sheet importer writes from the match's finishing orders alone."""
    start = events[0]
    fmt = RoundFormat(start["format"]["kind"], start["format"].get("deals"), start["format"].get("minutes"))
    spec = MatchSpec(start["match"], "ev", None, 1, "1", start["seats"])
    orders = [ev["order"] for ev in events if ev["type"] == "deal_end"]
    deals = [DealResult(n, n, order) for n, order in enumerate(orders, start=1)]
    problems: list[tuple[Any, ...]] = []
    sheet = match_events(spec, ruleset, fmt, deals, lambda *fault: problems.append(fault))
    assert problems == []
    return sheet


@pytest.mark.parametrize(
    ("rules", "fmt", "seed", "end"),
    [
        ("national", "until_a", 1, "passed_a"),
        ("huaian", "deals:6", 0, "deals"),
        ("jiangsu", "until_a", 2, "passed_a"),
        ("njupt", "until_a", 3, "passed_a"),
        ("app_strict", "until_a", 0, "passed_a"),  # §10: A passed with 1st and 2nd only
        ("bcta", "until_a", 1014, "a_failures"),  # §7 bcta: the 3rd failure at A loses the round
        ("club_back_to_two", "until_a", 12, "passed_a"),  # §10: back to 2 after 3 failures (deal 9)
    ],
)
def test_simulator_replay_and_score_sheet_agree(rules: str, fmt: str, seed: int, end: str) -> None:
    """rules.md §5.8, §7, §10 on a simulated match: the replay finds the simulator's levels and end
    valid, and a score sheet of the same finishing orders gives the same deal results and end."""
    argument, ruleset = _ruleset(rules)
    events = simulate_match(argument, fmt, seed=seed)
    replayed = replay_match(events, {**BUILTIN, ruleset.id: ruleset})
    assert replayed.status == "valid", replayed.error
    assert replayed.rows["matches"][0]["end_reason"] == end
    assert _results(_from_sheet(events, ruleset)) == _results(events)


def test_back_to_two_happens_in_the_simulated_club_match() -> None:
    """The club match above exercises §10's back-to-2: a deal the declarers start at A ends at 2."""
    argument, ruleset = _ruleset("club_back_to_two")
    replayed = replay_match(simulate_match(argument, "until_a", seed=12), {ruleset.id: ruleset})
    deals = replayed.rows["deals"]
    assert any(d["level_NS_before"] == "A" and d["level_NS_after"] == "2" for d in deals)
