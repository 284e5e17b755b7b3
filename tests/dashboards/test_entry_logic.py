"""The results entry page's logic (dashboards/entry.py, dashboards/entry_inbox.py), without
Streamlit: taps → results-only events (events.md "Results-only deals", docs/event-extensions.md),
levels and round result from the replay, refusals with the replay's code, atomic submission."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import orjson
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dashboards.entry import (
    RESULT_KINDS,
    TableEntry,
    derive,
    first_round_seats,
    order_from_places,
    order_of,
    pairing_failure,
    parse_pairs,
    table_spec,
)
from dashboards.entry_inbox import AlreadySubmitted, submission_path, submit
from pipelines.reads.pairing_sheet import PairingRefused
from pipelines.reads.tournament_data import LookupFailed
from replay import BUILTIN, replay_match
from replay.rulesets import parse_round_format
from service.accounts import Role, add_account, get_account
from service.audit import entry_record
from service.principals import for_account

SEATS = {"E": "p1", "N": "p2", "W": "p3", "S": "p4"}


NOW = datetime(2026, 5, 1, 9, 30, tzinfo=UTC)


def entry(orders: list[list[str]], rules: str = "national", fmt: str | None = None) -> TableEntry:
    ruleset = BUILTIN[rules]
    spec = table_spec("ev", None, None, 1, 1, SEATS, {"p1": {"name": "甲"}})
    return TableEntry(
        spec,
        ruleset,
        parse_round_format(fmt) if fmt else ruleset.default_format,
        tuple(tuple(o) for o in orders),
    )


@pytest.mark.parametrize(
    ("kind", "order", "gain", "ew_after"),
    [
        ("double", ["E", "W"], 3, "5"),  # rules.md §5.8: partner 2nd, up 3
        ("one_three", ["E", "N", "W", "S"], 2, "4"),  # partner 3rd, up 2
        ("one_four", ["E", "N", "S", "W"], 1, "3"),  # partner last, up 1
    ],
)
def test_result_kind_gives_order_and_levels(kind: str, order: list[str], gain: int, ew_after: str) -> None:
    assert order_of("E", kind) == order
    derived = derive(entry([order_of("E", kind)]))
    assert derived.refusal is None and not derived.over  # until_a goes on
    (deal,) = derived.deals
    assert (deal["level"], deal["declarers"], deal["level_gain"]) == ("2", None, gain)
    assert derived.levels == {"EW": ew_after, "NS": "2"}


def test_places_tapped_give_the_order() -> None:
    assert order_from_places(["N", "S"]) == ["N", "S"]  # partners 1st and 2nd: double win
    assert order_from_places(["N", "E", "S"]) == ["N", "E", "S", "W"]  # 4th is the seat left
    derived = derive(entry([order_from_places(["E", "E", "N"])]))
    assert derived.refusal is not None and derived.refusal.code == "malformed_field"
    assert derived.refusal.deal == 1 and derived.deals == []


def test_declarers_play_at_their_level() -> None:
    """rules.md §2: the next deal is played at the level of the previous 1st's team."""
    derived = derive(entry([["E", "W"], ["N", "E", "S", "W"]]))
    assert [(d["level"], d["declarers"]) for d in derived.deals] == [("2", None), ("5", "EW")]
    assert derived.levels == {"EW": "5", "NS": "4"}


def test_passing_a_ends_the_round_and_a_deal_after_is_refused() -> None:
    """until_a (rules.md §7): four double wins take E–W to A, the fifth passes A."""
    five = [["E", "W"]] * 5
    derived = derive(entry(five))
    assert derived.over and derived.winner == "EW" and derived.end_reason == "passed_a"
    assert derived.deals[-1]["a_passed"] and derived.deals[-1]["level"] == "A"
    assert derived.events[-1]["type"] == "match_end"
    assert replay_match(derived.events).status == "results_only"
    refused = derive(entry([*five, ["N", "S"]]))
    assert not refused.over and refused.refusal is not None
    assert (refused.refusal.code, refused.refusal.deal) == ("match_already_over", 6)
    assert len(refused.deals) == 5  # the accepted deals stay shown


def test_deals_format_ends_after_its_deals() -> None:
    derived = derive(entry([["E", "W"], ["N", "E", "S", "W"]], fmt="deals:2"))
    assert derived.over and derived.winner == "EW" and derived.end_reason == "deals"
    assert derive(entry([["E", "W"]], fmt="deals:2")).over is False


def test_timed_round_ends_when_submitted() -> None:
    """bcta (timed_deals): without times, the deals entered end the round at the time limit;
    equal levels are won by the declarers (draw_breaker, rules.md §7)."""
    derived = derive(entry([["E", "N", "W", "S"], ["N", "E", "S", "W"]], rules="bcta"))
    assert derived.over and derived.end_reason == "time" and derived.levels == {"EW": "4", "NS": "4"}


def test_events_carry_event_players_and_source() -> None:
    start = derive(entry([["E", "W"]] * 5)).events[0]
    assert start["match"] == "ev-r1-t1"
    assert start["event"] == {"id": "ev", "round": 1, "table": "1"}
    assert start["players"] == {"p1": {"name": "甲"}}
    assert start["source"] == {"format": "entry"}


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.sampled_from("ENWS"), st.sampled_from(sorted(RESULT_KINDS))), max_size=14))
def test_shown_levels_are_the_replays(taps: list[tuple[str, str]]) -> None:
    """Whatever is tapped, the levels shown are the replay's last accepted deal_end, and an
    entry that can be submitted replays as a results-only match."""
    derived = derive(entry([order_of(w, k) for w, k in taps]))
    if derived.deals:
        last = derived.deals[-1]
        assert derived.levels == {"EW": last["level_EW_after"], "NS": last["level_NS_after"]}
    if derived.over:
        assert replay_match(derived.events).status == "results_only"
    else:
        assert derived.refusal is None or derived.refusal.code == "match_already_over"


def test_first_round_pairs_every_pair_once() -> None:
    pairs = [(f"p{2 * i + 1:02}", f"p{2 * i + 2:02}") for i in range(8)]
    seats, bye = first_round_seats(pairs, {})
    assert bye is None and sorted(seats) == [1, 2, 3, 4]
    seated = sorted(p for table in seats.values() for p in table.values())
    assert seated == sorted(p for pair in pairs for p in pair)
    assert all((t["E"], t["W"]) in pairs and (t["N"], t["S"]) in pairs for t in seats.values())
    assert first_round_seats(pairs[:3], {})[1] is not None  # odd: one pair sits out


def test_pairing_failure_is_said_in_the_pages_language() -> None:
    """A refusal of the pairing is its reason's label with its ids and numbers, not `gdan pair`'s
    English; another lookup failure keeps the store's words after a translated lead."""
    individual = PairingRefused("English for the CLI", "individual", event="lg", stage="league")
    assert pairing_failure(individual, "en").startswith("lg is an individual event: partners rotate")
    chinese = pairing_failure(individual, "zh")
    assert chinese.startswith("lg 是个人赛") and "English" not in chinese and "individual" not in chinese
    missing = PairingRefused("English", "no_standings", event="cup", after=40, rounds=(1, 2, 3))
    assert pairing_failure(missing, "zh") == (
        "赛事 cup 没有第 40 轮后的排名（已有成绩的轮次：1, 2, 3）：请先编排第 40 轮，"
        "或在其成绩录入后运行 `gdan run`"
    )
    assert "（已有成绩的轮次：无）" in pairing_failure(
        PairingRefused("English", "no_standings", event="cup", after=1, rounds=()), "zh"
    )
    no_teams = PairingRefused("English", "no_teams", event="cup")
    assert pairing_failure(no_teams, "zh") == "赛事 cup 在数据仓库中没有队伍"
    assert pairing_failure(LookupFailed("--qualifiers 9: …"), "zh") == "编排程序的详情: `--qualifiers 9: …`"


def test_parse_pairs_reports_bad_lines() -> None:
    pairs, problems = parse_pairs("p1/p2\n\n甲 / p4\np5\np1/p6", {"甲": "p3"})
    assert pairs == [("p1", "p2"), ("p3", "p4")]
    assert problems == [
        "line 4: expected two players as p01/p02, got 'p5'",
        "line 5: a player in one pair only, got 'p1' twice",
    ]


def test_submit_writes_one_whole_file_once(tmp_path: Path) -> None:
    events = derive(entry([["E", "W"]] * 5)).events
    add_account(tmp_path, "boss", "long enough", Role.ADMIN)
    boss = for_account(get_account(tmp_path, "boss"), NOW)  # type: ignore[arg-type]
    path = submit(tmp_path, events, principal=boss, now=NOW)
    assert path == tmp_path / "inbox" / "entry" / "ev-r1-t1.jsonl"
    written = [orjson.loads(line) for line in path.read_bytes().splitlines()]
    assert written[1:] == events[1:]
    assert written[0] == {**events[0], "entry": entry_record(boss, NOW, None, None)}
    assert sorted(p.name for p in path.parent.iterdir()) == ["ev-r1-t1.jsonl"]  # no temp file left
    with pytest.raises(AlreadySubmitted):
        submit(tmp_path, events, principal=boss, now=NOW)
    assert submission_path(tmp_path, "ev-r1-t1", 2).name == "ev-r1-t1.rev2.jsonl"
    with pytest.raises(ValueError, match="path separator"):
        submission_path(tmp_path, "../x")
