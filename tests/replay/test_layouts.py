"""Layouts of the single-dummy review after a tribute when a seat is already out: the cards barred
from the tribute's payer (rules.md §6) go to the seats that may hold them before the others fill
those seats, so a view the true layout satisfies always admits a layout."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from replay.layouts import sample_layouts, view_of
from replay.rulesets import BUILTIN
from replay.solver import Position


def test_a_barred_card_finds_the_one_seat_left_that_may_hold_it() -> None:
    """N received an A from S at level 4, so S holds nothing above an A; W is out, E holds 3
    cards, among them the big joker SB (a simulated league's deal, late in its play). SB can only
    be E's, whatever order the sampler meets the cards in."""
    position = Position(
        hands={"E": ["C8", "S8", "SB"], "N": ["H5", "HJ", "HJ", "SJ"], "W": [],
               "S": ["C5", "C6", "D5", "D6", "S5", "S9"]},
        level="4", ruleset=BUILTIN["bcta"], turn="N", out=("W",),
    )
    view = view_of(position, tribute_from=("S", "SA"))
    assert view.barred == {"S": frozenset({"SB"})}
    for layout in sample_layouts(position, view, 64, seed=7):
        assert "SB" in layout.hands["E"] and len(layout.hands["E"]) == 3 and not layout.hands["W"]


@given(seed=st.integers(min_value=0, max_value=2**32), e_cards=st.integers(min_value=1, max_value=4))
def test_the_true_layout_is_never_ruled_out(seed: int, e_cards: int) -> None:
    """Whatever the seed and however few places E has left, the sampler deals every barred card
    to E (the one seat that may hold them) and the other cards to both seats at their counts."""
    ordinary = ["C3", "C5", "C6", "D5", "D6", "S5", "S9", "D7"]
    barred = ["SB", "HR", "C4", "D4"][:e_cards]
    position = Position(
        hands={"E": barred, "N": ["H5", "HJ"], "W": [], "S": ordinary[: 8 - e_cards]},
        level="4", ruleset=BUILTIN["bcta"], turn="N", out=("W",),
    )
    view = view_of(position, tribute_from=("S", "SA"))
    for layout in sample_layouts(position, view, 8, seed):
        assert sorted(layout.hands["E"]) == sorted(barred)
        assert len(layout.hands["S"]) == 8 - e_cards
