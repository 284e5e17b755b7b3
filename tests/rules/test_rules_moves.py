"""Legal moves and can_beat (rules.md §3–§5): hand-checked cases, perft-style regression counts,
and hypothesis properties including equality with a brute-force enumeration of sub-multisets."""

from __future__ import annotations

import itertools
import random
from collections import Counter

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from rules_strategies import hands

from replay import (
    CARDS,
    DECK,
    RANKS,
    Combo,
    Move,
    beats,
    can_beat,
    card_list,
    legal_moves,
    make_combo,
    readings,
    sort_cards,
)


def c(spec: str) -> Combo:
    parts = spec.split(":")
    return make_combo(parts[0], parts[1], int(parts[2]) if len(parts) > 2 else None)


def brute_force(hand: list[str], level: str, table: Combo | None) -> set[tuple[tuple[str, ...], Combo]]:
    """Every (sub-multiset, reading) of the hand that is a legal play, by exhaustive enumeration."""
    items = sorted(Counter(hand).items(), key=lambda kv: CARDS.index(kv[0]))
    out = set()
    for choice in itertools.product(*(range(m + 1) for _, m in items)):
        cards = [card for (card, _), k in zip(items, choice, strict=True) for _ in range(k)]
        if cards:
            for r in readings(cards, level):
                if table is None or beats(r, table, level):
                    out.add((sort_cards(cards), r))
    return out


def as_set(moves: list[Move]) -> set[tuple[tuple[str, ...], Combo]]:
    return {(m.cards, m.combo) for m in moves}


TABLES = [
    None,
    *map(
        c,
        [
            "single:9",
            "single:B",
            "pair:K",
            "pair:A",
            "triple:5",
            "full_house:7",
            "straight:4",
            "straight:A",
            "tube:A",
            "tube:9",
            "plate:3",
            "bomb:9:4",
            "bomb:3:5",
            "straight_flush:6",
            "bomb:5:6",
            "bomb:Q:8",
            "joker_bomb:JOKER",
        ],
    ),
]


# ---- hand-checked cases (§3 shapes, §5 passing is not a move) ----------------------------------------

HAND_CASES = [
    ("§3 lead S3 S3 H3", "S3 S3 H3", "2", None, 5),  # S3, H3, S3S3, S3H3, S3S3H3
    ("§3 lead two wilds and S5", "H2 H2 S5", "2", None, 5),  # H2, S5, H2H2, H2S5, H2H2S5
    ("§4 follow pair with nothing bigger", "S3 S3 H4", "2", c("pair:5"), 0),
    ("§4 follow pair, wild makes a pair", "S3 H2 H4", "2", c("pair:2"), 0),
    ("§4 follow single 9: S3 H2 HA", "S3 H2 HA", "2", c("single:9"), 2),  # HA, H2 (level)
    ("§4 joker bomb beats a 10-bomb", "SB SB HR HR S3", "2", c("bomb:A:10"), 1),
    ("§4 nothing beats the joker bomb", "SB SB HR HR S3 S3 D3 D3", "2", c("joker_bomb:JOKER"), 0),
]


@pytest.mark.parametrize(
    ("cite", "hand", "level", "table", "count"), HAND_CASES, ids=[h[0] for h in HAND_CASES]
)
def test_hand_checked_counts(cite: str, hand: str, level: str, table: Combo | None, count: int) -> None:
    moves = legal_moves(hand, level, table)
    assert len(moves) == count, cite
    assert as_set(moves) == brute_force(hand.split(), level, table)


def test_moves_are_canonical_and_distinct() -> None:
    moves = legal_moves("H2 H2 S7 S7 S8 S8 D9 D9", "2", None)
    assert all(list(m.cards) == list(sort_cards(m.cards)) for m in moves)
    assert len(as_set(moves)) == len(moves)
    assert Move(("S7", "S7", "S8", "S8", "H2", "H2"), c("plate:7")) in moves
    assert Move(("S7", "S7", "S8", "S8", "H2", "H2"), c("tube:6")) in moves


def test_impossible_hand_raises() -> None:
    with pytest.raises(ValueError, match="more than two copies of S9"):
        legal_moves("S9 S9 S9", "2", None)
    with pytest.raises(ValueError, match="more than two copies of SB"):
        readings("SB SB SB", "2")
    with pytest.raises(ValueError, match="invalid card"):
        can_beat("S9 Z9", "2", c("single:3"))


def test_full_house_joker_pair_parameter() -> None:
    """§10: a ruleset may forbid the joker pair in a full house."""
    hand = "S9 D9 C9 SB SB"
    with_jokers = legal_moves(hand, "2", c("full_house:8"))
    without = legal_moves(hand, "2", c("full_house:8"), full_house_joker_pair=False)
    assert [m.combo for m in with_jokers] == [c("full_house:9")]
    assert without == []
    assert can_beat(hand, "2", c("full_house:8"))
    assert not can_beat(hand, "2", c("full_house:8"), full_house_joker_pair=False)


# ---- perft-style regression counts -------------------------------------------------------------------

PERFT_HANDS = {
    # 27-card hands drawn with random.Random(seed) from the double deck
    "seed1": ("2", sorted(random.Random(1).sample(DECK, 27), key=CARDS.index)),
    "seed2_level7": ("7", sorted(random.Random(2).sample(DECK, 27), key=CARDS.index)),
    "two_wilds": (
        "5",
        card_list("H5 H5 S3 D3 C4 S4 S6 D6 H6 C7 S8 S8 D9 C9 ST HJ DJ CQ SQ SK HK DA CA SB HR S2 D2"),
    ),
}
PERFT_TABLES = {
    "lead": None,
    "single:8": c("single:8"),
    "pair:9": c("pair:9"),
    "straight:3": c("straight:3"),
    "bomb:9:4": c("bomb:9:4"),
}
PERFT_COUNTS = {
    # checked once against the independent enumeration of test_perft_independent (slow)
    ("seed1", "lead"): 785,
    ("seed1", "single:8"): 18,
    ("seed1", "pair:9"): 18,
    ("seed1", "straight:3"): 195,
    ("seed1", "bomb:9:4"): 3,
    ("seed2_level7", "lead"): 339,
    ("seed2_level7", "single:8"): 13,
    ("seed2_level7", "pair:9"): 13,
    ("seed2_level7", "straight:3"): 28,
    ("seed2_level7", "bomb:9:4"): 4,
    ("two_wilds", "lead"): 1512,
    ("two_wilds", "single:8"): 42,
    ("two_wilds", "pair:9"): 42,
    ("two_wilds", "straight:3"): 496,
    ("two_wilds", "bomb:9:4"): 19,
}


def perft_table() -> dict[tuple[str, str], int]:
    return {
        (name, tname): len(legal_moves(hand, level, table))
        for name, (level, hand) in PERFT_HANDS.items()
        for tname, table in PERFT_TABLES.items()
    }


@pytest.mark.parametrize("key", sorted(PERFT_COUNTS))
def test_perft_counts(key: tuple[str, str]) -> None:
    name, tname = key
    level, hand = PERFT_HANDS[name]
    moves = legal_moves(hand, level, PERFT_TABLES[tname])
    assert len(moves) == PERFT_COUNTS[key]
    assert len(as_set(moves)) == len(moves)


def independent_moves(hand: list[str], level: str, table: Combo | None) -> set[tuple[tuple[str, ...], Combo]]:
    """All plays of a 27-card hand without the generators: every distinct sub-multiset of at most
    six cards through ``readings``, plus larger sets (bombs: one natural rank and wilds)."""
    wild = "H" + level
    items = sorted(Counter(hand).items(), key=lambda kv: CARDS.index(kv[0]))
    out = set()

    def add(cards: list[str]) -> None:
        for r in readings(cards, level):
            if table is None or beats(r, table, level):
                out.add((sort_cards(cards), r))

    for size in range(1, 7):
        seen = set()
        for combo_ in itertools.combinations(sorted(hand, key=CARDS.index), size):
            if combo_ not in seen:
                seen.add(combo_)
                add(list(combo_))
    for rank in RANKS:
        pool = [(card, m) for card, m in items if (card[1] == rank and card != wild) or card == wild]
        for choice in itertools.product(*(range(m + 1) for _, m in pool)):
            cards = [card for (card, _), k in zip(pool, choice, strict=True) for _ in range(k)]
            if len(cards) >= 7:
                add(cards)
    return out


@pytest.mark.slow
@pytest.mark.parametrize("key", sorted(PERFT_COUNTS))
def test_perft_independent(key: tuple[str, str]) -> None:
    name, tname = key
    level, hand = PERFT_HANDS[name]
    table = PERFT_TABLES[tname]
    assert as_set(legal_moves(hand, level, table)) == independent_moves(hand, level, table)


# ---- properties -------------------------------------------------------------------------------------

small_hands = hands(DECK, 1, 9)
rich_hands = hands([card for card in DECK if card[1] in "345" or card in ("SB", "HR")], 1, 10)
levels = st.sampled_from(RANKS)
tables = st.sampled_from(TABLES)


@settings(max_examples=250, deadline=None)
@given(hand=small_hands, level=levels, table=tables)
def test_legal_moves_equal_brute_force(hand: list[str], level: str, table: Combo | None) -> None:
    assert as_set(legal_moves(hand, level, table)) == brute_force(hand, level, table)


@settings(max_examples=250, deadline=None)
@given(hand=rich_hands, table=tables)
def test_legal_moves_equal_brute_force_dense(hand: list[str], table: Combo | None) -> None:
    """Hands concentrated on three ranks with wilds (level 4) and jokers: bombs, tubes, plates."""
    assert as_set(legal_moves(hand, "4", table)) == brute_force(hand, "4", table)


big_hands = hands(DECK, 10, 27)


@settings(max_examples=60, deadline=None)
@given(hand=big_hands, level=levels, table=tables)
def test_moves_beat_table_and_come_from_hand(hand: list[str], level: str, table: Combo | None) -> None:
    moves = legal_moves(hand, level, table)
    have = Counter(hand)
    assert len(as_set(moves)) == len(moves)
    for m in moves:
        assert not Counter(m.cards) - have
        assert m.combo in readings(m.cards, level)
        assert table is None or beats(m.combo, table, level)


@settings(max_examples=80, deadline=None)
@given(hand=st.one_of(small_hands, rich_hands, big_hands), level=levels, table=st.sampled_from(TABLES[1:]),
       joker_pair=st.booleans())
def test_following_is_leading_filtered_by_beats(hand: list[str], level: str, table: Combo,
                                                joker_pair: bool) -> None:
    """§4: the plays onto a table are exactly the leads whose reading beats it, in the same order
    (the endgame solver derives a hand's plays onto each table from its leads)."""
    leads = legal_moves(hand, level, None, full_house_joker_pair=joker_pair)
    follows = legal_moves(hand, level, table, full_house_joker_pair=joker_pair)
    assert follows == [m for m in leads if beats(m.combo, table, level)]


@settings(max_examples=200, deadline=None)
@given(hand=big_hands, level=levels, table=st.sampled_from(TABLES[1:]))
def test_can_beat_agrees_with_legal_moves(hand: list[str], level: str, table: Combo) -> None:
    assert can_beat(hand, level, table) == bool(legal_moves(hand, level, table))


@settings(max_examples=200, deadline=None)
@given(hand=rich_hands, table=st.sampled_from(TABLES[1:]))
def test_can_beat_agrees_dense(hand: list[str], table: Combo) -> None:
    assert can_beat(hand, "4", table) == bool(legal_moves(hand, "4", table))


@settings(max_examples=100, deadline=None)
@given(hand=hands([card for card in DECK if card[1] in "345" or card in ("SB", "HR")], 5, 10))
def test_no_joker_pair_full_houses_when_forbidden(hand: list[str]) -> None:
    """§10 ``full_house_joker_pair = false``: exactly the full houses carrying jokers disappear."""
    expected = {
        (cards, r)
        for cards, r in brute_force(hand, "4", None)
        if not (r.type == "full_house" and ("SB" in cards or "HR" in cards))
    }
    assert as_set(legal_moves(hand, "4", None, full_house_joker_pair=False)) == expected
