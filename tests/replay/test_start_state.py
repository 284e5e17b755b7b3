"""A match that starts mid-match: ``match_start.start_state`` (docs/event-extensions.md).

The extension to events.md v1 states the levels, declarers and previous finishing order before
deal 1; deal 1 is then checked exactly like a later deal: declarers and level (rules.md §2) and
the tribute, anti-tribute and return the previous order implies (rules.md §6).
"""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st
from replay_builder import NEXT, PARTNER, SEATS, TEAM, Log

from replay import replay_match, single_order
from replay.errors import ErrorCode
from replay.replayer import MatchReplay

PREV = {b: a for a, b in NEXT.items()}
STATE = {"levels": {"EW": "7", "NS": "4"}, "declarers": "EW", "previous_order": ["E", "S", "N", "W"]}
"""The example of the issue: E 1st, W 4th (a 1-4 finish), so W pays E a single tribute (§6)."""


def _resumed(state: dict[str, Any] | None = STATE, **start: Any) -> Log:
    extra = {"start_state": state} if state is not None else {}
    return Log(format={"kind": "deals", "deals": 1}, **extra, **start)


def _error(r: MatchReplay) -> tuple[str, int | None]:
    assert r.error is not None, r.status
    return r.error.code, r.error.seq


MALFORMED = [
    pytest.param(*case, id=case[2])
    for case in [
        ({"levels": {"EW": "1", "NS": "4"}}, {}, "start_state.levels"),  # no level 1 (§2)
        ({"levels": {"EW": "7"}}, {}, "both teams"),
        ({"levels": {"EW": "7", "NS": "4", "WE": "2"}}, {}, "start_state.levels"),
        ({"declarers": "EW"}, {}, "start_state.levels"),
        ({**STATE, "declarers": "WE"}, {}, "start_state.declarers"),
        ({**STATE, "previous_order": ["E", "S", "N", "X"]}, {}, "previous_order"),  # no seat X (§1)
        ({**STATE, "previous_order": ["E", "S", "S", "W"]}, {}, "distinct"),
        ({**STATE, "previous_order": ["E"]}, {}, "2 to 4"),
        ({**STATE, "previous_order": "ESNW"}, {}, "list"),
        ({**STATE, "previous_order": ["E", "S"]}, {}, "double win"),  # §5.7: two seats are partners
        ({**STATE, "previous_order": ["S", "E", "N", "W"]}, {}, "previous 1st"),  # §2: 1st's team declares
        ({**STATE, "order": ["E", "S", "N", "W"]}, {}, "unknown field"),
        (["E", "S", "N", "W"], {}, "an object"),
        (STATE, {"start_levels": {"EW": "3"}}, "only"),
    ]
]


@pytest.mark.parametrize(("state", "start", "fragment"), MALFORMED)
def test_malformed_start_state_is_reported_at_match_start(
    state: Any, start: dict[str, Any], fragment: str
) -> None:
    log = _resumed(state, **start)
    log.deal("7", "EW", seed=1)
    r = log.replay()
    assert _error(r) == (ErrorCode.MALFORMED_FIELD, 0)
    assert r.error is not None and fragment in r.error.message


SCHEMA = jsonschema.Draft202012Validator(
    json.loads((Path(__file__).parents[2] / "schemas" / "events.schema.json").read_text())
)
CROSS_FIELD = ("double win", "previous 1st")
"""Faults the JSON Schema cannot state (they relate two fields); only the replay reports them."""


@pytest.mark.parametrize(
    ("state", "start", "fragment"),
    [p.values for p in MALFORMED if p.values[2] not in CROSS_FIELD],
)
def test_json_schema_rejects_malformed_start_state_too(
    state: Any, start: dict[str, Any], fragment: str
) -> None:
    event = _resumed(state, **start).events[0]
    assert not SCHEMA.is_valid(event), fragment
    assert SCHEMA.is_valid(_resumed().events[0])


def _tribute_deal(log: Log) -> None:
    """Deal 1 after ``STATE``: W pays E, E returns, W leads and goes out first."""
    log.deal("7", "EW", seed=4, give={"W": ["SB"]})
    log.tribute("W", "E")
    log.give_back("E", "W")
    log.play_out(["W", "E", "N"], leader="W")
    log.end_deal()


def test_start_state_match_replays_valid_with_its_rows() -> None:
    """Deal 1 at EW's level 7 with the single tribute of a 1-4 finish (rules.md §2, §6)."""
    log = _resumed()
    _tribute_deal(log)
    log.add("match_end", reason="deals")
    r = log.replay()
    assert (r.status, r.error) == ("valid", None)
    (deal,) = r.rows["deals"]
    assert {k: deal[k] for k in ("deal_no", "level", "declarers", "tribute_kind", "leader")} == {
        "deal_no": 1,
        "level": "7",
        "declarers": "EW",
        "tribute_kind": "single",
        "leader": "W",
    }
    assert (deal["level_EW_before"], deal["level_NS_before"]) == ("7", "4")
    assert (deal["level_EW_after"], deal["level_NS_after"]) == ("T", "4")  # W 1st, E 2nd: +3 (§5.8)
    (tribute,) = r.rows["tributes"]
    assert (tribute["kind"], tribute["giver"], tribute["receiver"], tribute["deal_no"]) == (
        "single",
        "W",
        "E",
        1,
    )
    (match,) = r.rows["matches"]
    assert (match["start_level_EW"], match["start_level_NS"], match["winner"]) == ("7", "4", "EW")


@pytest.mark.parametrize(
    ("level", "declarers", "code"),
    [
        ("4", "EW", ErrorCode.WRONG_LEVEL),  # the declarers' level is 7 (§2)
        ("4", "NS", ErrorCode.WRONG_DECLARERS),  # the previous 1st (E) is of EW (§2)
        ("7", None, ErrorCode.WRONG_DECLARERS),
    ],
)
def test_deal_1_must_follow_the_start_state(level: str, declarers: str | None, code: ErrorCode) -> None:
    log = _resumed()
    log.deal(level, declarers, seed=4)
    assert _error(log.replay()) == (code, 1)


@pytest.mark.parametrize(
    ("write", "code"),
    [
        (lambda log: log.tribute("W", "E", log.lowest("W")), ErrorCode.WRONG_TRIBUTE_CARD),
        (lambda log: log.tribute("S", "E"), ErrorCode.WRONG_TRIBUTE_ROUTE),  # the 4th (W) pays (§6)
        (lambda log: log.tribute("W", "N"), ErrorCode.WRONG_TRIBUTE_ROUTE),  # … to the 1st (E)
        (lambda log: log.play("W", [log.lowest("W")]), ErrorCode.TRIBUTE_MISSING),
    ],
)
def test_the_tribute_the_previous_order_implies_is_checked(write: Any, code: ErrorCode) -> None:
    log = _resumed()
    log.deal("7", "EW", seed=4, give={"W": ["SB"]})
    write(log)
    assert _error(log.replay()) == (code, len(log.events) - 1)


def test_double_win_previous_order_means_a_double_tribute() -> None:
    """``previous_order`` of two partners: both losers pay (rules.md §6); one tribute is not enough."""
    log = _resumed({"levels": {"EW": "2", "NS": "9"}, "previous_order": ["N", "S"]})
    log.deal("9", "NS", seed=2, give={"E": ["SB"], "W": ["SB"]})
    log.tribute("E", "N")
    log.give_back("N", "E")
    log.play("E", [log.lowest("E")])
    assert _error(log.replay()) == (ErrorCode.TRIBUTE_MISSING, len(log.events) - 1)


def test_declarers_without_previous_order_mean_no_tribute_and_a_stated_leader() -> None:
    """Without ``previous_order`` no tribute is due; deal 1 then needs its ``leader`` (events.md)."""
    state = {"levels": {"EW": "5", "NS": "5"}, "declarers": "NS"}
    log = _resumed(state)
    log.deal("5", "NS", leader="N", seed=3)
    log.tribute("E", "N")
    assert _error(log.replay()) == (ErrorCode.UNEXPECTED_TRIBUTE, 2)
    log = _resumed(state)
    log.deal("5", "NS", seed=3)
    assert _error(log.replay()) == (ErrorCode.MALFORMED_FIELD, 1)


def test_without_start_state_deal_1_is_as_before() -> None:
    """Backward compatible: a plain v1 match still opens at 2 with no tribute (rules.md §2, §6)."""
    log = _resumed(None)
    log.deal("7", "EW", seed=4)
    assert _error(log.replay()) == (ErrorCode.WRONG_DECLARERS, 1)
    log = _resumed(None)
    log.deal(leader="E", seed=4)
    log.tribute("W", "E")
    assert _error(log.replay()) == (ErrorCode.UNEXPECTED_TRIBUTE, 2)


# ---- property: start_state is the same as having played the previous deal --------------------------


def _pay_tribute(log: Log, order: list[str]) -> str:
    """The tribute phase rules.md §6 (national) implies after ``order``; returns the leader."""
    first = order[0]
    double = TEAM[order[1]] == TEAM[first]
    fourth = next(s for s in SEATS if s not in order) if len(order) == 3 else None
    givers = [s for s in SEATS if TEAM[s] != TEAM[first]] if double else [fourth]
    if sum(log.hands[g]["HR"] for g in givers if g) >= 2:
        log.anti(*(g for g in givers if g and log.hands[g]["HR"]))
        return first
    if not double:
        assert fourth is not None
        log.tribute(fourth, first)
        log.give_back(first, fourth)
        return fourth
    cards = {g: log.highest(g) for g in givers}
    a, b = givers
    if single_order(cards[a], log.level) == single_order(cards[b], log.level):
        routes = {a: PREV[a], b: PREV[b]}
        leader = NEXT[first]
    else:
        hi, lo = (a, b) if single_order(cards[a], log.level) > single_order(cards[b], log.level) else (b, a)
        routes = {hi: first, lo: PARTNER[first]}
        leader = hi
    for giver, receiver in routes.items():
        log.tribute(giver, receiver, cards[giver])
    for giver, receiver in routes.items():
        log.give_back(receiver, giver)
    return leader


def _comparable(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [{k: v for k, v in r.items() if k not in ("deal_no", "seq")} for r in rows]


@given(
    order=st.permutations(SEATS),
    double=st.booleans(),
    seeds=st.tuples(st.integers(0, 10_000), st.integers(0, 10_000)),
)
@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.filter_too_much])
def test_start_state_replays_like_the_played_previous_deal(
    order: list[str], double: bool, seeds: tuple[int, int]
) -> None:
    """Deal 2 of a played match and the same deal as deal 1 of a match resumed from deal 1's end
    state give the same rows (tribute, leader, levels), for any previous finishing order (§2, §6)."""
    order = list(order)
    if double:
        order = [order[0], PARTNER[order[0]]]
    else:
        if order[1] == PARTNER[order[0]]:
            order[1], order[2] = order[2], order[1]
        order = order[:3]
    full = Log(format={"kind": "deals", "deals": 2})
    try:
        full.deal(leader=order[0], seed=seeds[0])
        full.play_out(order, leader=order[0])
        full.end_deal()
        cut = len(full.events)
        declarers = TEAM[order[0]]
        gain = {2: 3, 3: 2, 4: 1}[order.index(PARTNER[order[0]]) + 1 if PARTNER[order[0]] in order else 4]
        level = "2345"[gain]
        full.deal(level, declarers, seed=seeds[1])
        leader = _pay_tribute(full, order)
        full.play_out([leader, NEXT[leader], NEXT[NEXT[leader]]], leader=leader)
    except AssertionError:
        assume(False)
    full.end_deal()
    full.add("match_end", reason="deals")
    played = replay_match(full.events)
    assert (played.status, played.error) == ("valid", None)
    before = played.rows["deals"][0]
    state = {
        "levels": {"EW": before["level_EW_after"], "NS": before["level_NS_after"]},
        "declarers": declarers,
        "previous_order": before["finish_order"],
    }
    resumed = [{**full.events[0], "format": {"kind": "deals", "deals": 1}, "start_state": state}]
    for ev in copy.deepcopy(full.events[cut:]):
        ev["seq"] = len(resumed)
        if ev["type"] == "deal_start":
            ev["deal"] = 1
        resumed.append(ev)
    again = replay_match(resumed)
    assert (again.status, again.error) == ("valid", None)
    for table in ("deals", "tributes", "plays"):
        deal_2 = [r for r in played.rows[table] if r["deal_no"] == 2]
        assert _comparable(again.rows[table]) == _comparable(deal_2)
