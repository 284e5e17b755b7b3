"""Readings of a set of cards (rules.md §3), with the examples of §2–§3 and of the Huai'an rule
book (seeds/000: Art. 4 card types, Art. 7 level cards and wild cards) as table-driven cases."""

from __future__ import annotations

import itertools

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from rules_strategies import hands

from replay import DECK, RANKS, Combo, make_combo, readings


def _r(spec: str) -> list[Combo]:
    """Readings written as ``type:rank[:size]`` separated by spaces, e.g. ``pair:8 bomb:7:4``."""
    out = []
    for item in spec.split():
        parts = item.split(":")
        out.append(make_combo(parts[0], parts[1], int(parts[2]) if len(parts) > 2 else None))
    return out


CASES = [
    # (cite, level, cards, expected readings weakest first)
    # §3 examples at level 2 (H2 is wild)
    ("§3 wild pair", "2", "H2 S8", "pair:8"),
    ("§3 wild never a joker", "2", "H2 SB", ""),
    ("§3 wild never a joker", "2", "H2 HR", ""),
    ("§3 wild bomb", "2", "H2 H2 S7 S7", "bomb:7:4"),
    ("§3 wild straight mixed suits", "2", "H2 S5 D6 S7 C8", "straight:4 straight:5"),
    ("§3 full house either way", "2", "H2 SK SK S6 S6", "full_house:6 full_house:K"),
    ("§3 plate or tubes", "2", "H2 H2 S7 S7 S8 S8", "tube:6 tube:7 plate:7"),
    (
        "§3 wild straight flush",
        "2",
        "H2 S3 S4 S5 S6",
        "straight:2 straight:3 straight_flush:2 straight_flush:3",
    ),
    # §3 shapes
    ("§3 single", "2", "D9", "single:9"),
    ("§3 single small joker", "2", "SB", "single:B"),
    ("§3 single big joker", "5", "HR", "single:R"),
    ("§3 pair", "2", "D9 S9", "pair:9"),
    ("§3 joker pair small", "2", "SB SB", "pair:B"),
    ("§3 joker pair big", "2", "HR HR", "pair:R"),
    ("§3 small+big is no pair", "2", "SB HR", ""),
    ("§3 mixed ranks no pair", "2", "S9 ST", ""),
    ("§3 triple", "2", "D9 S9 C9", "triple:9"),
    ("§3 no joker triple", "2", "SB SB HR", ""),
    ("§3 full house", "2", "S9 D9 C9 SJ HJ", "full_house:9"),
    ("§3 full house joker pair", "2", "S9 D9 C9 SB SB", "full_house:9"),
    ("§3 full house big joker pair", "2", "S9 D9 C9 HR HR", "full_house:9"),
    ("§3 triple + mixed jokers no", "2", "S9 D9 C9 SB HR", ""),
    ("§3 triple + two singles no", "2", "S9 D9 C9 SJ HQ", ""),
    ("§3 straight", "2", "S3 H4 C5 D6 S7", "straight:3"),
    ("§3 straight A-low", "5", "SA H2 C3 D4 S5", "straight:A"),
    ("§3 straight A-high", "5", "ST HJ CQ DK SA", "straight:T"),
    ("§3 no wrap JQKA2", "5", "SJ HQ CK DA S2", ""),
    ("§3 straight exactly five", "5", "S3 H4 C5 D6 S7 S8", ""),
    ("§3 same-suit run is a straight flush", "2", "S3 S4 S5 S6 S7", "straight_flush:3"),
    ("§3 straight flush A-high", "2", "HT HJ HQ HK HA", "straight_flush:T"),
    ("§3 straight flush A-low", "9", "DA D2 D3 D4 D5", "straight_flush:A"),
    ("§3 tube", "5", "S2 H2 C3 D3 S4 H4", "tube:2"),
    ("§3 tube A-low", "5", "SA HA C2 D2 S3 H3", "tube:A"),
    ("§3 tube A-high", "5", "SQ HQ CK DK SA HA", "tube:Q"),
    ("§3 no tube wrap", "5", "SK HK CA DA S2 H2", ""),
    ("§3 plate", "5", "S3 H3 C3 D4 S4 H4", "plate:3"),
    ("§3 plate A-low AAA222", "5", "SA HA CA D2 S2 H2", "plate:A"),
    ("§3 plate A-high KKKAAA", "5", "SK HK CK DA SA HA", "plate:K"),
    ("§3 no plate wrap", "5", "SA HA CA D2 S2 H2 S3 H3 C3", ""),
    ("§3 bomb 4", "2", "S9 H9 C9 D9", "bomb:9:4"),
    ("§3 bomb 8 natural", "2", "S9 H9 C9 D9 S9 H9 C9 D9", "bomb:9:8"),
    ("§3 bomb 10 = 8 natural + 2 wild", "2", "S9 H9 C9 D9 S9 H9 C9 D9 H2 H2", "bomb:9:10"),
    ("§3 bomb of level cards", "7", "S7 C7 D7 S7", "bomb:7:4"),
    ("§3 joker bomb", "2", "SB SB HR HR", "joker_bomb:JOKER"),
    ("§3 three jokers nothing", "2", "SB SB HR", ""),
    ("§3 no five-joker play", "2", "SB SB HR HR H2", ""),
    ("§3 no tube of four pairs", "5", "S6 H6 S7 H7 S8 H8 S9 H9", ""),
    ("§3 no two pairs", "5", "S6 H6 S7 H7", ""),
    ("§3 three triples no plate", "5", "S6 H6 C6 S7 H7 C7 S8 H8 C8", ""),
    # §2 level cards sit at their natural rank inside sequences
    ("§2 level card natural in straight", "7", "S5 H6 D7 C8 S9", "straight:5"),
    ("§2 level card never above A in sequence", "2", "ST HJ CQ DK S2", ""),
    ("§2 level A is A-low or A-high in straight", "A", "SA H2 C3 D4 S5", "straight:A"),
    ("§2 lone wild reads as the level card", "9", "H9", "single:9"),
    ("§2 two wilds read as a level pair", "9", "H9 H9", "pair:9"),
    ("§2 wild + natural level card", "9", "H9 S9", "pair:9"),
    ("§2 wild + natural level cards bomb", "9", "H9 H9 S9 D9", "bomb:9:4"),
    # Huai'an Art. 4: tubes and plates with A and the level card 2
    ("huaian Art.4 KKAA22 not a tube at level 2", "2", "SK HK SA HA S2 D2", ""),
    ("huaian Art.4 AA2233 tube at level 2", "2", "SA HA S2 D2 S3 H3", "tube:A"),
    ("huaian Art.4 QQKKAA tube at level 2", "2", "SQ HQ SK HK SA HA", "tube:Q"),
    ("huaian Art.4 JJQQKKAA not a tube", "2", "SJ HJ SQ HQ SK HK SA HA", ""),
    ("huaian Art.4 JJJQQQKKK not a plate", "2", "SJ HJ CJ SQ HQ CQ SK HK CK", ""),
    ("huaian Art.4 AAA222 plate at level 2", "2", "SA HA CA S2 D2 C2", "plate:A"),
    ("huaian Art.4 JQKA2 not a straight at level 2", "2", "SJ HQ CK DA S2", ""),
    ("huaian Art.4 A2345 straight at level 2", "2", "SA C2 C3 D4 S5", "straight:A"),
    # Huai'an Art. 7 §2: the wild readings listed at level 2
    ("huaian Art.7.1 C8 H2 pair of 8", "2", "C8 H2", "pair:8"),
    ("huaian Art.7.2 KK66+H2", "2", "SK DK S6 C6 H2", "full_house:6 full_house:K"),
    ("huaian Art.7.3 666+H2 bomb", "2", "S6 D6 C6 H2", "bomb:6:4"),
    ("huaian Art.7.4 55677+H2 tube", "2", "S5 D5 S6 C7 D7 H2", "tube:5"),
    ("huaian Art.7.4 55667+H2 tube", "2", "S5 D5 S6 C6 D7 H2", "tube:5"),
    ("huaian Art.7.5 4568+H2 straight", "2", "S4 D5 C6 D8 H2", "straight:4"),
    ("huaian Art.7.5 4567+H2 straight", "2", "S4 D5 C6 D7 H2", "straight:3 straight:4"),
    (
        "huaian Art.7.6 789J(D)+H2 straight flush",
        "2",
        "D7 D8 D9 DJ H2",
        "straight:7 straight_flush:7",
    ),
    (
        "huaian Art.7.6 789T(D)+H2 straight flush",
        "2",
        "D7 D8 D9 DT H2",
        "straight:6 straight:7 straight_flush:6 straight_flush:7",
    ),
    ("huaian Art.7.7 33344+H2 plate", "2", "S3 D3 C3 S4 D4 H2", "plate:3"),
    ("huaian Art.7.7 33444+H2 plate", "2", "S3 D3 C4 S4 D4 H2", "plate:3"),
]


@pytest.mark.parametrize(
    ("cite", "level", "cards", "expected"), CASES, ids=[c[0] + " " + c[2] for c in CASES]
)
def test_readings_table(cite: str, level: str, cards: str, expected: str) -> None:
    assert readings(cards, level) == _r(expected), cite


def test_readings_accepts_list_and_string() -> None:
    assert readings(["H2", "S8"], "2") == readings("H2 S8", "2") == _r("pair:8")


@pytest.mark.parametrize("bad", ["S1", "X9", "s9", "SBB", "", "BJ", "HB"])
def test_invalid_card_raises(bad: str) -> None:
    with pytest.raises(ValueError, match="invalid card"):
        readings(["S9", bad], "2")


def test_invalid_level_raises() -> None:
    with pytest.raises(ValueError, match="invalid level"):
        readings("S9", "1")


def test_empty_and_oversized_sets_are_no_combination() -> None:
    assert readings([], "2") == []
    assert readings("S9 H9 C9 D9 S9 H9 C9 D9 H2 H2 SB", "2") == []


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"type": "quad", "rank": "9", "size": 4}, "invalid combination type"),
        ({"type": "pair", "rank": "1", "size": 2}, "invalid rank"),
        ({"type": "straight", "rank": "J", "size": 5}, "invalid rank"),
        ({"type": "triple", "rank": "B", "size": 3}, "invalid rank"),
        ({"type": "pair", "rank": "9", "size": 3}, "invalid size"),
        ({"type": "bomb", "rank": "9", "size": 11}, "invalid size"),
        ({"type": "bomb", "rank": "9", "size": 3}, "invalid size"),
    ],
)
def test_combo_validates_fields(kwargs: dict, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        Combo(**kwargs)


def test_combo_constructible_from_log_reading() -> None:
    assert Combo(type="pair", rank="9", size=2) in readings("H2 S9", "2")
    assert make_combo("straight", "A") == Combo("straight", "A", 5)


card_sets = hands(DECK, 1, 10)
levels = st.sampled_from(RANKS)


@settings(max_examples=300, deadline=None)
@given(cards=card_sets, level=levels, data=st.data())
def test_readings_do_not_depend_on_order(cards: list[str], level: str, data: st.DataObject) -> None:
    shuffled = data.draw(st.permutations(cards))
    assert readings(shuffled, level) == readings(cards, level)


@settings(max_examples=300, deadline=None)
@given(cards=card_sets, level=levels)
def test_readings_distinct_and_sized(cards: list[str], level: str) -> None:
    found = readings(cards, level)
    assert len(set(found)) == len(found)
    assert all(c.size == len(cards) for c in found)


# ---- an independent oracle: substitute every card for each wild and classify natural cards ----------

SEQ = "A23456789TJQKA"


def _natural(cards: list[str]) -> set[tuple[str, str, int]]:
    """Readings (type, rank, size) of cards holding no wild, straight from the §3 table."""
    n = len(cards)
    ranks = [c[1] for c in cards]
    suits = {c[0] for c in cards}
    jokers = [c for c in cards if c in ("SB", "HR")]
    out: set[tuple[str, str, int]] = set()
    counts = sorted(((ranks.count(r), r) for r in set(ranks)), reverse=True)
    if jokers:
        if n <= 2 and len(set(cards)) == 1:
            out.add((("single", "pair")[n - 1], "B" if cards[0] == "SB" else "R", n))
        if sorted(cards) == ["HR", "HR", "SB", "SB"]:
            out.add(("joker_bomb", "JOKER", 4))
        if (
            n == 5
            and len(set(jokers)) == 1
            and len(jokers) == 2
            and counts[0][0] == 3
            and counts[0][1] not in "BR"
        ):
            out.add(("full_house", counts[0][1], 5))
        return out
    if len(counts) == 1 and n <= 3:
        out.add((("single", "pair", "triple")[n - 1], ranks[0], n))
    if len(counts) == 1 and 4 <= n <= 10:
        out.add(("bomb", ranks[0], n))
    if n == 5 and [k for k, _ in counts] == [3, 2]:
        out.add(("full_house", counts[0][1], 5))
    for typ, width, length in (("straight", 1, 5), ("tube", 2, 3), ("plate", 3, 2)):
        if n == width * length and all(k == width for k, _ in counts):
            for start in range(0, 15 - length):
                if sorted(SEQ[start : start + length]) == sorted(set(ranks)):
                    if typ == "straight":
                        typ_ = "straight_flush" if len(suits) == 1 else "straight"
                        out.add((typ_, SEQ[start], 5))
                    else:
                        out.add((typ, SEQ[start], n))
    return out


def oracle(cards: list[str], level: str) -> set[tuple[str, str, int]]:
    """§2–§3 by brute force: every wild replaced by every non-joker card (a lone wild is itself)."""
    wild = "H" + level
    naturals = [c for c in cards if c != wild]
    k = len(cards) - len(naturals)
    if not naturals:
        return _natural(cards)
    out: set[tuple[str, str, int]] = set()
    substitutes = [s + r for s in "SHCD" for r in RANKS]
    for subs in itertools.combinations_with_replacement(substitutes, k):
        out |= _natural(naturals + list(subs))
    return out


@settings(max_examples=400, deadline=None)
@given(cards=hands(DECK, 1, 7), level=levels)
def test_readings_equal_substitution_oracle(cards: list[str], level: str) -> None:
    assert {(c.type, c.rank, c.size) for c in readings(cards, level)} == oracle(cards, level)


dense_cards = hands([c for c in DECK if c[1] in "789T" or c in ("SB", "HR")], 1, 8)


@settings(max_examples=400, deadline=None)
@given(cards=dense_cards)
def test_readings_equal_substitution_oracle_dense(cards: list[str]) -> None:
    """Cards on four adjacent ranks plus jokers at level 8 (wild H8): sequences, bombs, full houses."""
    assert {(c.type, c.rank, c.size) for c in readings(cards, "8")} == oracle(cards, "8")
