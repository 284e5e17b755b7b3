"""Bot quality: straight flushes are played, bombs are kept for when they matter,
by style; the play statistics (`simulator.quality`) read events correctly (rules.md §3–§4)."""

from __future__ import annotations

from typing import Any

import pytest
from sim_playcheck import check_plays

from replay import replay_match
from simulator import simulate_match
from simulator.quality import bomb_class, has_straight_flush, play_stats, top_half_win_rate

STYLES = ("conservative", "balanced", "aggressive")


@pytest.mark.parametrize(
    ("cards", "combo", "level", "expected"),
    [
        (["S7", "H7", "C7", "D7"], None, "2", "bomb4"),  # §3 bomb, §4 class 5 (4 cards)
        (["S7", "H7", "C7", "D7", "H2"], {"type": "bomb", "rank": "7"}, "2", "bomb5"),
        (["S7", "H7", "C7", "D7", "S7", "H7"], None, "2", "bomb6plus"),
        (["S9", "ST", "SJ", "SQ", "SK"], None, "2", "straight_flush"),  # §3: always a straight flush
        (["S9", "ST", "SJ", "SQ", "H2"], {"type": "straight_flush", "rank": "9"}, "2", "straight_flush"),
        # the declared reading wins: the same cards read as a plain straight are no bomb (§3 readings)
        (["S9", "ST", "SJ", "SQ", "H2"], {"type": "straight", "rank": "9"}, "2", None),
        (["SB", "SB", "HR", "HR"], None, "5", "joker_bomb"),
        (["S9", "DT", "SJ", "SQ", "SK"], None, "2", None),  # mixed suits: a straight
        (["S9", "C9", "D9", "S4", "C4"], None, "2", None),  # full house
    ],
)
def test_bomb_class(cards: list[str], combo: dict[str, str] | None, level: str, expected: str | None) -> None:
    """Plays are classed by rules.md §4 strength class, bombs by size."""
    assert bomb_class(cards, combo, level) == expected


@pytest.mark.parametrize(
    ("hand", "level", "expected"),
    [
        (["D9", "DT", "DJ", "DQ", "DK", "S2"], "2", True),
        (["DA", "D2", "D3", "D4", "D5"], "9", True),  # A low (§3)
        (["DT", "DJ", "DQ", "DK", "DA"], "9", True),  # A high
        (["DJ", "DQ", "DK", "DA", "D2"], "9", False),  # no wrap-around
        (["D9", "DT", "DQ", "DK", "H2"], "2", True),  # the heart level card fills the gap
        (["D9", "DT", "DQ", "DK", "H3"], "2", False),  # a heart that is not the level card does not
        (["D9", "DT", "SJ", "DQ", "DK"], "2", False),  # mixed suits
    ],
)
def test_has_straight_flush(hand: list[str], level: str, expected: bool) -> None:
    """A dealt hand holds a straight flush when five same-suit consecutive cards can be formed (§3)."""
    assert has_straight_flush(hand, level) is expected


def _matches(count: int, **kwargs: Any) -> list[list[dict[str, Any]]]:
    return [simulate_match("national", "until_a", seed, **kwargs) for seed in range(count)]


def test_skilled_players_play_their_straight_flushes() -> None:
    """Skilled bots plan and play straight flushes (§3, §4 class 3) from most hands that hold one; the
    matches stay legal (every play checked by the rules engine) and replay `valid`."""
    matches = [
        simulate_match("national", "until_a", seed, skills=(1.0,) * 4, match_id=f"sf-{seed}")
        for seed in range(8)
    ]
    stats = play_stats(matches, {})
    assert stats.deals >= 60
    assert stats.bombs["straight_flush"] >= 0.6 * stats.hands_with_straight_flush
    for events in matches:
        assert check_plays(events) == []
        assert replay_match(events).status == "valid"


@pytest.mark.parametrize("skill", [0.0, 0.5])
@pytest.mark.parametrize("style", STYLES)
def test_weak_players_play_only_legal_moves(skill: float, style: str) -> None:
    """Blunders, careless plans, overtaken partners and careless returns are still legal (§3–§6)."""
    for seed in range(2):
        events = simulate_match(
            "bcta",
            "until_a",
            seed,
            skills=(skill, 1.0, skill, 0.0),
            styles=(style,) * 4,
            match_id=f"w-{seed}",
        )
        assert check_plays(events) == []
        assert replay_match(events).status == "valid"


def test_straight_flushes_in_a_mixed_field() -> None:
    """With players of every skill, straight flushes are a regular part of the bombs played."""
    stats = play_stats(_matches(10), {})
    assert 0.5 <= stats.per_deal("straight_flush") <= 2.5


def test_bombs_per_deal_by_style() -> None:
    """Bombs are kept for when they matter: fewer 4-card bombs than the ~5.7 per deal of the first
    bots, and the conservative style bombs early (every player still holding ≥ 10 cards) clearly less
    often than the aggressive one. Players who go out must play their bombs, so most are played."""
    early: dict[str, float] = {}
    for style in STYLES:
        matches = [
            simulate_match("national", "until_a", seed, styles=(style,) * 4, match_id=f"b-{style}-{seed}")
            for seed in range(12)
        ]
        stats = play_stats(matches, {pid: style for m in matches for pid in m[0]["seats"].values()})
        assert stats.deals >= 90
        assert 4.5 <= stats.per_deal("all") <= 7.5, style
        assert stats.per_deal("bomb4") <= 4.8, style
        early[style] = stats.per_player_deal(style, early=True)
    assert early["conservative"] <= 0.42
    assert early["aggressive"] >= 0.45
    assert early["aggressive"] - early["conservative"] >= 0.1


def test_top_half_win_rate_counts_draws_as_half() -> None:
    """The pooled win rate of the more skilled half: wins 1, draws ½ (scoring.md round results)."""
    start = {"type": "match_start", "seats": {"E": "a", "W": "b", "N": "c", "S": "d"}}
    matches = [
        [start, {"type": "match_end", "winner": "EW"}],
        [start, {"type": "match_end", "winner": None}],
    ]
    skill = {"a": 0.9, "b": 0.8, "c": 0.1, "d": 0.2}
    assert top_half_win_rate(matches, skill) == pytest.approx(0.75)
