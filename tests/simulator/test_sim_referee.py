"""The simulator's referee: level-up and A (rules.md §5.8, §7), tribute and returns (§6, §10)."""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, datetime

import pytest

from replay.rulesets import RoundFormat, get_ruleset
from simulator.match import MatchReferee, MatchSpec, Player
from simulator.returns import legal_returns


def _referee(rules: str, levels: dict[str, int] | None = None) -> MatchReferee:
    players = {s: Player(f"p{i}", s, "c", 0.9, "balanced") for i, s in enumerate("ENWS")}
    spec = MatchSpec(
        "m", get_ruleset(rules), RoundFormat("until_a"), players, "s", "d", datetime(2026, 1, 1, tzinfo=UTC)
    )
    ref = MatchReferee(spec)
    if levels:
        ref.levels.update(levels)
    return ref


A = 12


@pytest.mark.parametrize(
    ("rules", "levels", "declarers", "order", "expected_levels", "result"),
    [
        # §5.8: partner 2nd +3, 3rd +2, 4th +1; only the 1st team goes up
        ("national", {"EW": 0, "NS": 0}, None, ["E", "W"], {"EW": 3, "NS": 0}, (None, None, 3)),
        ("national", {"EW": 0, "NS": 4}, "NS", ["N", "E", "S", "W"], {"EW": 0, "NS": 6}, (None, None, 2)),
        ("national", {"EW": 0, "NS": 4}, "NS", ["E", "N", "S", "W"], {"EW": 1, "NS": 4}, (None, None, 1)),
        # §5.8: no team goes past A (reaching A and passing it in one deal is not allowed)
        ("national", {"EW": 11, "NS": 0}, "EW", ["E", "W"], {"EW": A, "NS": 0}, (None, None, 3)),
        # §7: declarers at A pass with 1st and partner not 4th
        (
            "national",
            {"EW": A, "NS": 3},
            "EW",
            ["W", "N", "E", "S"],
            {"EW": A, "NS": 3},
            ("passed_a", "EW", 2),
        ),
        # §7: 1st with partner 4th is a failure, no limit in national
        ("national", {"EW": A, "NS": 3}, "EW", ["E", "N", "S", "W"], {"EW": A, "NS": 3}, (None, None, 1)),
        # §7 bcta: the 3rd failure loses the round (two failures already recorded below)
        ("bcta", {"EW": A, "NS": 3}, "EW", ["N", "S"], {"EW": A, "NS": 6}, ("a_failures", "NS", 3)),
        # §10 njupt: only a 1-4 finish counts; the 4th sends the team back to 2
        ("njupt", {"EW": A, "NS": 3}, "EW", ["N", "S"], {"EW": A, "NS": 6}, (None, None, 3)),
        ("njupt", {"EW": A, "NS": 3}, "EW", ["E", "N", "S", "W"], {"EW": 0, "NS": 3}, (None, None, 1)),
        # the team at A that is not declaring does not pass A by winning
        ("national", {"EW": A, "NS": 5}, "NS", ["E", "W"], {"EW": A, "NS": 5}, (None, None, 3)),
    ],
)
def test_score_deal(rules, levels, declarers, order, expected_levels, result) -> None:
    """Level-up, passing A and failures at A per ruleset (rules.md §5.8, §7, §10)."""
    ref = _referee(rules, levels)
    if rules == "bcta":
        ref.failures["EW"] = 2
    if rules == "njupt":
        ref.failures["EW"] = 3
    assert ref.score_deal(declarers, order) == result
    assert ref.levels == expected_levels


def test_first_and_second_pass_rule() -> None:
    """§10 variant: passing A needs 1st and 2nd; 1st and 3rd is a failure."""
    ref = _referee("national", {"EW": A, "NS": 0})
    ref.rules = replace(ref.rules, a=replace(ref.rules.a, pass_rule="first_and_second"))
    assert ref.score_deal("EW", ["E", "N", "W", "S"])[0] is None
    assert ref.failures["EW"] == 1
    assert ref.score_deal("EW", ["E", "W"])[:2] == ("passed_a", "EW")


LOW = ["S3", "C4", "D5", "S6", "C7", "D8", "S9"]


def _hands(**extra: list[str]) -> dict[str, list[str]]:
    return {s: LOW + extra.get(s, []) for s in "ENWS"}


@pytest.mark.parametrize(
    ("rules", "previous", "extra", "tributes", "leader"),
    [
        # §6 single tribute: 4th pays 1st the highest card (heart level card excluded), tributer leads
        ("national", ["E", "N", "W", "S"], {"S": ["HR", "SA"]}, [("S", "E", "HR")], "S"),
        ("national", ["E", "N", "W", "S"], {"S": ["H2", "SK"]}, [("S", "E", "SK")], "S"),
        # §6 double tribute: 1st takes the higher card; the giver to the 1st leads (national)
        (
            "national",
            ["E", "W"],
            {"N": ["SA"], "S": ["SK"]},
            [("N", "E", "SA"), ("S", "W", "SK")],
            "N",
        ),
        # §6 equal tributes: each to his 上家, the 1st's 下家 leads
        (
            "national",
            ["E", "W"],
            {"N": ["SA"], "S": ["CA"]},
            [("N", "E", "SA"), ("S", "W", "CA")],
            "N",
        ),
        # §10 bcta: the giver of the higher card leads (here S, who gave it to the 1st, W)
        (
            "bcta",
            ["W", "E"],
            {"N": ["SK"], "S": ["SA"]},
            [("S", "W", "SA"), ("N", "E", "SK")],
            "S",
        ),
        # §10 njupt: always to the 上家; the giver of the higher card leads
        (
            "njupt",
            ["E", "W"],
            {"N": ["SK"], "S": ["SA"]},
            [("N", "E", "SK"), ("S", "W", "SA")],
            "S",
        ),
    ],
)
def test_tribute_routes_and_leader(rules, previous, extra, tributes, leader) -> None:
    """Tribute routes, cards and the first leader (rules.md §6, §10)."""
    ref = _referee(rules)
    level = "2"
    hands = _hands(**extra)
    for s in "ENWS":
        ref.bots[s].new_hand(hands[s], level)
    got_leader, payments = ref.tribute(level, previous, hands)
    paid = [(p["from"], p["to"], p["card"]) for kind, p in payments if kind == "tribute"]
    returned = [(p["from"], p["to"]) for kind, p in payments if kind == "return"]
    assert paid == tributes
    assert returned == [(to, frm) for frm, to, _ in tributes]
    assert got_leader == leader


@pytest.mark.parametrize(
    ("previous", "extra", "seats"),
    [
        (["E", "N", "W", "S"], {"S": ["HR", "HR"]}, ["S"]),
        (["E", "W"], {"N": ["HR"], "S": ["HR"]}, ["N", "S"]),
    ],
)
def test_anti_tribute(previous, extra, seats) -> None:
    """§6 resistance: the tributers hold both big jokers, nothing is paid and the 1st leads."""
    ref = _referee("national")
    hands = _hands(**extra)
    for s in "ENWS":
        ref.bots[s].new_hand(hands[s], "2")
    leader, payments = ref.tribute("2", previous, hands)
    assert payments == [("anti_tribute", {"seats": seats})]
    assert leader == previous[0]


@pytest.mark.parametrize(
    ("rules", "hand", "level", "to_partner", "received", "expected"),
    [
        # national: rank ≤ 10, level cards by natural rank
        ("national", ["S3", "ST", "SJ", "HR"], "3", False, "HR", ["S3", "ST"]),
        # national: everything above 10 → the lowest card
        ("national", ["SJ", "SQ", "CJ", "HR"], "2", False, "HR", ["SJ", "CJ"]),
        # bcta: no level cards
        ("bcta", ["S3", "ST", "SJ"], "3", False, "SJ", ["ST"]),
        # jiangsu: not the card received
        ("jiangsu", ["S4", "S4", "S9", "SK"], "2", False, "S4", ["S9"]),
        # huaian: to an opponent any card; to one's partner rank ≤ 10
        ("huaian", ["S4", "SA"], "2", False, "SA", ["S4", "SA"]),
        ("huaian", ["S4", "SA"], "2", True, "SA", ["S4"]),
    ],
)
def test_legal_returns(rules, hand, level, to_partner, received, expected) -> None:
    """Return-card constraint per ruleset (rules.md §6 table, §10)."""
    rule = get_ruleset(rules).returns
    assert legal_returns(hand, level, rule, to_partner, received) == expected
