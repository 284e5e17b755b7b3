"""Bot decisions (issue 4 "Bots"): lead small, follow cheaply, bomb when it matters, leave a
winning partner alone, go out when possible, forced tribute and sensible return (rules.md §5, §6)."""

from __future__ import annotations

import random

import pytest

from simulator.bots import Bot
from simulator.groups import Group, make_group

FULL = {"E": 20, "N": 20, "W": 20, "S": 20}


def _bot(hand: list[str], style: str = "balanced", level: str = "2") -> Bot:
    bot = Bot("E", 1.0, style, random.Random(0))
    bot.new_hand(hand, level)
    return bot


def _cards(choice: tuple[Group, tuple[Group, ...]] | None) -> list[str] | None:
    return None if choice is None else sorted(choice[0].cards)


NINES = make_group("pair", "9", 9, ("S9", "C9"), False)
EIGHT = make_group("single", "8", 8, ("S8",), False)


@pytest.mark.parametrize(
    ("style", "table_seat", "counts", "expected"),
    [
        # an aggressive bomber bombs a big play early; a conservative player keeps the bomb
        ("aggressive", "N", {**FULL, "N": 14}, ["C5", "D5", "H5", "S5"]),
        ("conservative", "N", {**FULL, "N": 14}, None),
        # everyone bombs an opponent about to go out
        ("conservative", "N", {**FULL, "N": 3}, ["C5", "D5", "H5", "S5"]),
        # nobody bombs a partner's play
        ("aggressive", "W", {**FULL, "W": 3}, None),
    ],
)
def test_bomb_when_it_matters(style: str, table_seat: str, counts: dict[str, int], expected) -> None:
    hand = ["S5", "H5", "C5", "D5", "S3", "D4", "C6", "HJ", "SK", "DQ", "S8", "C7"]
    assert _cards(_bot(hand, style).follow(NINES, table_seat, counts)) == expected


@pytest.mark.parametrize(
    ("hand", "table", "table_seat", "expected"),
    [
        # follow cheaply: the lowest single that beats, not the ace
        (["S9", "SK", "DA", "C3"], EIGHT, "N", ["S9"]),
        # a partner's trick is left alone (and jie feng is taken by passing)
        (["S9", "SK", "DA", "C3"], EIGHT, "W", None),
        # going out beats everything else, even over a partner
        (["SQ"], EIGHT, "W", ["SQ"]),
        # a planned pair is not split for a single while nobody is close to going out
        (["SQ", "DQ", "C3", "S4", "D6"], EIGHT, "N", None),
    ],
)
def test_follow(hand: list[str], table: Group, table_seat: str, expected) -> None:
    assert _cards(_bot(hand).follow(table, table_seat, FULL)) == expected


@pytest.mark.parametrize(
    ("hand", "counts", "expected"),
    [
        # lead small: the lowest group
        (["S3", "S9", "DK", "S7", "C7"], FULL, ["S3"]),
        # a triple leads with the cheapest pair as a full house
        (["S4", "C4", "D4", "S9", "C9", "SK", "CK", "DA"], FULL, ["C4", "C9", "D4", "S4", "S9"]),
        # an opponent with one card left: no single is led while something else is possible
        (["S3", "S9", "S7", "C7"], {**FULL, "N": 1}, ["C7", "S7"]),
    ],
)
def test_lead(hand: list[str], counts: dict[str, int], expected: list[str]) -> None:
    assert _cards(_bot(hand).lead(counts)) == expected


def test_tribute_and_return() -> None:
    """§6: the tribute is the highest card but not the heart level card; the return a loose low card."""
    bot = _bot(["H7", "SA", "CA", "S3", "D4", "D4", "S5", "S6", "S7", "S8"], level="7")
    assert bot.tribute_card() == "S7"
    bot = _bot(["S3", "C3", "D9", "S5", "S6", "SJ"], level="2")
    assert bot.return_card(["S3", "C3", "D9", "S5", "S6"]) == "S5"  # keeps the pair of 3s
