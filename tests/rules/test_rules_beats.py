"""Which combination beats which (rules.md §4; huaian Art. 8; national Art. 4; bcta 6.1.2)."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from rules_strategies import hands

from replay import (
    DECK,
    RANKS,
    TYPES,
    Combo,
    beats,
    bomb_class,
    make_combo,
    rank_value,
    readings,
    strength_class,
)
from replay.combos import beat_key, key_beats


def c(spec: str) -> Combo:
    """``type:rank[:size]``."""
    parts = spec.split(":")
    return make_combo(parts[0], parts[1], int(parts[2]) if len(parts) > 2 else None)


# (cite, level, play, table, expected)
ORDER = [
    # class ladder: joker bomb > 6+ bombs > straight flush > 5-bomb > 4-bomb > normal
    ("§4.1 joker bomb beats the biggest bomb", "2", "joker_bomb:JOKER", "bomb:A:10", True),
    ("§4.1 joker bomb beats a straight flush", "2", "joker_bomb:JOKER", "straight_flush:T", True),
    ("§4.1 nothing beats a joker bomb", "2", "bomb:A:10", "joker_bomb:JOKER", False),
    ("§4.1 joker bomb does not beat itself", "2", "joker_bomb:JOKER", "joker_bomb:JOKER", False),
    ("§4.2 6-bomb beats straight flush", "2", "bomb:3:6", "straight_flush:T", True),
    ("§4.3 straight flush below 6-bomb", "2", "straight_flush:T", "bomb:3:6", False),
    ("§4.3 straight flush beats 5-bomb", "2", "straight_flush:A", "bomb:2:5", True),
    ("§4.3 5-bomb below straight flush", "2", "bomb:2:5", "straight_flush:A", False),
    ("§4.4 5-bomb beats any 4-bomb", "2", "bomb:3:5", "bomb:2:4", True),
    ("§4.5 4-bomb below any 5-bomb", "2", "bomb:2:4", "bomb:3:5", False),
    ("§4.5 4-bomb beats a normal play", "2", "bomb:3:4", "single:R", True),
    ("§4.5 4-bomb beats a straight", "2", "bomb:3:4", "straight:T", True),
    ("§4.6 normal never beats a bomb", "2", "single:R", "bomb:3:4", False),
    # among bombs: size, then rank with the level rank above A
    ("§4 bombs more cards beat fewer", "2", "bomb:3:7", "bomb:A:6", True),
    ("§4 bombs fewer cards lose", "2", "bomb:A:6", "bomb:3:7", False),
    ("§4 same-size bombs by rank", "2", "bomb:K:4", "bomb:Q:4", True),
    ("§4 same-size bombs equal rank does not beat", "2", "bomb:K:4", "bomb:K:4", False),
    ("§4 level bomb above A bomb", "7", "bomb:7:4", "bomb:A:4", True),
    ("§4 A bomb below level bomb", "7", "bomb:A:4", "bomb:7:4", False),
    ("§4 level bomb above A among 6-bombs", "5", "bomb:5:6", "bomb:A:6", True),
    ("§4 straight flushes by rank", "2", "straight_flush:4", "straight_flush:3", True),
    ("§4 A-low straight flush is the lowest", "2", "straight_flush:A", "straight_flush:2", False),
    ("§4 TJQKA straight flush is the highest", "2", "straight_flush:T", "straight_flush:9", True),
    # normal plays: same type, strictly higher; single order with the level rank above A
    ("§4 single higher rank", "2", "single:9", "single:8", True),
    ("§4 single equal rank does not beat", "2", "single:9", "single:9", False),
    ("§2 level single above A", "9", "single:9", "single:A", True),
    ("§2 A single below level single", "9", "single:A", "single:9", False),
    ("§2 small joker above level single", "9", "single:B", "single:9", True),
    ("§2 big joker above small joker", "9", "single:R", "single:B", True),
    ("§2 level 2 single above K", "2", "single:2", "single:K", True),
    ("§2 natural 2 lowest single when not level", "5", "single:2", "single:3", False),
    ("§4 pair of big jokers above small", "2", "pair:R", "pair:B", True),
    ("§4 pair of level cards above pair of A", "3", "pair:3", "pair:A", True),
    ("§4 triple level above A", "K", "triple:K", "triple:A", True),
    ("§4 full house compares the triple", "2", "full_house:9", "full_house:8", True),
    ("§4 full house level triple above A", "8", "full_house:8", "full_house:A", True),
    ("§4 different types never beat", "2", "pair:A", "single:3", False),
    ("§4 tube does not beat plate", "2", "tube:Q", "plate:3", False),
    ("§4 straight does not beat single", "2", "straight:T", "single:3", False),
    # sequences: natural order, level cards at natural rank, A-low lowest
    ("§3 straight TJQKA highest", "2", "straight:T", "straight:9", True),
    ("§3 straight A2345 lowest", "2", "straight:A", "straight:2", False),
    ("§3 straight 23456 above A2345", "2", "straight:2", "straight:A", True),
    ("§3 level card natural in straights", "7", "straight:8", "straight:7", True),
    ("§3 tube QQKKAA above JJQQKK", "2", "tube:Q", "tube:J", True),
    ("§3 tube AA2233 lowest", "2", "tube:A", "tube:2", False),
    ("§3 plate KKKAAA highest", "2", "plate:K", "plate:Q", True),
    ("§3 plate AAA222 lowest", "2", "plate:A", "plate:2", False),
]


@pytest.mark.parametrize(("cite", "level", "play", "table", "expected"), ORDER, ids=[o[0] for o in ORDER])
def test_ordering_table(cite: str, level: str, play: str, table: str, expected: bool) -> None:
    assert beats(c(play), c(table), level) is expected, cite


@pytest.mark.parametrize(
    ("combo", "klass"),
    [
        ("bomb:9:4", "bomb4"),
        ("bomb:9:5", "bomb5"),
        ("bomb:9:6", "bomb6plus"),
        ("bomb:9:10", "bomb6plus"),
        ("straight_flush:9", "straight_flush"),
        ("joker_bomb:JOKER", "joker_bomb"),
        ("straight:9", None),
        ("full_house:9", None),
        ("single:R", None),
    ],
)
def test_bomb_class(combo: str, klass: str | None) -> None:
    assert bomb_class(c(combo)) == klass


def test_same_suit_run_always_beats_a_straight_as_flush() -> None:
    """§3: five same-suit naturals in sequence are a straight flush, so they bomb any straight."""
    (only,) = readings("S3 S4 S5 S6 S7", "2")
    assert only == c("straight_flush:3")
    assert beats(only, c("straight:T"), "2")


card_sets = hands(DECK, 1, 8)


@settings(max_examples=300, deadline=None)
@given(a=card_sets, b=card_sets, level=st.sampled_from(RANKS))
def test_beats_is_a_strict_order(a: list[str], b: list[str], level: str) -> None:
    """§4: no reading beats itself and no two readings beat each other."""
    for x in readings(a, level):
        assert not beats(x, x, level)
        for y in readings(b, level):
            assert not (beats(x, y, level) and beats(y, x, level))


# (cite, level, reading, its beat_key: strength class, family, order value)
KEYS = [
    ("§4 class 0: a single compares with singles, level rank above A", "7", "single:7", (0, "single", 13)),
    ("§4 class 0: jokers above the level rank", "7", "pair:R", (0, "pair", 15)),
    ("§3 sequences by their lowest card, A-low first", "2", "straight:A", (0, "straight", 1)),
    ("§4.5 four-card bomb: class 1, rank value", "9", "bomb:9:4", (1, "", 13)),
    ("§4.4 five-card bomb: class 2", "2", "bomb:3:5", (2, "", 1)),
    ("§4.3 straight flush: class 3, lowest card", "2", "straight_flush:T", (3, "", 10)),
    ("§4.2 bombs of six or more: size before rank", "2", "bomb:3:7", (4, "", 7 * 32 + 1)),
    ("§4.1 joker bomb: class 5", "2", "joker_bomb:JOKER", (5, "", 16)),
]


@pytest.mark.parametrize(("cite", "level", "reading", "key"), KEYS, ids=[k[0] for k in KEYS])
def test_beat_key_table(cite: str, level: str, reading: str, key: tuple[int, str, int]) -> None:
    assert beat_key(c(reading), level) == key, cite


def _all_readings() -> list[Combo]:
    """Every reading there is: each type at each of its ranks, bombs at every size 4–10."""
    out = []
    for type_ in TYPES:
        for rank in (*RANKS, "B", "R", "JOKER"):
            for size in range(4, 11) if type_ == "bomb" else (None,):
                try:
                    out.append(make_combo(type_, rank, size))
                except ValueError:
                    continue
    return out


ALL_READINGS = _all_readings()



def _reference_beats(play: Combo, table: Combo, level: str) -> bool:
    """§4 spelled out case by case, independently of the keys."""
    cp, ct = strength_class(play), strength_class(table)
    if cp != ct:
        return cp > ct
    if cp == 5:
        return False
    if cp == 0 and play.type != table.type:
        return False
    if cp == 4 and play.size != table.size:
        return play.size > table.size
    return rank_value(play, level) > rank_value(table, level)


@settings(max_examples=400, deadline=None)
@given(
    play=st.sampled_from(ALL_READINGS), table=st.sampled_from(ALL_READINGS), level=st.sampled_from(RANKS)
)
def test_beats_through_keys_follows_section_4(play: Combo, table: Combo, level: str) -> None:
    """§4: comparing precomputed keys (``beats`` does, and the replayer once per trick) gives the
    case-by-case answer: class, then type (normal plays), size (bombs of six or more), rank."""
    assert key_beats(beat_key(play, level), beat_key(table, level)) is _reference_beats(play, table, level)
    assert beats(play, table, level) is _reference_beats(play, table, level)
