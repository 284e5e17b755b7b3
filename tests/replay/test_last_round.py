"""Jiangsu's last round (seed 003, rules.md §7, docs/event-extensions.md "Last round").

Seed 003's supplement (``SEED_003``): "最后一轮不能平局,需加赛一把决定胜负,按比赛首副牌规则加赛,
打出头游比赛即结束,获胜方升一级" — the event's last round may not end level; one extra deal
decides it, played by the first-deal rules (no tribute, no declarers, the leader drawn as for
deal 1), over as soon as the first player goes out (头游), whose team goes up one level and
wins. ``match_start.event.last_round`` marks the round. Each log here is hand-written: a
two-deal round that ends 3:3, then what the test varies.
"""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from replay.errors import ErrorCode
from replay.events import LEVELS
from replay.replayer import MatchReplay, replay_match
from replay.rulesets import get_ruleset, parse_ruleset
from tests.replay.replay_builder import TEAM, Log
from tests.replay.replay_builder import level_round as played_level_round

SEED_003 = "最后一轮不能平局,需加赛一把决定胜负,按比赛首副牌规则加赛,打出头游比赛即结束,获胜方升一级"
TWO_DEALS = {"kind": "deals", "deals": 2}
LAST = {"id": "js", "round": 7, "last_round": True}


def level_round(last: bool = True, **start: Any) -> Log:
    """A played jiangsu round of two deals that ends level at 3:3: EW win deal 1 (+1), NS deal 2 (+1)."""
    event = LAST if last else {"id": "js", "round": 3}
    return played_level_round(Log("jiangsu", format=TWO_DEALS, event=event, **start))


def extra_deal(log: Log, first: str = "S", leader: str = "N", **deal: Any) -> None:
    """The extra deal at the common level 3: no declarers, no tribute, ``first`` goes out."""
    log.deal("3", deal.pop("declarers", None), leader=leader, seed=3, **deal)
    log.play_out([first], leader)


def test_a_level_last_round_is_decided_by_the_extra_deal() -> None:
    """Seed 003 (SEED_003): the extra deal ends at the first out, that team goes up one level and wins."""
    log = level_round()
    extra_deal(log, first="S", leader="N")
    log.end_deal(levels={"EW": "3", "NS": "4"})
    log.end("deals", "NS", levels={"EW": "3", "NS": "4"})
    r = log.replay()
    assert r.status == "valid", r.error
    match = r.rows["matches"][0]
    assert (match["winner"], match["final_level_EW"], match["final_level_NS"]) == ("NS", "3", "4")
    assert match["deals_played"] == 3
    deals = r.rows["deals"]
    assert [d["extra_deal"] for d in deals] == [False, False, True]
    last = deals[2]
    assert (last["declarers"], last["level"], last["tribute_kind"], last["leader"]) == (
        None,
        "3",
        "none",
        "N",
    )
    assert (last["finish_order"], last["winning_team"], last["level_gain"]) == (["S"], "NS", 1)
    results = {p["seat"]: p["result"] for p in r.rows["player_matches"]}
    assert results == {"N": "win", "S": "win", "E": "loss", "W": "loss"}


def test_match_end_without_the_extra_deal_is_not_over() -> None:
    """Seed 003 "最后一轮不能平局": a level last round may not end as a draw."""
    log = level_round()
    log.end("deals", None)
    r = log.replay()
    assert r.error is not None and r.error.code == ErrorCode.MATCH_NOT_OVER, r.error
    assert r.error.seq == len(log.events) - 1


def test_a_level_round_that_is_not_the_last_is_a_draw() -> None:
    """Seed 003 breaks only the last round (最后一轮): an earlier round ends level as a draw."""
    log = level_round(last=False)
    log.end("deals", None)
    r = log.replay()
    assert r.status == "valid", r.error
    assert r.rows["matches"][0]["winner"] is None
    assert [d["extra_deal"] for d in r.rows["deals"]] == [False, False]


def _start_seq(log: Log) -> int:
    """The seq of the log's last ``deal_start``."""
    return max(e["seq"] for e in log.events if e["type"] == "deal_start")


def _not_the_last_round(log: Log) -> int:
    log.events[0]["event"] = {"id": "js", "round": 3}
    extra_deal(log)
    return _start_seq(log)


def _tribute(log: Log) -> int:
    log.deal("3", None, leader="N", seed=3)
    log.tribute("W", "N")
    return len(log.events) - 1


def _declarers_of_the_last_deal(log: Log) -> int:
    extra_deal(log, declarers="NS")
    return _start_seq(log)


def _no_leader(log: Log) -> int:
    log.deal("3", None, seed=3)
    return len(log.events) - 1


def _play_after_the_first_out(log: Log) -> int:
    extra_deal(log, first="S", leader="N")
    log.pass_("W")
    return len(log.events) - 1


def _order_beyond_the_first_out(log: Log) -> int:
    extra_deal(log, first="S", leader="N")
    log.end_deal(order=["S", "E", "N", "W"])
    return len(log.events) - 1


def _up_two_levels(log: Log) -> int:
    extra_deal(log, first="S", leader="N")
    log.end_deal(levels={"EW": "3", "NS": "5"})
    return len(log.events) - 1


def _a_draw(log: Log) -> int:
    extra_deal(log, first="S", leader="N")
    log.end_deal()
    log.end("deals", None)
    return len(log.events) - 1


def _a_second_extra_deal(log: Log) -> int:
    extra_deal(log, first="S", leader="N")
    log.end_deal()
    log.deal("4", None, leader="E", seed=4)
    return len(log.events) - 1


def _last_round_not_a_boolean(log: Log) -> int:
    log.events[0]["event"] = {"id": "js", "last_round": "yes"}
    return 0


# (what the log does after the level last round, error code, words of the message)
FAULTS = [
    (_not_the_last_round, ErrorCode.MATCH_ALREADY_OVER, "only in the event's last round"),
    (_tribute, ErrorCode.UNEXPECTED_TRIBUTE, "no tribute is due"),
    (_declarers_of_the_last_deal, ErrorCode.WRONG_DECLARERS, "first-deal rules"),
    (_no_leader, ErrorCode.MALFORMED_FIELD, "extra deal needs `leader`"),
    (_play_after_the_first_out, ErrorCode.EVENT_OUT_OF_PLACE, "after the deal ended"),
    (_order_beyond_the_first_out, ErrorCode.WRONG_FINISH_ORDER, "first player goes out"),
    (_up_two_levels, ErrorCode.WRONG_LEVELS, "'NS': '4'"),
    (_a_draw, ErrorCode.WRONG_MATCH_RESULT, "derived NS"),
    (_a_second_extra_deal, ErrorCode.MATCH_ALREADY_OVER, "ended the match"),
    (_last_round_not_a_boolean, ErrorCode.MALFORMED_FIELD, "`event.last_round` must be true or false"),
]


@pytest.mark.parametrize(("build", "code", "words"), FAULTS, ids=[f[0].__name__.strip("_") for f in FAULTS])
def test_extra_deal_faults(build: Any, code: ErrorCode, words: str) -> None:
    """Seed 003 (SEED_003), docs/event-extensions.md "Last round": each departure from the extra
    deal's rules is the log's first fault, at the event that departs."""
    log = level_round()
    at = build(log)
    if log.events[-1]["type"] != "match_end":
        log.end("deals", "NS")
    r = log.replay()
    assert r.error is not None
    assert (r.error.code, r.error.seq) == (code, at), r.error
    assert words in r.error.message, r.error.message


# ---- results-only extra deals (a score sheet: docs/event-extensions.md "Results-only deals") ------


def sheet(*deals: tuple[str, str | None, list[str]], last: bool = True, **start: Any) -> list[dict[str, Any]]:
    """A jiangsu score sheet of results-only deals ``(level, declarers, order)``, then ``match_end``."""
    events: list[dict[str, Any]] = []

    def add(type_: str, **payload: Any) -> None:
        events.append({"v": 1, "match": "ro", "seq": len(events), "type": type_, **payload})

    event = LAST if last else {"id": "js", "round": 3}
    add("match_start", rules="jiangsu", seats={"E": "a", "N": "b", "W": "c", "S": "d"}, event=event, **start)
    for no, (level, declarers, order) in enumerate(deals, start=1):
        add("deal_start", deal=no, level=level, declarers=declarers)
        add("deal_end", order=order)
    return events


def end(events: list[dict[str, Any]], winner: str | None) -> MatchReplay:
    events.append(
        {"v": 1, "match": "ro", "seq": len(events), "type": "match_end", "reason": "deals", "winner": winner}
    )
    return replay_match(events)


LEVEL_2_2 = [("2", None, ["E", "N", "S"]), ("3", "EW", ["N", "E", "W"])]


def test_results_only_extra_deal_is_one_seat() -> None:
    """Seed 003 打出头游比赛即结束: a score sheet's extra deal is the 头游 alone; 获胜方升一级."""
    r = end(sheet(*LEVEL_2_2, ("3", None, ["W"]), format=TWO_DEALS), "EW")
    assert r.status == "results_only", r.error
    deal = r.rows["deals"][2]
    assert (deal["extra_deal"], deal["finish_order"], deal["level_gain"], deal["tribute_kind"]) == (
        True,
        ["W"],
        1,
        "none",
    )
    match = r.rows["matches"][0]
    assert (match["winner"], match["final_level_EW"], match["final_level_NS"]) == ("EW", "4", "3")


@pytest.mark.parametrize("order", [["W", "N", "E"], ["W", "E"], []])
def test_results_only_extra_deal_order_is_exactly_one_seat(order: list[str]) -> None:
    """Seed 003 打出头游比赛即结束: nothing is played after the first out, so the order is one seat."""
    r = end(sheet(*LEVEL_2_2, ("3", None, order), format=TWO_DEALS), "EW")
    assert r.error is not None
    assert (r.error.code, r.error.seq) == (ErrorCode.WRONG_FINISH_ORDER, 6)


def test_results_only_extra_deal_outside_the_last_round_is_refused() -> None:
    """Seed 003 最后一轮: the extra deal belongs to the last round only."""
    r = end(sheet(*LEVEL_2_2, ("3", None, ["W"]), last=False, format=TWO_DEALS), "EW")
    assert r.error is not None
    assert (r.error.code, r.error.seq) == (ErrorCode.MATCH_ALREADY_OVER, 5)


def test_extra_deal_at_a_wins_though_the_cap_keeps_the_levels_equal() -> None:
    """Seed 003 "最后一轮不能平局": at A:A the +1 cannot lift the winners past A (rules.md §7), yet
    the extra deal's first-out team wins the round."""
    r = end(
        sheet(
            ("A", None, ["E", "N", "S"]),
            ("A", None, ["N"]),
            start_state={"levels": {"EW": "A", "NS": "A"}},
            format={"kind": "deals", "deals": 1},
        ),
        "NS",
    )
    assert r.status == "results_only", r.error
    match = r.rows["matches"][0]
    assert (match["winner"], match["final_level_EW"], match["final_level_NS"]) == ("NS", "A", "A")
    assert r.rows["deals"][1]["extra_deal"] is True and r.rows["deals"][1]["level_gain"] == 0


@given(level=st.sampled_from(LEVELS[1:-1]), first=st.sampled_from(["E", "N", "W", "S"]))
def test_the_extra_deal_first_out_team_goes_up_one_and_wins(level: str, first: str) -> None:
    """Seed 003 获胜方升一级, for any common level 3…K and any 头游: exactly +1 and the win."""
    below = LEVELS[LEVELS.index(level) - 1]
    start = {"start_state": {"levels": {"EW": below, "NS": level}}, "format": {"kind": "deals", "deals": 1}}
    r = end(sheet((below, None, ["E", "N", "S"]), (level, None, [first]), **start), TEAM[first])
    assert r.status == "results_only", r.error
    match = r.rows["matches"][0]
    winners, losers = TEAM[first], "NS" if TEAM[first] == "EW" else "EW"
    assert match[f"final_level_{winners}"] == LEVELS[LEVELS.index(level) + 1]
    assert match[f"final_level_{losers}"] == level
    assert match["winner"] == winners


def test_jiangsu_ruleset_states_the_seed_003_sentence_as_data() -> None:
    """The rule is data (``Ruleset.extra_deal``), not a branch on the ruleset id."""
    js = get_ruleset("jiangsu")
    assert js.draw_breaker == "extra_deal"
    rule = js.extra_deal
    assert (rule.rounds, rule.first_deal_rules, rule.first_out_ends, rule.gain) == ("last", True, True, 1)


def test_a_ruleset_file_sets_the_extra_deal_under_its_own_table() -> None:
    """rules.md §10: a club file states the extra deal as data (docs/event-extensions.md "Last round")."""
    text = 'id = "club"\ndraw_breaker = "extra_deal"\n[extra_deal]\nrounds = "last"\ngain = 1\n'
    rule = parse_ruleset(text, ".toml").extra_deal
    assert (rule.rounds, rule.first_deal_rules, rule.first_out_ends, rule.gain) == ("last", False, False, 1)
    with pytest.raises(ValueError, match="unknown keys in extra_deal"):
        parse_ruleset('id = "club"\n[extra_deal]\nround = "last"\n', ".toml")
