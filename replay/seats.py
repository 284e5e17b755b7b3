"""Seat arithmetic (rules.md §1): play order, partners and teams, as the engine uses them.

Play goes counter-clockwise E → N → W → S → E; partners sit opposite (E–W, N–S). The words
themselves are defined once in ``schemas.vocabulary``.
"""

from __future__ import annotations

from schemas.vocabulary import NEXT, OTHER_TEAM, PARTNER, PREV, SEATS, TEAM, TEAM_SEATS, TEAMS

__all__ = ["NEXT", "OTHER_TEAM", "PARTNER", "PREV", "SEATS", "TEAM", "TEAMS", "TEAM_SEATS"]
