"""Yellow and red cards as ruleset data (rules.md §8; BCTA rule book, 裁判員紅黃牌的使用規則).

Disagreement: rules.md §8 says "``bcta``: three yellow cards for a player in a *round* → red card,
the round is lost". The BCTA rule book (seeds/001) says three yellow cards for one player in one
*deal* (一局) make a red card, which ends that deal and loses it (當局判負); a side whose player is
shown two red cards in one round (一輪) loses the round (判本輪次為負). The rule book wins: these
tests follow it. The other rule books have no card system; their rulesets default to "three
yellows in a deal make a red, a red loses the deal, reds never lose the round".
"""

from __future__ import annotations

from typing import Any

import pytest
from replay_builder import Log

from replay import BUILTIN, get_ruleset, replay_match, ruleset_from_mapping
from replay.rulesets import CardPenalty

RULES = ("bcta", "national", "huaian", "jiangsu", "njupt")


@pytest.mark.parametrize(
    ("rules", "yellows", "effect", "reds"),
    [
        ("bcta", 3, "lose_deal", 2),  # BCTA rule book: 3 yellows/deal → red, red loses the deal, 2 reds/round
        ("national", 3, "lose_deal", None),  # no card system in the rule book: documented default
        ("huaian", 3, "lose_deal", None),
        ("jiangsu", 3, "lose_deal", None),
        ("njupt", 3, "lose_deal", None),
    ],
)
def test_card_penalty_data(rules: str, yellows: int, effect: str, reds: int | None) -> None:
    """rules.md §8 and the rule books: each built-in ruleset's card parameters."""
    assert get_ruleset(rules).card_penalty == CardPenalty(yellows, effect, reds)  # type: ignore[arg-type]


def _replay(log: Log, **extra: Any) -> Any:
    return replay_match(log.events, {**BUILTIN, **extra})


def _red_in_deal_one(log: Log, kind: str, seat: str = "N") -> None:
    """Deal 1 (E leads) where ``seat`` gets a red card, or three yellows, before the first play."""
    log.deal(leader="E", seed=1)
    for _ in range(3 if kind == "yellow_card" else 1):
        log.ruling(kind, seat=seat)


@pytest.mark.parametrize("rules", RULES)
@pytest.mark.parametrize("kind", ["yellow_card", "red_card"])
def test_red_card_forfeits_the_deal(rules: str, kind: str) -> None:
    """BCTA rule book (當局判負) / rules.md §8 foul scoring: a red card — or a player's third yellow in
    the deal — ends the deal as a double win for the other team; the next deal has no tribute."""
    log = Log(rules)
    _red_in_deal_one(log, kind)
    log.end_deal(["E", "W"], levels={"EW": "5", "NS": "2"})
    log.deal("5", "EW", seed=2, leader="W")
    log.play_out(["W", "E"], leader="W")
    log.end_deal(levels={"EW": "8", "NS": "2"})
    log.end("abandoned")
    r = _replay(log)
    assert r.status == "valid", r.error
    d1, d2 = r.rows["deals"]
    assert (d1["foul"], d1["double_win"], d1["winning_team"], d1["plays"]) == (True, True, "EW", 0)
    assert d2["tribute_kind"] == "none"
    assert [x["kind"] for x in r.rows["rulings"]] == [kind] * (3 if kind == "yellow_card" else 1)


@pytest.mark.parametrize("rules", RULES)
def test_forfeited_deal_must_be_logged_as_double_win(rules: str) -> None:
    """rules.md §8: after a red card the logged order must start with the other team's two seats."""
    log = Log(rules)
    _red_in_deal_one(log, "red_card")
    log.end_deal(["N", "S"])
    r = _replay(log)
    assert (r.status, r.error.code if r.error else None) == ("invalid", "wrong_finish_order")


@pytest.mark.parametrize("rules", ["bcta", "national"])
def test_yellows_count_per_deal(rules: str) -> None:
    """BCTA rule book: yellows add up within one deal (一局), not across deals: 2 + 1 is no red."""
    log = Log(rules)
    log.deal(leader="E", seed=1)
    log.ruling("yellow_card", seat="S")
    log.ruling("yellow_card", seat="S")
    log.play_out(["E", "W"], leader="E")
    log.end_deal(levels={"EW": "5", "NS": "2"})
    log.deal("5", "EW", seed=8, give={"N": ["HR"], "S": ["HR"]})
    log.ruling("yellow_card", seat="S")
    log.anti("N", "S")
    log.play_out(["E", "N", "W"], leader="E")
    log.end_deal(levels={"EW": "7", "NS": "2"})
    log.end("abandoned")
    r = _replay(log)
    assert r.status == "valid", r.error
    assert [d["foul"] for d in r.rows["deals"]] == [False, False]


@pytest.mark.parametrize(
    ("rules", "second", "round_lost"),
    [
        ("bcta", "N", True),  # 判本輪次為負: the same player's second red in the round
        ("bcta", "S", False),  # two players with one red each: two lost deals only
        ("national", "N", False),  # default: reds never lose the round
        ("njupt", "N", False),
    ],
)
def test_two_red_cards_in_a_round(rules: str, second: str, round_lost: bool) -> None:
    """BCTA rule book: a side whose player gets two red cards in one round loses the round."""
    log = Log(rules)
    _red_in_deal_one(log, "red_card", seat="N")
    log.end_deal(["E", "W"], levels={"EW": "5", "NS": "2"})
    log.deal("5", "EW", seed=2, leader="E")
    log.ruling("red_card", seat=second)
    if round_lost:
        log.end("forfeit", "EW")
    else:
        log.end_deal(["E", "W"], levels={"EW": "8", "NS": "2"})
        log.end("abandoned")
    r = _replay(log)
    assert r.status == "valid", r.error
    assert r.rows["matches"][0]["end_reason"] == ("forfeit" if round_lost else "abandoned")
    assert len(r.rows["deals"]) == (1 if round_lost else 2)


@pytest.mark.parametrize("rules", ["bcta", "national"])
def test_red_card_between_deals_is_out_of_place(rules: str) -> None:
    """rules.md §8: a red card that loses the deal needs a deal in play, like a foul."""
    log = Log(rules)
    log.ruling("red_card", seat="E")
    r = _replay(log)
    assert (r.status, r.error.code if r.error else None) == ("invalid", "event_out_of_place")


@pytest.mark.parametrize(
    ("card_penalty", "kind", "outcome"),
    [
        ({"red_effect": "lose_round"}, "red_card", "round"),  # rules.md §8's reading, as a variant
        ({"red_effect": "lose_round"}, "yellow_card", "round"),
        ({"yellows_per_red": None}, "yellow_card", "nothing"),
        ({"yellows_per_red": 2}, "yellow_card", "deal"),
    ],
)
def test_custom_card_penalty(card_penalty: dict[str, Any], kind: str, outcome: str) -> None:
    """rules.md §10: a ruleset file sets ``[card_penalty]``; three yellows (or a red) for N in deal 1."""
    rs = ruleset_from_mapping({"id": "club", "base": "bcta", "card_penalty": card_penalty})
    log = Log("club")
    _red_in_deal_one(log, kind)
    if outcome == "round":
        log.end("forfeit", "EW")
    elif outcome == "deal":
        log.end_deal(["E", "W"], levels={"EW": "5", "NS": "2"})
        log.end("abandoned")
    else:
        log.play_out(["E", "N", "W"], leader="E")
        log.end_deal(levels={"EW": "4", "NS": "2"})
        log.end("abandoned")
    r = _replay(log, club=rs)
    assert r.status == "valid", r.error
    assert r.rows["matches"][0]["end_reason"] == ("forfeit" if outcome == "round" else "abandoned")
    assert [d["foul"] for d in r.rows["deals"]] == {"round": [], "deal": [True], "nothing": [False]}[outcome]


def test_unknown_card_penalty_key_is_rejected() -> None:
    """rules.md §10: a typo in a ruleset file's ``[card_penalty]`` is an error, never ignored."""
    with pytest.raises(ValueError, match="card_penalty"):
        ruleset_from_mapping({"id": "x", "card_penalty": {"yellow_per_red": 2}})


@pytest.mark.parametrize(("rules", "round_lost"), [("huaian", True), ("national", False), ("bcta", False)])
def test_third_foul_of_a_side_loses_the_round(rules: str, round_lost: bool) -> None:
    """Huai'an Art. 15 三.4 (一局比賽判負), not in rules.md §8: a side with three fouls in a round loses
    it (a forfeit); the other rule books only forfeit each deal (rules.md §8: a double win for the other
    team, no tribute next deal)."""
    log = Log(rules)
    log.deal(leader="E", seed=1)
    log.ruling("foul", seat="N")
    log.end_deal(["E", "W"], levels={"EW": "5", "NS": "2"})
    log.deal("5", "EW", seed=2, leader="E")
    log.ruling("foul", seat="S")
    log.end_deal(["E", "W"], levels={"EW": "8", "NS": "2"})
    log.deal("8", "EW", seed=3, leader="E")
    log.ruling("foul", seat="N")
    if round_lost:
        log.end("forfeit", "EW")
    else:
        log.end_deal(["E", "W"], levels={"EW": "J", "NS": "2"})
        log.end("abandoned")
    r = _replay(log)
    assert r.status == "valid", r.error
    assert r.rows["matches"][0]["end_reason"] == ("forfeit" if round_lost else "abandoned")
    assert len(r.rows["deals"]) == (2 if round_lost else 3)


def test_fouls_per_round_loss_is_ruleset_data() -> None:
    """rules.md §10: a club ruleset can set the foul limit; Huai'an's is 3 (Art. 15 三.4 (一局比賽判負))."""
    assert get_ruleset("huaian").fouls_per_round_loss == 3
    assert all(get_ruleset(r).fouls_per_round_loss is None for r in ("national", "bcta", "jiangsu", "njupt"))
    club = ruleset_from_mapping({"id": "club", "base": "national", "fouls_per_round_loss": 2})
    assert club.fouls_per_round_loss == 2
