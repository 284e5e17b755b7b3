"""Bot decisions: lead small, follow cheaply, bomb when it matters, leave a
winning partner alone, go out when possible, forced tribute and sensible return (rules.md §5, §6);
skilled play: feed a partner close to going out, plan to go out."""

from __future__ import annotations

import random

import pytest

from simulator.bots import Bot
from simulator.groups import Group, make_group

FULL = {"E": 20, "N": 20, "W": 20, "S": 20}


def _bot(hand: list[str], style: str = "balanced", level: str = "2", skill: float = 1.0) -> Bot:
    bot = Bot("E", skill, style, random.Random(0))
    bot.new_hand(hand, level)
    return bot


def _cards(choice: tuple[Group, tuple[Group, ...]] | None) -> list[str] | None:
    return None if choice is None else sorted(choice[0].cards)


NINES = make_group("pair", "9", 9, ("S9", "C9"), False)
EIGHT = make_group("single", "8", 8, ("S8",), False)
ACES = make_group("pair", "A", 14, ("SA", "CA"), False)


BOMB = ["C5", "D5", "H5", "S5"]
SPREAD = ["S3", "D4", "C6", "HJ", "SK", "DQ", "S8", "C7"]


@pytest.mark.parametrize(
    ("style", "table_seat", "counts", "expected"),
    [
        # no threat: a bomb is kept by every style (rules.md §4: it beats the pair, but need not)
        ("aggressive", "N", {**FULL, "N": 14}, None),
        ("conservative", "N", {**FULL, "N": 14}, None),
        # an opponent who would lead next with 9 cards: the aggressive style bombs, the others wait
        ("aggressive", "N", {**FULL, "N": 9}, BOMB),
        ("balanced", "N", {**FULL, "N": 9}, None),
        ("conservative", "N", {**FULL, "N": 9}, None),
        # everyone bombs an opponent about to go out
        ("conservative", "N", {**FULL, "N": 3}, BOMB),
        # ... or whose partner (who gets the lead by jie feng, §5.6) is about to, when the player is out
        ("conservative", "N", {**FULL, "N": 0, "S": 3}, BOMB),
        # nobody bombs a partner's play
        ("aggressive", "W", {**FULL, "W": 3}, None),
    ],
)
def test_bomb_when_it_matters(style: str, table_seat: str, counts: dict[str, int], expected) -> None:
    hand = ["S5", "H5", "C5", "D5", *SPREAD]
    assert _cards(_bot(hand, style).follow(NINES, table_seat, counts)) == expected


@pytest.mark.parametrize(
    ("hand", "expected"),
    [
        # one plain play left after the bomb: bomb to win the lead and go out
        (["S5", "H5", "C5", "D5", "SK", "DK"], BOMB),
        # two plain plays and a second bomb: a skilled player sees the run-out
        (["S5", "H5", "C5", "D5", "S9", "H9", "C9", "D9", "SK", "DK", "S3"], BOMB),
        # many plain plays: keep the bomb
        (["S5", "H5", "C5", "D5", *SPREAD], None),
    ],
)
def test_bomb_to_run_out(hand: list[str], expected) -> None:
    """A bomb wins the lead back (rules.md §4, §5.4) when the rest of the hand then runs out."""
    assert _cards(_bot(hand, "conservative").follow(ACES, "N", FULL)) == expected


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
        (["S3", "S9", "S7", "C7", "DJ", "CJ"], {**FULL, "N": 1}, ["C7", "S7"]),
        # ... nor a pair into an opponent holding two
        (["S3", "S9", "S7", "C7", "DJ"], {**FULL, "N": 2}, ["S3"]),
        # a partner with one card left is fed the lowest single
        (["S3", "S9", "S7", "C7", "DJ"], {**FULL, "W": 1}, ["S3"]),
        # two plain groups left: the stronger one first, to keep the lead for the last
        (["S3", "SK", "CK"], FULL, ["CK", "SK"]),
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


def test_careless_returns_vary() -> None:
    """§6: a skill-0 player returns any legal card, not always the least useful one."""
    legal = ["S3", "C3", "D9", "S5", "S6"]
    bot = _bot([*legal, "SJ"], skill=0.0)
    returned = {bot.return_card(legal) for _ in range(40)}
    assert returned <= set(legal) and len(returned) >= 3


def test_low_skill_overtakes_partner_sometimes() -> None:
    """A skill-0 player sometimes beats its partner's winning play; a skill-1 player never does."""
    hand = ["S9", "SK", "DA", "C3", *SPREAD]
    low = _bot(hand, skill=0.0)
    assert any(low.follow(EIGHT, "W", FULL) is not None for _ in range(40))
    high = _bot(hand, skill=1.0)
    assert all(high.follow(EIGHT, "W", FULL) is None for _ in range(40))
