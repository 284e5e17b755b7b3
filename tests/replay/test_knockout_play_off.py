"""A knockout round that the format ends level is played on until it has a winner (rules.md §7).

`national` (seed 002) Art. 49 二 (淘汰賽): "兩隊之間在規定的時間或副數打平時，加賽一副，至決出勝負"
(``ART_49``); `huaian` (seed 000) Art. 14 五 "若采用淘汰賽賽制時，…每輪比賽的雙方都必須分出勝負" and
Art. 29 三.2 "繼續在原有牌局基礎上加打一副牌決出勝負" (``ART_29``): a deal like the others, its
declarers and tribute following the last deal. Only a knockout stage's rounds
(``match_start.event.stage``, :func:`schemas.vocabulary.is_knockout`); a Swiss round may end
level. Each log is hand-written: a two-deal round that ends 3:3, then what the test varies.
"""

from __future__ import annotations

import pytest

from replay.errors import ErrorCode
from replay.replayer import replay_match
from replay.rulesets import get_ruleset, parse_ruleset
from tests.replay.replay_builder import Log
from tests.replay.replay_builder import level_round as played_level_round

ART_49 = "兩隊之間在規定的時間或副數打平時，加賽一副，至決出勝負"
ART_29 = "繼續在原有牌局基礎上加打一副牌決出勝負"
TWO_DEALS = {"kind": "deals", "deals": 2}
KNOCKOUT = {"id": "cup", "round": 1, "stage": "knockout"}
BOOKS = ("national", "huaian")


def level_round(rules: str, stage: str = "knockout") -> Log:
    """Two deals ending 3:3: EW win deal 1 (1st+4th, +1), NS deal 2 (1st+4th, +1)."""
    return played_level_round(Log(rules, format=TWO_DEALS, event={**KNOCKOUT, "stage": stage}))


def play_off(log: Log) -> None:
    """The extra deal as the next deal of the round: NS declare at 3, S pays N, EW win 1st+2nd."""
    log.deal("3", "NS", seed=3)
    log.tribute("S", "N")
    log.give_back("N", "S")
    log.play_out(["E", "W"], "S")
    log.end_deal(levels={"EW": "6", "NS": "3"})


@pytest.mark.parametrize("rules", BOOKS)
def test_a_level_knockout_round_is_decided_by_the_next_deal(rules: str) -> None:
    """ART_49 / ART_29: the play-off deal follows the last deal (declarers NS, S's tribute) and its
    winners win the round."""
    log = level_round(rules)
    play_off(log)
    log.end("deals", "EW", levels={"EW": "6", "NS": "3"})
    r = log.replay()
    assert r.status == "valid", r.error
    match = r.rows["matches"][0]
    assert (match["winner"], match["end_reason"], match["deals_played"]) == ("EW", "deals", 3)
    deals = r.rows["deals"]
    assert [d["extra_deal"] for d in deals] == [False, False, True]
    assert (deals[2]["declarers"], deals[2]["tribute_kind"], deals[2]["level_gain"]) == ("NS", "single", 3)


@pytest.mark.parametrize("rules", BOOKS)
def test_a_level_knockout_round_cannot_end_without_it(rules: str) -> None:
    """ART_49 "至決出勝負": a knockout round may not end as a draw."""
    log = level_round(rules)
    log.end("deals", None)
    r = log.replay()
    assert r.error is not None and r.error.code == ErrorCode.MATCH_NOT_OVER, r.error
    assert r.error.seq == len(log.events) - 1


@pytest.mark.parametrize("rules", BOOKS)
@pytest.mark.parametrize("stage", ["swiss", "round robin"])
def test_a_level_round_of_another_stage_is_a_draw(rules: str, stage: str) -> None:
    """Art. 49 二 is the knockout's rule: a Swiss or round-robin round ends level as a draw, and a
    deal after it is refused with the reason."""
    log = level_round(rules, stage)
    log.end("deals", None)
    r = log.replay()
    assert r.status == "valid", r.error
    assert r.rows["matches"][0]["winner"] is None
    log = level_round(rules, stage)
    play_off(log)
    r = log.replay()
    assert r.error is not None and r.error.code == ErrorCode.MATCH_ALREADY_OVER, r.error
    assert "knockout stage's rounds (`event.stage`" in r.error.message


def test_the_play_off_goes_on_while_the_levels_stay_equal() -> None:
    """ART_49 "至決出勝負": a deal at the top level that nobody passes leaves the round level, so
    another follows (a club ruleset capped at 3, so that the 3:3 round is at its "A")."""
    capped = parse_ruleset('id = "ko3"\nbase = "national"\nmax_level = "3"\n', ".toml")
    log = level_round("ko3")
    log.deal("3", "NS", seed=3)
    log.tribute("S", "N")
    log.give_back("N", "S")
    log.play_out(["E", "N", "S"], "S")
    log.end_deal(levels={"EW": "3", "NS": "3"})
    still_level = replay_match([*log.events, _end(log, "deals", None)], {"ko3": capped})
    assert still_level.error is not None and still_level.error.code == ErrorCode.MATCH_NOT_OVER
    log.deal("3", "EW", seed=4)
    log.tribute("W", "E")
    log.give_back("E", "W")
    log.play_out(["E", "W"], "W")
    log.end_deal(levels={"EW": "3", "NS": "3"})
    log.end("passed_a", "EW")
    r = replay_match(log.events, {"ko3": capped})
    assert r.status == "valid", r.error
    assert [d["extra_deal"] for d in r.rows["deals"]] == [False, False, True, True]
    assert (r.rows["matches"][0]["winner"], r.rows["matches"][0]["passed_a"]) == ("EW", "EW")


def test_the_books_rulesets_say_so() -> None:
    """The rule is ruleset data: `national` and `huaian` break knockout rounds until decided;
    `jiangsu` keeps its last-round deal and `bcta` its declarers."""
    for rules in BOOKS:
        ruleset = get_ruleset(rules)
        assert ruleset.draw_breaker == "extra_deal"
        assert (ruleset.extra_deal.rounds, ruleset.extra_deal.until_decided) == ("knockout", True)
        assert ruleset.extra_deal_breaks(KNOCKOUT)
        assert not ruleset.extra_deal_breaks({"stage": "swiss"})
        assert not ruleset.extra_deal_breaks(None)
    assert get_ruleset("jiangsu").extra_deal.rounds == "last"
    assert not get_ruleset("jiangsu").extra_deal_breaks(KNOCKOUT)
    assert not get_ruleset("bcta").extra_deal_breaks(KNOCKOUT)


def _end(log: Log, reason: str, winner: str | None) -> dict[str, object]:
    """A ``match_end`` after the log's last event, without adding it to the log."""
    return {"v": 1, "match": log.match, "seq": len(log.events), "type": "match_end", "reason": reason,
            "winner": winner}
