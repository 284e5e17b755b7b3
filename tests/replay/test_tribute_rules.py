"""Tribute, return and leader rules per ruleset (rules.md §6, §10), table-driven."""

from __future__ import annotations

from collections import Counter

import pytest
from replay_builder import Log

from replay.rulesets import BUILTIN
from replay.tribute import return_allowed

LOW_HAND = Counter(["S3", "D9", "SK", "HA", "C5"])
HIGH_HAND = Counter(["SJ", "DQ", "SK", "HA", "CA"])


@pytest.mark.parametrize(
    ("rules", "card", "hand", "tribute", "to_partner", "ok"),
    [
        ("national", "D9", LOW_HAND, "HR", False, True),  # §6 national: rank ≤ 10
        ("national", "SK", LOW_HAND, "HR", False, False),  # K while a ≤ 10 card is held
        ("national", "SJ", HIGH_HAND, "HR", False, True),  # every card above 10: the lowest
        ("national", "SK", HIGH_HAND, "HR", False, False),  # … but not another one
        ("jiangsu", "C5", LOW_HAND + Counter(["C5"]), "C5", False, False),  # jiangsu: not the tribute card
        ("jiangsu", "S3", LOW_HAND, "C5", False, True),
        ("bcta", "C5", LOW_HAND, "HR", False, False),  # bcta: no level card (level 5 below)
        ("bcta", "S3", LOW_HAND, "HR", False, True),
        ("bcta", "SJ", HIGH_HAND, "HR", False, True),  # bcta: no fallback rule, nothing else fits
        ("huaian", "HA", LOW_HAND, "HR", False, True),  # huaian: any card to an opponent
        ("huaian", "HA", LOW_HAND, "HR", True, False),  # … ≤ 10 to one's partner
    ],
)
def test_return_constraint(
    rules: str, card: str, hand: Counter[str], tribute: str, to_partner: bool, ok: bool
) -> None:
    rule = BUILTIN[rules].returns
    assert return_allowed(card, hand, "5", rule, tribute, to_partner) is ok


def test_return_with_unknown_hand_judges_the_card_only() -> None:
    """A partial log (hand unknown): a high card may have been the lowest, so it is accepted."""
    assert return_allowed("SK", None, "5", BUILTIN["national"].returns, "HR", False)


def _double(rules: str = "national") -> Log:
    log = Log(rules)
    log.deal(leader="E", seed=1)
    log.play_out(["E", "W"], leader="E")
    log.end_deal()
    return log


def test_double_tribute_higher_card_must_go_to_first() -> None:
    """§6: the 1st takes the higher tribute; giving it to the 2nd is a wrong route at that tribute."""
    log = _double()
    log.deal("5", "EW", give={"N": ["HR"], "S": ["SB", "SB"], "E": ["HR"]}, seed=3)
    log.tribute("N", "W")
    log.tribute("S", "E")
    r = log.replay()
    assert r.error is not None and (r.error.code, r.error.seq) == ("wrong_tribute_route", len(log.events) - 2)


def test_anti_tribute_due_but_tribute_paid() -> None:
    """§6 resistance is not optional: paying while holding both big jokers is a bad anti-tribute."""
    log = _double()
    log.deal("5", "EW", give={"N": ["HR"], "S": ["HR"]}, seed=3)
    log.tribute("N", "E")
    r = log.replay()
    assert r.error is not None and (r.error.code, r.error.seq) == ("bad_anti_tribute", len(log.events) - 1)


def test_timed_no_deal_after_the_limit() -> None:
    """rules.md §7 timed: no deal starts after the time limit."""
    log = Log(format={"kind": "timed", "minutes": 10}, minute=0)
    log.deal(leader="E", seed=1)
    log.play_out(["E", "W"], leader="E")
    log.end_deal()
    log.minute = 11
    log.deal("5", "EW", seed=2)
    r = log.replay()
    assert r.error is not None and (r.error.code, r.error.seq) == ("match_already_over", len(log.events) - 1)
