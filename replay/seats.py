"""Seat arithmetic (rules.md §1): play order, partners and teams.

Play goes counter-clockwise E → N → W → S → E; partners sit opposite (E–W, N–S).
"""

from __future__ import annotations

SEATS: tuple[str, ...] = ("E", "N", "W", "S")
"""Seats in playing order."""
NEXT: dict[str, str] = {"E": "N", "N": "W", "W": "S", "S": "E"}
"""A seat's 下家: the seat that plays after it."""
PREV: dict[str, str] = {b: a for a, b in NEXT.items()}
"""A seat's 上家: the seat that plays before it."""
PARTNER: dict[str, str] = {"E": "W", "W": "E", "N": "S", "S": "N"}
TEAM: dict[str, str] = {"E": "EW", "W": "EW", "N": "NS", "S": "NS"}
"""The team of each seat."""
OTHER_TEAM: dict[str, str] = {"EW": "NS", "NS": "EW"}
TEAM_SEATS: dict[str, tuple[str, str]] = {"EW": ("E", "W"), "NS": ("N", "S")}
