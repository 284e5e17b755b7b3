"""Results-only deals (events.md "Results-only deals", docs/event-extensions.md): a deal with no
hands and no play, whose ``deal_end.order`` gives the result. Each test is a hand-written log of
one rule path that needs no hands, and checks what the replay derives from the order alone."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from replay.replayer import MatchReplay, replay_match
from simulator import api as simulator_api
from simulator.strip import strip_to_results

PLAYERS = {"E": "pE", "N": "pN", "W": "pW", "S": "pS"}


class Sheet:
    """A score sheet as an event log: deals given by their finishing order only."""

    def __init__(self, rules: str = "national", **start: Any) -> None:
        self.events: list[dict[str, Any]] = []
        self.deals = 0
        self.add("match_start", rules=rules, seats=dict(PLAYERS), **start)

    def add(self, type_: str, **payload: Any) -> None:
        self.events.append({"v": 1, "match": "ro", "seq": len(self.events), "type": type_, **payload})

    def deal(self, level: str, declarers: str | None, order: list[str], **end: Any) -> None:
        """A results-only deal: ``deal_start`` without ``hands``, then ``deal_end``."""
        self.start(level, declarers)
        self.add("deal_end", order=order, **end)

    def start(self, level: str, declarers: str | None, **extra: Any) -> None:
        self.deals += 1
        self.add("deal_start", deal=self.deals, level=level, declarers=declarers, **extra)

    def replay(self) -> MatchReplay:
        return replay_match(self.events)


def _deals(r: MatchReplay) -> list[tuple[Any, ...]]:
    return [
        (
            d["level"],
            d["declarers"],
            d["level_EW_after"],
            d["level_NS_after"],
            d["level_gain"],
            d["double_win"],
        )
        for d in r.rows["deals"]
    ]


def test_double_win_1_3_and_1_4_gains() -> None:
    """rules.md §5.8: partner 2nd → +3 (double win), 3rd → +2, 4th → +1; 1st's team declares next (§2)."""
    s = Sheet(format={"kind": "deals", "deals": 3})
    s.deal("2", None, ["E", "W"])
    s.deal("5", "EW", ["N", "E", "S"])
    s.deal("4", "NS", ["W", "N", "S", "E"])
    s.add("match_end", reason="deals", winner="EW")
    r = s.replay()
    assert r.status == "results_only", r.error
    assert _deals(r) == [
        ("2", None, "5", "2", 3, True),
        ("5", "EW", "5", "4", 2, False),
        ("4", "NS", "6", "4", 1, False),
    ]
    d = r.rows["deals"][0]
    play_columns = ("tricks", "jie_feng", "bombs_EW", "bombs_NS", "plays", "passes", "leader")
    assert [d[c] for c in play_columns] == [None] * 7
    assert {h["bombs_played"] for h in r.rows["deal_hands"]} == {None}
    assert r.rows["matches"][0]["status"] == "results_only"


def test_deal_end_levels_cross_checked() -> None:
    """rules.md §5.8: a reported `deal_end.levels` must equal the derived levels."""
    s = Sheet()
    s.deal("2", None, ["E", "W"], levels={"EW": "4", "NS": "2"})
    r = s.replay()
    assert r.status == "invalid" and r.error is not None
    assert (r.error.seq, r.error.code) == (2, "wrong_levels")


def test_passing_a_ends_the_match() -> None:
    """rules.md §7: at A, 1st with the partner not last passes A and wins the match."""
    s = Sheet(start_state={"levels": {"EW": "A", "NS": "9"}, "declarers": "EW"})
    s.deal("A", "EW", ["E", "N", "W"])
    s.add("match_end", reason="passed_a", winner="EW")
    r = s.replay()
    assert r.status == "results_only", r.error
    d = r.rows["deals"][0]
    assert (d["a_attempt"], d["a_passed"], d["a_failed"]) == (True, True, False)


def test_bcta_three_a_failures_lose_the_round() -> None:
    """rules.md §7 (bcta): three failed attempts at A lose the round."""
    s = Sheet("bcta", start_state={"levels": {"EW": "A", "NS": "2"}, "declarers": "EW"})
    s.deal("A", "EW", ["E", "N", "S"])  # 1-4: a failure, EW declares again
    s.deal("A", "EW", ["W", "S", "N"])
    s.deal("A", "EW", ["E", "S", "N"])
    s.add("match_end", reason="a_failures", winner="NS")
    r = s.replay()
    assert r.status == "results_only", r.error
    assert [d["a_failed"] for d in r.rows["deals"]] == [True, True, True]
    assert r.rows["matches"][0]["winner"] == "NS"


def test_bcta_deals_format_end_and_equal_levels() -> None:
    """rules.md §7 formats (bcta timed_deals with 2 deals): the match ends after the deal limit;
    equal levels go to the last declarers (bcta draw_breaker)."""
    s = Sheet("bcta", format={"kind": "deals", "deals": 2})
    s.deal("2", None, ["E", "N", "W"])  # EW → 4
    s.deal("4", "EW", ["N", "E", "S"])  # NS → 4
    s.add("match_end", reason="deals", winner="EW")
    r = s.replay()
    assert r.status == "results_only", r.error
    assert r.rows["matches"][0]["winner"] == "EW"


def test_deal_after_format_end_is_refused() -> None:
    """rules.md §7: no deal after the format's deal limit."""
    s = Sheet(format={"kind": "deals", "deals": 1})
    s.deal("2", None, ["E", "W"])
    s.deal("5", "EW", ["E", "W"])
    r = s.replay()
    assert r.error is not None and (r.error.seq, r.error.code) == (3, "match_already_over")


def test_tribute_routing_checked() -> None:
    """rules.md §6: after a 1-4 finish the 4th pays the 1st; the routing is checked without hands."""
    s = Sheet(format={"kind": "deals", "deals": 2})
    s.deal("2", None, ["E", "N", "S"])  # W is 4th, pays E
    s.start("3", "EW")
    s.add("tribute", **{"from": "W", "to": "E", "card": "HA"})
    s.add("return", **{"from": "E", "to": "W", "card": "S3"})
    s.add("deal_end", order=["E", "W"])
    s.add("match_end", reason="deals", winner="EW")
    r = s.replay()
    assert r.status == "results_only", r.error
    assert [(t["giver"], t["receiver"]) for t in r.rows["tributes"]] == [("W", "E")]


def test_tribute_routed_wrongly() -> None:
    """rules.md §6: a tribute by the wrong seat is refused as in a played deal."""
    s = Sheet(format={"kind": "deals", "deals": 2})
    s.deal("2", None, ["E", "N", "S"])
    s.start("3", "EW")
    s.add("tribute", **{"from": "N", "to": "E", "card": "HA"})
    r = s.replay()
    assert r.error is not None and (r.error.seq, r.error.code) == (4, "wrong_tribute_route")


def test_tribute_shown_in_part_is_refused_at_deal_end() -> None:
    """rules.md §6: once a results-only deal shows its tribute, the return is due too."""
    s = Sheet(format={"kind": "deals", "deals": 2})
    s.deal("2", None, ["E", "N", "S"])
    s.start("3", "EW")
    s.add("tribute", **{"from": "W", "to": "E", "card": "HA"})
    s.add("deal_end", order=["E", "W"])
    r = s.replay()
    assert r.error is not None and (r.error.seq, r.error.code) == (5, "return_missing")


def test_tribute_left_out_is_unknown() -> None:
    """docs/event-extensions.md: a score sheet without the tribute leaves its kind unknown."""
    s = Sheet(format={"kind": "deals", "deals": 2})
    s.deal("2", None, ["E", "N", "S"])
    s.deal("3", "EW", ["E", "W"])
    s.add("match_end", reason="deals", winner="EW")
    r = s.replay()
    assert r.status == "results_only", r.error
    assert [d["tribute_kind"] for d in r.rows["deals"]] == ["none", None]


@pytest.mark.parametrize("order", [["E"], ["E", "N"], []])
def test_impossible_order(order: list[str]) -> None:
    """rules.md §5.7: a deal ends with a double win (2 partners) or 3 seats out."""
    s = Sheet()
    s.deal("2", None, order)
    r = s.replay()
    assert r.error is not None and (r.error.seq, r.error.code) == (2, "wrong_finish_order")


def test_foul_forfeits_the_deal() -> None:
    """rules.md §8: a deal forfeited by a foul is a double win for the other team."""
    s = Sheet(format={"kind": "deals", "deals": 1})
    s.start("2", None)
    s.add("ruling", kind="red_card", seat="N")
    s.add("deal_end", order=["E", "W"])
    s.add("match_end", reason="deals", winner="EW")
    r = s.replay()
    assert r.status == "results_only", r.error
    d = r.rows["deals"][0]
    assert (d["foul"], d["double_win"], d["level_EW_after"]) == (True, True, "5")


def test_forfeit_match() -> None:
    """rules.md §8: a forfeited match goes to the other team."""
    s = Sheet()
    s.deal("2", None, ["E", "N", "W"])
    s.add("ruling", kind="forfeit_match", team="EW")
    s.add("match_end", reason="forfeit", winner="NS")
    r = s.replay()
    assert r.status == "results_only", r.error
    assert r.rows["matches"][0]["winner"] == "NS"


def test_play_in_a_handless_deal_is_partial_not_results_only() -> None:
    """events.md: a handless deal with plays stays a partial deal (backward compatible); its
    first deal then needs `leader`."""
    s = Sheet()
    s.start("2", None, hands={})
    s.add("play", seat="E", cards=["H3"])
    r = s.replay()
    assert r.error is not None and (r.error.seq, r.error.code) == (1, "malformed_field")


RESULT_COLUMNS = (
    "deal_no", "level", "declarers", "level_EW_before", "level_NS_before", "level_EW_after",
    "level_NS_after", "tribute_kind", "winning_team", "level_gain", "double_win", "a_attempt",
    "a_passed", "a_failed", "foul",
)  # fmt: skip


@settings(max_examples=10, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(rules=st.sampled_from(["national", "huaian", "bcta", "jiangsu", "njupt"]), seed=st.integers(0, 10**6))
def test_stripped_simulated_match_replays_results_only(rules: str, seed: int) -> None:
    """Any simulated match with hands and plays stripped replays ``results_only`` with the same
    result columns (and match result) as the full match."""
    events = simulator_api.simulate_match(rules, seed=seed)
    full = replay_match(events)
    assert full.status == "valid", full.error
    stripped = replay_match(strip_to_results(events))
    assert stripped.status == "results_only", stripped.error

    def results(r: MatchReplay) -> list[tuple[Any, ...]]:
        return [(*(d[c] for c in RESULT_COLUMNS), d["finish_order"][:3]) for d in r.rows["deals"]]

    assert results(stripped) == results(full)
    keep = ("winner", "end_reason", "deals_played", "final_level_EW", "final_level_NS")
    m_full, m_ro = full.rows["matches"][0], stripped.rows["matches"][0]
    assert {k: m_ro.get(k) for k in keep} == {k: m_full.get(k) for k in keep}
