"""The ``plays`` and ``deal_hands`` columns: reading policy (events.md), overtaking the partner,
``could_beat`` and the starting-hand features."""

from __future__ import annotations

from collections import Counter

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from replay_builder import Log

from replay import DECK, can_beat, legal_moves, make_combo
from replay.events import LEVELS
from replay.features import hand_features
from replay.moves import BeatProbe


def test_lead_takes_strongest_reading() -> None:
    """events.md: without ``combo``, a lead takes the strongest reading and is marked inferred."""
    log = Log()
    log.deal(leader="E", seed=3, give={"E": ["H2", "SK", "SK", "S6", "S6"]})
    log.play("E", ["H2", "SK", "SK", "S6", "S6"])  # K-full-of-6 or 6-full-of-K → K
    for s in ("N", "W", "S"):
        log.pass_(s)
    log.play_out(["E", "W"], leader="E")
    log.end_deal()
    log.end("abandoned")
    r = log.replay()
    assert r.status == "valid", r.error
    lead = r.rows["plays"][0]
    assert (lead["combo_type"], lead["combo_rank"], lead["reading_inferred"]) == ("full_house", "K", True)
    assert lead["is_lead"] and lead["wilds_used"] == 1 and lead["left_after"] == 22


def test_follow_takes_weakest_beating_reading() -> None:
    log = Log()
    log.deal(
        leader="E", seed=3, give={"E": ["S3", "S3", "C3", "S4", "S4"], "N": ["H2", "DA", "DA", "D7", "D7"]}
    )
    log.play("E", ["S3", "S3", "C3", "S4", "S4"])
    log.play("N", ["H2", "DA", "DA", "D7", "D7"])  # 7-full-of-A or A-full-of-7, both beat 3-full → 7
    for s in ("W", "S", "E"):
        log.pass_(s)
    log.play_out(["N", "S"], leader="N")
    log.end_deal()
    log.end("abandoned")
    r = log.replay()
    assert r.status == "valid", r.error
    follow = r.rows["plays"][1]
    assert (follow["combo_type"], follow["combo_rank"], follow["reading_inferred"]) == (
        "full_house",
        "7",
        True,
    )
    assert (follow["table_combo_type"], follow["table_combo_rank"], follow["table_seat"]) == (
        "full_house",
        "3",
        "E",
    )
    assert follow["wilds_used"] == 1 and not follow["is_lead"] and follow["pos_in_trick"] == 1
    assert r.rows["plays"][0]["reading_inferred"] is False  # one reading only


def test_declared_reading_is_used() -> None:
    log = Log()
    log.deal(
        leader="E", seed=3, give={"E": ["S3", "S3", "C3", "S4", "S4"], "N": ["H2", "DA", "DA", "D7", "D7"]}
    )
    log.play("E", ["S3", "S3", "C3", "S4", "S4"])
    log.play("N", ["H2", "DA", "DA", "D7", "D7"], combo={"type": "full_house", "rank": "A"})
    for s in ("W", "S", "E"):
        log.pass_(s)
    log.play_out(["N", "S"], leader="N")
    log.end_deal()
    log.end("abandoned")
    r = log.replay()
    assert r.status == "valid", r.error
    assert (r.rows["plays"][1]["combo_rank"], r.rows["plays"][1]["reading_inferred"]) == ("A", False)


def test_overtook_partner_and_could_beat() -> None:
    log = Log()
    log.deal(leader="E", seed=9, give={"E": ["S3", "HR"], "W": ["SA"]})
    log.play("E", ["S3"])
    log.pass_("N")
    log.play("W", ["SA"])
    log.pass_("S")
    log.play("E", ["HR"])
    for s in ("N", "W", "S"):
        log.pass_(s)
    log.play_out(["E", "W"], leader="E")
    log.end_deal()
    log.end("abandoned")
    r = log.replay()
    assert r.status == "valid", r.error
    rows = r.rows["plays"][:8]
    assert [x["overtook_partner"] for x in rows[:5]] == [False, None, True, None, True]
    hands = {s: Counter(h) for s, h in log.events[1]["hands"].items()}
    for s in ("E", "W"):
        for c in {"E": ["S3", "HR"], "W": ["SA"]}[s]:
            hands[s][c] -= 1
    passes = [x for x in rows if x["action"] == "pass"]
    for p in passes:
        table = make_combo(p["table_combo_type"], p["table_combo_rank"])
        assert p["could_beat"] == can_beat(list(hands[p["seat"]].elements()), "2", table)
    assert rows[5]["table_combo_rank"] == "R"


@pytest.mark.parametrize(
    ("hand", "level", "expected"),
    [
        (["SB", "SB", "HR", "HR"], "2", (4, 2, 0, 0, 1, 0)),
        (["S5", "S5", "C5", "D5", "H2"], "2", (0, 0, 1, 1, 1, 0)),
        (["S3", "S4", "S5", "S6", "H2"], "2", (0, 0, 1, 1, 0, 2)),
        (["HT", "ST", "ST", "CT"], "T", (0, 0, 1, 4, 0, 0)),
        (["SA", "SK", "SQ", "SJ", "ST"], "2", (0, 0, 0, 0, 0, 1)),
    ],
)
def test_hand_features(hand: list[str], level: str, expected: tuple[int, ...]) -> None:
    """jokers, big jokers, wilds, level cards (rules.md §2), natural bombs, straight-flush chances (§3)."""
    f = hand_features(hand, level)
    names = ("jokers", "big_jokers", "wilds", "level_cards", "natural_bombs", "straight_flush_chances")
    assert tuple(getattr(f, n) for n in names) == expected


def _chances_by_counting(hand: list[str], level: str) -> int:
    """Straight-flush chances counted the slow, obvious way: every suit, every window A-5 … T-A."""
    wild = "H" + level
    wilds = hand.count(wild)
    order = ["A", *LEVELS]
    chances = 0
    for suit in "SHCD":
        for start in range(10):
            missing = sum(1 for r in order[start : start + 5] if suit + r not in hand or suit + r == wild)
            chances += missing <= wilds
    return chances


@settings(max_examples=100, deadline=None)
@given(
    cards=st.lists(st.sampled_from(range(len(DECK))), min_size=27, max_size=27, unique=True),
    level=st.sampled_from(LEVELS),
)
def test_hand_features_match_counting(cards: list[int], level: str) -> None:
    """rules.md §2–§3: the features of any 27-card hand agree with counting card by card."""
    hand = [DECK[i] for i in cards]
    f = hand_features(hand, level)
    wilds = hand.count("H" + level)
    jokers = hand.count("SB") + hand.count("HR")
    ranks = Counter(c[1] for c in hand if c not in ("SB", "HR", "H" + level))
    assert f._asdict() == {
        "jokers": jokers,
        "big_jokers": hand.count("HR"),
        "wilds": wilds,
        "level_cards": ranks[level] + wilds,
        "natural_bombs": sum(n >= 4 for n in ranks.values()) + (jokers == 4),
        "straight_flush_chances": _chances_by_counting(hand, level),
    }


_TABLES = [
    ("single", "A", None),
    ("single", "5", None),
    ("single", "R", None),
    ("pair", "K", None),
    ("pair", "B", None),
    ("triple", "9", None),
    ("full_house", "Q", None),
    ("straight", "T", None),
    ("tube", "Q", None),
    ("plate", "K", None),
    ("bomb", "7", 4),
    ("bomb", "Q", 5),
    ("straight_flush", "8", None),
    ("bomb", "3", 6),
    ("joker_bomb", "JOKER", None),
]


@settings(max_examples=80, deadline=None)
@given(
    cards=st.lists(st.sampled_from(range(len(DECK))), min_size=1, max_size=27, unique=True),
    level=st.sampled_from(LEVELS),
)
def test_could_beat_probe_reused_across_tables(cards: list[int], level: str) -> None:
    """``could_beat`` (rules.md §4): one ``BeatProbe`` per hand, asked about table after table as the
    replayer does between two plays of a seat, agrees every time with the legal moves."""
    hand = [DECK[i] for i in cards]
    probe = BeatProbe(hand, level)
    for type_, rank, size in _TABLES:
        table = make_combo(type_, rank, size)
        assert probe.beats(table) == bool(legal_moves(hand, level, table)), (sorted(hand), table)
