"""One negative case per error code of ``replay/errors.py``: the replay reports that code at the first
offending event's seq (events.md "Validation"). Table-driven: each case writes a valid log and breaks
one thing."""

from __future__ import annotations

import copy
from collections.abc import Callable
from typing import Any

import pytest
from replay_builder import Log

from replay.errors import ERROR_DOCS, ErrorCode

Events = list[dict[str, Any]]


def _two_deals(rules: str = "national", **start: Any) -> Log:
    """Deal 1 (E, N, W out) and deal 2 up to its tribute phase (S owes E a tribute)."""
    log = Log(rules, **start)
    log.deal(leader="E", seed=1)
    log.play_out(["E", "N", "W"], leader="E")
    log.end_deal(levels={"EW": "4", "NS": "2"})
    log.deal("4", "EW", seed=5)
    return log


def _finish(log: Log, leader: str = "S") -> Log:
    log.play_out(["S", "N"], leader=leader)
    log.end_deal()
    log.end("abandoned")
    return log


def _at(log: Log, type_: str, n: int = 0, **match: Any) -> dict[str, Any]:
    """The ``n``-th event of a type (matching the given fields)."""
    found = [e for e in log.events if e["type"] == type_ and all(e.get(k) == v for k, v in match.items())]
    return found[n]


def _renumber(events: Events) -> Events:
    for i, e in enumerate(events):
        e["seq"] = i
    return events


def case_malformed_field() -> tuple[Events, int]:
    log = _one_deal()
    ev = _at(log, "play")
    ev["cards"] = "S3"
    return log.events, ev["seq"]


def _one_deal(**start: Any) -> Log:
    log = Log(**start)
    log.deal(leader="E", seed=1)
    log.play_out(["E", "N", "W"], leader="E")
    log.end_deal(levels={"EW": "4", "NS": "2"})
    log.end("abandoned")
    return log


def case_unsupported_version() -> tuple[Events, int]:
    log = _one_deal()
    log.events[3]["v"] = 2
    return log.events, 3


def case_unknown_type() -> tuple[Events, int]:
    log = _one_deal()
    log.events[4]["type"] = "bid"
    return log.events, 4


def case_duplicate_seq() -> tuple[Events, int]:
    log = _one_deal()
    events = [*log.events[:6], copy.deepcopy(log.events[5]), *log.events[6:]]
    return events, 5


def case_missing_seq() -> tuple[Events, int]:
    log = _one_deal()
    del log.events[7]
    return log.events, 7


def case_event_out_of_place() -> tuple[Events, int]:
    log = _one_deal()
    events = [log.events[0], {**log.events[2], "seq": 1}]
    events += [{**e, "seq": i + 2} for i, e in enumerate(log.events[1:])]
    return events, 1


def case_incomplete_match() -> tuple[Events, int]:
    log = _one_deal()
    log.events.pop()
    return log.events, len(log.events)


def case_unknown_ruleset() -> tuple[Events, int]:
    log = _one_deal()
    log.events[0]["rules"] = "mahjong"
    return log.events, 0


def case_wrong_hand_size() -> tuple[Events, int]:
    log = _one_deal()
    hands = log.events[1]["hands"]
    hands["N"].append(hands["E"].pop())
    return log.events, 1


def case_bad_deck() -> tuple[Events, int]:
    log = _one_deal()
    hands = log.events[1]["hands"]
    hands["E"][0] = hands["N"][0] = hands["W"][0] = "HR"
    return log.events, 1


def case_wrong_level() -> tuple[Events, int]:
    log = _finish(_tribute(_two_deals()))
    ev = _at(log, "deal_start", 1)
    ev["level"] = "3"
    return log.events, ev["seq"]


def case_wrong_declarers() -> tuple[Events, int]:
    log = _finish(_tribute(_two_deals()))
    ev = _at(log, "deal_start", 1)
    ev["declarers"] = "NS"
    return log.events, ev["seq"]


def case_wrong_leader() -> tuple[Events, int]:
    log = _one_deal()
    log.events[1]["leader"] = "N"
    return log.events, 2


def _tribute(log: Log) -> Log:
    log.tribute("S", "E")
    log.give_back("E", "S")
    return log


def case_tribute_missing() -> tuple[Events, int]:
    log = _finish(_two_deals())
    return log.events, _at(log, "play", 0, seat="S")["seq"]


def case_unexpected_tribute() -> tuple[Events, int]:
    log = _one_deal()
    events = [
        *log.events[:2],
        {
            "v": 1,
            "match": "m1",
            "seq": 2,
            "type": "tribute",
            "from": "S",
            "to": "E",
            "card": log.events[1]["hands"]["S"][0],
        },
        *log.events[2:],
    ]
    return _renumber(events), 2


def case_wrong_tribute_route() -> tuple[Events, int]:
    log = _two_deals()
    log.tribute("S", "W")
    return log.events, len(log.events) - 1


def case_wrong_tribute_card() -> tuple[Events, int]:
    log = _two_deals()
    log.tribute("S", "E", card=log.lowest("S"))
    return log.events, len(log.events) - 1


def case_bad_anti_tribute() -> tuple[Events, int]:
    log = _two_deals()
    log.anti("S")
    return log.events, len(log.events) - 1


def case_return_missing() -> tuple[Events, int]:
    log = _two_deals()
    log.tribute("S", "E")
    seq = len(log.events)
    _finish(log)
    return log.events, seq


def case_wrong_return_route() -> tuple[Events, int]:
    log = _two_deals()
    log.tribute("S", "E")
    log.give_back("E", "N")
    return log.events, len(log.events) - 1


def case_wrong_return_card() -> tuple[Events, int]:
    log = _two_deals()
    log.tribute("S", "E")
    big = next(c for c in log.hands["E"] if c[1] in "JQKA")
    log.give_back("E", "S", big)
    return log.events, len(log.events) - 1


def case_out_of_turn() -> tuple[Events, int]:
    log = _one_deal()
    ev = _at(log, "pass", 3)
    ev["seat"] = {"N": "W", "W": "S", "S": "N", "E": "N"}[ev["seat"]]
    return log.events, ev["seq"]


def case_card_not_in_hand() -> tuple[Events, int]:
    log = _one_deal()
    hands = log.events[1]["hands"]
    ev = _at(log, "play", 0)
    ev["cards"] = [next(c for c in hands["N"] if c not in hands["E"])]
    return log.events, ev["seq"]


def _hand_e() -> list[str]:
    return _one_deal().events[1]["hands"]["E"]


def _play_first(cards: list[str], combo: dict[str, str] | None = None) -> tuple[Events, int]:
    log = _one_deal()
    ev = _at(log, "play", 0)
    ev["cards"] = cards
    if combo:
        ev["combo"] = combo
    return log.events, ev["seq"]


def case_not_a_combination() -> tuple[Events, int]:
    hand = sorted(c for c in _hand_e() if c != "H2")
    pick = next(
        [a, b] for a in hand for b in hand if a[1] != b[1] and "SB" not in (a, b) and "HR" not in (a, b)
    )
    return _play_first(pick)


def case_bad_reading() -> tuple[Events, int]:
    hand = _hand_e()
    return _play_first([hand[0]], {"type": "pair", "rank": hand[0][1]})


def case_does_not_beat() -> tuple[Events, int]:
    log = Log()
    log.deal(leader="E", seed=1)
    hand_e, hand_n = log.events[1]["hands"]["E"], log.events[1]["hands"]["N"]
    from replay import single_order

    top = max(hand_e, key=lambda c: single_order(c, "2"))
    low = min(hand_n, key=lambda c: single_order(c, "2"))
    log.play("E", [top])
    log.play("N", [low])
    return log.events, 3


def case_pass_on_lead() -> tuple[Events, int]:
    log = Log()
    log.deal(leader="E", seed=1)
    log.pass_("E")
    return log.events, 2


def case_deal_not_over() -> tuple[Events, int]:
    log = Log()
    log.deal(leader="E", seed=1)
    log.play("E", [log.highest("E")])
    log.end_deal(["E", "N", "W"])
    return log.events, 3


def case_wrong_finish_order() -> tuple[Events, int]:
    log = _one_deal()
    ev = _at(log, "deal_end")
    ev["order"] = ["E", "W", "N"]
    return log.events, ev["seq"]


def case_wrong_levels() -> tuple[Events, int]:
    log = _one_deal()
    ev = _at(log, "deal_end")
    ev["levels"] = {"EW": "5", "NS": "2"}
    return log.events, ev["seq"]


def case_match_not_over() -> tuple[Events, int]:
    log = _one_deal()
    log.events[-1].update(reason="passed_a", winner="EW")
    return log.events, log.events[-1]["seq"]


def case_match_already_over() -> tuple[Events, int]:
    log = _one_deal(format={"kind": "deals", "deals": 1})
    log.events.pop()
    seq = len(log.events)
    log.deal("4", "EW", seed=2)
    return log.events, seq


def case_wrong_match_result() -> tuple[Events, int]:
    log = _one_deal(format={"kind": "deals", "deals": 1})
    log.events[-1].update(reason="deals", winner="NS")
    return log.events, log.events[-1]["seq"]


def case_bad_ruling() -> tuple[Events, int]:
    log = _one_deal()
    log.events.insert(1, {"v": 1, "match": "m1", "seq": 1, "type": "ruling", "kind": "scolding", "seat": "E"})
    return _renumber(log.events), 1


CASES: dict[ErrorCode, Callable[[], tuple[Events, int]]] = {
    code: globals()[f"case_{code.value}"] for code in ErrorCode if f"case_{code.value}" in globals()
}


def test_every_code_has_a_case() -> None:
    """Each error code (except the per-line ``malformed_line``, tested in test_batch) has a case here."""
    assert set(ErrorCode) - set(CASES) == {ErrorCode.MALFORMED_LINE}
    assert set(ERROR_DOCS) == set(ErrorCode)


@pytest.mark.parametrize("code", list(CASES), ids=[c.value for c in CASES])
def test_first_error(code: ErrorCode) -> None:
    from replay import replay_match

    events, seq = CASES[code]()
    result = replay_match(events)
    assert result.status == "invalid"
    assert result.error is not None
    assert (result.error.code, result.error.seq) == (code, seq), result.error.message
    assert result.rows.keys() == {"matches"}
    assert result.rows["matches"][0]["error_code"] == code.value


def test_the_valid_bases_are_valid() -> None:
    """The logs the cases break are themselves valid (so each case tests exactly one fault)."""
    from replay import replay_match

    assert replay_match(_one_deal().events).status == "valid"
    assert replay_match(_finish(_tribute(_two_deals())).events).status == "valid"


def test_three_copies_from_a_hidden_hand_are_no_combination() -> None:
    """rules.md §1: two decks hold every card twice, so three copies played from a hand the log
    does not show are ``not_a_combination`` at that play (not an exception of the replayer)."""
    from replay import replay_match

    log = Log()
    log.deal(leader="E", seed=1, hide=("E",))
    log.play("E", ["S3", "S3", "S3"])
    result = replay_match(log.events)
    assert result.error is not None
    assert (result.error.code, result.error.seq) == (ErrorCode.NOT_A_COMBINATION, 2)


@pytest.mark.parametrize("kind", [["play"], {"t": "play"}, 7, None])
def test_event_type_not_a_string_is_unknown_type(kind: object) -> None:
    """events.md "Envelope": a ``type`` that is no string (even an unhashable list or object) is
    ``unknown_type`` at that event, not an exception of the replayer."""
    from replay import replay_match

    log = Log()
    log.deal(leader="E", seed=1)
    log.play("E", ["S3"])
    log.events[-1]["type"] = kind
    result = replay_match(log.events)
    assert result.error is not None
    assert (result.error.code, result.error.seq) == (ErrorCode.UNKNOWN_TYPE, 2)
