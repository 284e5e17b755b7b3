"""Properties: simulated matches replay ``valid``; cards are conserved at every step (rules.md §1);
the simulator's corruption manifest names the first error the replay reports."""

from __future__ import annotations

import itertools
import random
from collections import Counter
from typing import Any

import orjson
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from replay_builder import PARTNER, SEATS, TEAM, Log

from replay import DECK, MatchReplay, replay_match
from simulator import api as simulator_api


def assert_conserved(events: list[dict[str, Any]], result: MatchReplay) -> None:
    """Follow the hands through the events independently and compare with every ``plays`` row:
    the cards left per seat before each action, cards played from the hand, and at each deal end
    the remaining hands plus the played cards are exactly two decks."""
    plays = iter(result.rows["plays"])
    hands: dict[str, Counter[str]] = {}
    played: Counter[str] = Counter()
    for ev in sorted(events, key=lambda e: e["seq"]):
        kind = ev["type"]
        if kind == "deal_start":
            hands = {s: Counter(c) for s, c in ev["hands"].items()}
            played = Counter()
            assert sum(hands.values(), Counter()) == Counter(DECK)
        elif kind in ("tribute", "return"):
            hands[ev["from"]][ev["card"]] -= 1
            hands[ev["to"]][ev["card"]] += 1
            assert hands[ev["from"]][ev["card"]] >= 0
        elif kind in ("play", "pass"):
            row = next(plays)
            assert row["seq"] == ev["seq"]
            assert [row[f"left_{s}"] for s in SEATS] == [sum(hands[s].values()) for s in SEATS]
            for c in ev.get("cards", []):
                hands[ev["seat"]][c] -= 1
                assert hands[ev["seat"]][c] >= 0, "played a card not held"
                played[c] += 1
            assert row["left_after"] == sum(hands[ev["seat"]].values())
        elif kind == "deal_end":
            assert +(sum(hands.values(), Counter()) + played) == Counter(DECK)
    assert next(plays, None) is None


RULES = ["national", "huaian", "bcta", "jiangsu", "njupt"]


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(rules=st.sampled_from(RULES), seed=st.integers(0, 10**6))
def test_simulated_matches_replay_valid(rules: str, seed: int) -> None:
    """Property: every match the simulator writes replays ``valid``; cards are conserved."""
    events = simulator_api.simulate_match(rules, seed=seed)
    result = replay_match(events)
    assert result.status == "valid", result.error
    assert_conserved(events, result)
    m = result.rows["matches"][0]
    assert m["deals_played"] == len(result.rows["deals"]) >= 1
    assert len(result.rows["player_matches"]) == 4


@settings(max_examples=25, deadline=None)
@given(
    seed=st.integers(0, 10**6),
    leader=st.sampled_from(SEATS),
    order=st.permutations(SEATS),
    double=st.booleans(),
)
def test_scripted_deals_conserve_cards(seed: int, leader: str, order: list[str], double: bool) -> None:
    """Any finishing order on any deal replays valid with the level gain of rules.md §5.8, and the
    cards are conserved throughout.

    Every seat that has to take the lead from an opponent (the builder's hand-over: its highest
    single beats the card on the table) is dealt a joker, so every drawn deal can be played out:
    no example is skipped."""
    out = [order[0], PARTNER[order[0]]] if double else [s for s in order if s != PARTNER[order[0]]][:2]
    if not double:
        out.append(PARTNER[order[0]])
    takers = [out[0]] if leader != out[0] else []
    takers += [b for a, b in itertools.pairwise(out) if b != PARTNER[a]]
    jokers = dict(zip(takers, ("HR", "HR", "SB"), strict=False))
    log = Log()
    log.deal(leader=leader, seed=seed, give={seat: [joker] for seat, joker in jokers.items()})
    log.play_out(out, leader=leader)
    log.end_deal()
    log.end("abandoned")
    result = log.replay()
    assert result.status == "valid", result.error
    assert_conserved(log.events, result)
    deal = result.rows["deals"][0]
    assert deal["finish_order"][: len(out)] == out
    assert deal["winning_team"] == TEAM[out[0]]
    assert deal["level_gain"] == (3 if double else 2)


@pytest.mark.parametrize("index", range(9))
def test_corruption_manifest_first_errors(index: int) -> None:
    """Each damage of ``simulator.corrupt`` is reported with the code and seq its manifest names."""
    corrupt = pytest.importorskip("simulator.corrupt")
    events = simulator_api.simulate_match("national", seed=index)
    clean = b"".join(orjson.dumps(e) + b"\n" for e in events)
    damaged, entry = corrupt.corrupt_match(clean, index, random.Random(index))
    parsed = []
    for line in damaged.splitlines():
        try:
            ev = orjson.loads(line)
        except orjson.JSONDecodeError:
            continue
        if isinstance(ev, dict) and isinstance(ev.get("match"), str):
            parsed.append(ev)
    result = replay_match(parsed)
    assert result.error is not None, entry
    assert (result.error.code.value, result.error.seq) == (entry["code"], entry["seq"]), (entry, result.error)


JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers(-3, 60) | st.sampled_from(["", "E", "H2", "SB", "2", "x", "EW"]),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.sampled_from(["E", "EW", "x"]), inner),
    max_leaves=6,
)
"""Any JSON value, biased towards values that are nearly right (seats, cards, levels, teams)."""


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 50), pick=st.integers(0, 10**6), value=JSON_VALUES, data=st.data())
def test_any_field_value_is_reported_not_raised(
    seed: int, pick: int, value: Any, data: st.DataObject
) -> None:
    """events.md: a field of the wrong type or value is an error of the match (code and seq), never
    an exception out of the replay, compiled (strict about types) or not. Top-level fields and one
    level down (a seat's hand, a card of a play, a level of a team)."""
    events = simulator_api.simulate_match(RULES[seed % len(RULES)], seed=seed)
    ev = events[pick % len(events)]
    field = data.draw(st.sampled_from(sorted(ev)))
    inner = ev[field]
    if isinstance(inner, dict) and inner and data.draw(st.booleans()):
        inner[data.draw(st.sampled_from(sorted(inner)))] = value
    elif isinstance(inner, list) and inner and data.draw(st.booleans()):
        inner[data.draw(st.integers(0, len(inner) - 1))] = value
    else:
        ev[field] = value
    result = replay_match(events)
    assert result.status in ("valid", "partial", "invalid")
    if result.error is not None:
        assert result.error.seq is None or 0 <= result.error.seq < len(events)


@pytest.mark.parametrize(
    ("pick", "field", "value", "code"),
    [
        (0, "format", {"kind": []}, "malformed_field"),
        (-1, "reason", {"x": 1}, "malformed_field"),
        (0, "match", {"x": 1}, "malformed_field"),
        (3, "match", "another-match", "malformed_field"),
    ],
)
def test_misshapen_names_and_foreign_match_ids_are_malformed(
    pick: int, field: str, value: Any, code: str
) -> None:
    """Found by the property above: a list or object where a name is expected (format kind, end
    reason, the match id) is a malformed field at that event (events.md), not a ``TypeError``; so is
    an event of another match among a match's events."""
    events = simulator_api.simulate_match("national", seed=0)
    events[pick][field] = value
    result = replay_match(events)
    assert result.error is not None
    assert (result.error.code.value, result.error.seq) == (code, events[pick]["seq"])
