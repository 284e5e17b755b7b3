"""Card notation, the double deck, single-card order, hand multisets and tribute helpers
(rules.md §1, §2, §6; events.md "Cards")."""

from __future__ import annotations

from collections import Counter

import pytest

from replay import (
    CARDS,
    DECK,
    RANKS,
    SEATS,
    display_order,
    has_cards,
    highest_tribute_card,
    is_card,
    is_wild,
    parse_card,
    remove_cards,
    single_order,
    sort_cards,
    to_counter,
    tribute_candidates,
    wilds_in,
)


def test_card_set_and_deck() -> None:
    """§1: 54 distinct cards, each twice in the 108-card double deck."""
    assert len(CARDS) == 54 and len(set(CARDS)) == 54
    assert CARDS[0] == "S2" and CARDS[12] == "SA" and CARDS[-2:] == ("SB", "HR")
    assert len(DECK) == 108 and Counter(DECK) == dict.fromkeys(CARDS, 2)
    assert list(DECK) == sorted(DECK, key=CARDS.index)
    assert SEATS == ("E", "N", "W", "S")
    assert "".join(RANKS) == "23456789TJQKA"


@pytest.mark.parametrize("card", ["S2", "HT", "CA", "DK", "SB", "HR"])
def test_valid_cards(card: str) -> None:
    assert is_card(card)
    assert CARDS[parse_card(card)] == card


@pytest.mark.parametrize("bad", ["S1", "S10", "h2", "XB", "SR", "HB", "", "2S", None])
def test_invalid_cards(bad: object) -> None:
    assert not is_card(bad)
    with pytest.raises(ValueError, match="invalid card"):
        parse_card(bad)


ORDER = [
    # §2 single-card order at a level: big joker > small joker > level > A > K … > 2
    ("7", ["HR", "SB", "S7", "SA", "SK", "SQ", "SJ", "ST", "S9", "S8", "S6", "S5", "S4", "S3", "S2"]),
    ("A", ["HR", "SB", "DA", "DK", "DQ", "DJ", "DT", "D9", "D8", "D7", "D6", "D5", "D4", "D3", "D2"]),
    ("2", ["HR", "SB", "C2", "CA", "CK", "CQ", "CJ", "CT", "C9", "C8", "C7", "C6", "C5", "C4", "C3"]),
]


@pytest.mark.parametrize(("level", "high_to_low"), ORDER)
def test_single_order(level: str, high_to_low: list[str]) -> None:
    values = [single_order(card, level) for card in high_to_low]
    assert values == sorted(values, reverse=True) and len(set(values)) == len(values)


def test_suits_never_matter_in_single_order() -> None:
    assert {single_order(s + "9", "2") for s in "SHCD"} == {single_order("S9", "2")}


@pytest.mark.parametrize(
    ("cards", "level", "n"), [("H7 H7 S7", "7", 2), ("H7 S7", "7", 1), ("H2 H3", "7", 0), ("HA", "A", 1)]
)
def test_wilds_in(cards: str, level: str, n: int) -> None:
    """§2: the wilds are the two heart level cards."""
    assert wilds_in(cards, level) == n
    assert is_wild(f"H{level}", level) and not is_wild(f"S{level}", level)


def test_hand_multiset_helpers() -> None:
    hand = to_counter("S3 S3 H4 SB")
    assert has_cards(hand, ["S3", "S3"]) and not has_cards(hand, ["S3", "S3", "S3"])
    remove_cards(hand, ["S3", "SB"])
    assert hand == Counter({"S3": 1, "H4": 1})
    with pytest.raises(ValueError, match="cards not in hand: H4 D9"):
        remove_cards(hand, ["H4", "H4", "D9"])
    assert hand == Counter({"S3": 1, "H4": 1})  # unchanged after a failed removal


def test_sort_cards_canonical() -> None:
    assert sort_cards(["HR", "D2", "S9", "SB", "H3"]) == ("S9", "H3", "D2", "SB", "HR")


@pytest.mark.parametrize(
    ("cards", "level", "shown"),
    [
        # §1 notation, no level: 2 … A, then the small and the big joker; suits S H C D in a rank
        ("HR D2 S9 SB H3 S2", None, ["S2", "D2", "H3", "S9", "SB", "HR"]),
        # §2 at level 7: the level rank above A, the wild heart 7 the last of them, then the jokers
        ("HR S7 SA H7 D2 SB C7 S8 S6", "7", ["D2", "S6", "S8", "SA", "S7", "C7", "H7", "SB", "HR"]),
        # §2 at level A: A is the level rank, its place stays after K
        ("HA SA S2 DA SK", "A", ["S2", "SK", "SA", "DA", "HA"]),
    ],
)
def test_display_order(cards: str, level: str | None, shown: list[str]) -> None:
    """The order hands are logged and shown in: low to high by the single-card order (§2)."""
    assert display_order(cards.split(), level) == shown
    if level is not None:
        strength = [single_order(c, level) for c in shown]
        assert strength == sorted(strength)


def test_display_order_refuses_an_unknown_level() -> None:
    with pytest.raises(ValueError, match="invalid level 'X'"):
        display_order(["S2"], "X")


@pytest.mark.parametrize("level", [None, "2", "7", "A"])
def test_is_wild_needs_a_level(level: str | None) -> None:
    """§2: the heart level card is wild; without a level no card is."""
    assert is_wild("H7", level) is (level == "7")


TRIBUTE = [
    # (cite, hand, level, highest card, all candidates)
    ("§6 big joker", "S3 HR SB D9", "2", "HR", {"HR"}),
    ("§6 level card above A", "SA C7 S3", "7", "C7", {"C7"}),
    ("§6 heart level card excluded", "H7 SA DA S3", "7", "SA", {"SA", "DA"}),
    ("§6 heart level excluded, other level card counts", "H7 D7 SA", "7", "D7", {"D7"}),
    ("§6 suits do not matter: first canonical suit", "DK CK HK S3", "2", "HK", {"HK", "CK", "DK"}),
]


@pytest.mark.parametrize(
    ("cite", "hand", "level", "card", "candidates"), TRIBUTE, ids=[t[0] for t in TRIBUTE]
)
def test_tribute(cite: str, hand: str, level: str, card: str, candidates: set[str]) -> None:
    assert highest_tribute_card(hand, level) == card, cite
    assert tribute_candidates(hand, level) == candidates, cite


def test_tribute_only_wilds() -> None:
    assert tribute_candidates("H7 H7", "7") == set()
    with pytest.raises(ValueError, match="no card can be paid"):
        highest_tribute_card("H7 H7", "7")
