"""Seat arithmetic (rules.md §1): play order, partners and teams, as the engine uses them.

Play goes counter-clockwise E → N → W → S → E; partners sit opposite (E–W, N–S). The words
themselves are defined once in ``schemas.vocabulary``.
"""

from __future__ import annotations

from collections.abc import Mapping

from schemas.vocabulary import NEXT, OTHER_TEAM, PARTNER, PREV, SEATS, TEAM, TEAM_SEATS, TEAMS

__all__ = ["NEXT", "OTHER_TEAM", "PARTNER", "PREV", "SEATS", "TEAM", "TEAMS", "TEAM_SEATS", "next_leader",
           "next_to_play"]


def next_leader(table_seat: str, passes: int, counts: Mapping[str, int], out: int) -> str | None:
    """Who leads the next trick after ``passes`` passes in a row on ``table_seat``'s play, with
    ``out`` players out and ``counts`` cards left per seat; None while the trick goes on.

    The trick ends when every other player still holding cards has passed (rules.md §5.4) and
    its last player leads; one who went out with that play hands the lead to the partner
    (接风, §5.6).
    """
    if passes < 4 - out - (counts[table_seat] > 0):
        return None
    return table_seat if counts[table_seat] else PARTNER[table_seat]


def next_to_play(seat: str, counts: Mapping[str, int]) -> str:
    """The next player after ``seat`` in play order who still holds cards (rules.md §5.3)."""
    turn = NEXT[seat]
    while counts[turn] == 0:
        turn = NEXT[turn]
    return turn
