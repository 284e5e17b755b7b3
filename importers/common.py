"""Shared pieces of the importers: seats, cards, combination ids, and the event-v1 envelope.

Both foreign formats number seats 0–3, play in increasing order and pair 0/2 and 1/3. Event v1
(events.md "Cards", rules.md §1) plays E → N → W → S with E–W and N–S partners, so seat k maps
to ``SEATS[k]``: the platform's order 0→1→2→3 becomes E→N→W→S. ``SEATS`` and ``RANKS`` (a
level's index on the NJUPT platform is ``2 + i``) are ``schemas.vocabulary``'s, re-exported here.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from schemas.vocabulary import CARDS, RANKS, SEATS, TEAM

__all__ = ["RANKS", "SEATS", "EventWriter", "is_card", "seats_payload", "team_of"]

BOM = b"\xef\xbb\xbf"
"""The UTF-8 byte order mark Windows tools put at the start of a file: an encoding signature, not content."""

_CARDS = frozenset(CARDS)


def team_of(seat_index: int) -> str:
    """The event-v1 team (``EW`` or ``NS``) of a platform seat index (rules.md §1)."""
    return TEAM[SEATS[seat_index % 4]]


def is_card(value: object) -> bool:
    """True when ``value`` is a card in events.md notation (suit then rank, or a joker)."""
    return isinstance(value, str) and value in _CARDS


class EventWriter:
    """Builds the events of one match with the v1 envelope and gap-free ``seq`` (events.md)."""

    def __init__(self, match_id: str) -> None:
        self.match_id = match_id
        self.events: list[dict[str, Any]] = []

    def emit(self, event_type: str, **payload: Any) -> dict[str, Any]:
        """Append one event; ``seq`` is its position in the match."""
        event = {"v": 1, "match": self.match_id, "seq": len(self.events), "type": event_type, **payload}
        self.events.append(event)
        return event


def seats_payload(players: Iterable[str]) -> dict[str, str]:
    """``match_start.seats`` from the four player ids of platform seats 0–3."""
    ids = list(players)
    if len(ids) != 4:
        raise ValueError(f"expected 4 player ids (seats 0-3), got {len(ids)}")
    return dict(zip(SEATS, ids, strict=True))
