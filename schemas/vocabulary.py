"""The game's words, defined once: cards, seats, teams, ranks and their orders (rules.md §1–§2,
events.md "Cards" and "Seats"), plus the SQL fragments built from them.

Every layer (the rules engine, the importers, the pipeline's SQL, the dashboards, the notebooks)
takes these from here, so a seat, a team or a rank order cannot mean two things in two places.
Plain Python values only: importing this module loads nothing else.
"""

from __future__ import annotations

from typing import Final

SEATS: Final[tuple[str, str, str, str]] = ("E", "N", "W", "S")
"""Seats in playing order: play goes counter-clockwise E → N → W → S → E (rules.md §5.1)."""
TEAMS: Final[tuple[str, str]] = ("EW", "NS")
"""The two partnerships: partners sit opposite."""
NEXT: Final[dict[str, str]] = {"E": "N", "N": "W", "W": "S", "S": "E"}
"""A seat's 下家: the seat that plays after it."""
PREV: Final[dict[str, str]] = {b: a for a, b in NEXT.items()}
"""A seat's 上家: the seat that plays before it."""
PARTNER: Final[dict[str, str]] = {"E": "W", "W": "E", "N": "S", "S": "N"}
TEAM: Final[dict[str, str]] = {"E": "EW", "W": "EW", "N": "NS", "S": "NS"}
"""The team of each seat."""
OTHER_TEAM: Final[dict[str, str]] = {"EW": "NS", "NS": "EW"}
TEAM_SEATS: Final[dict[str, tuple[str, str]]] = {"EW": ("E", "W"), "NS": ("N", "S")}

RANKS: Final[tuple[str, ...]] = ("2", "3", "4", "5", "6", "7", "8", "9", "T", "J", "Q", "K", "A")
"""Natural ranks, low to high (the level is the team's current rank, rules.md §2)."""
SUITS: Final[tuple[str, ...]] = ("S", "H", "C", "D")
"""Suits in canonical card order; hearts (H) at the level are the wild cards (rules.md §2)."""
WILD_SUIT: Final = "H"
SMALL_JOKER: Final = "SB"
BIG_JOKER: Final = "HR"
JOKERS: Final[tuple[str, str]] = (SMALL_JOKER, BIG_JOKER)
JOKER_RANKS: Final[dict[str, str]] = {SMALL_JOKER: "B", BIG_JOKER: "R"}
"""The rank letter of each joker as stored in rank columns (``B`` small, ``R`` big)."""
CARDS: Final[tuple[str, ...]] = (*(s + r for s in SUITS for r in RANKS), SMALL_JOKER, BIG_JOKER)
"""The 54 distinct cards in canonical order (every card exists twice in the deck, rules.md §1)."""
DISPLAY_RANKS: Final[str] = "".join(RANKS) + "BR"
"""Every rank letter low to high with the jokers last: the order a hand is sorted in for display."""

RANK_VALUE: Final[dict[str, int]] = {r: i + 2 for i, r in enumerate(RANKS)}
"""A natural rank as a number, 2 = 2 … A = 14 (averages of returned cards and the like)."""
LEVEL_ORDER: Final[dict[str, int]] = {r: i for i, r in enumerate(RANKS)}
"""Levels 2 … A as 0 … 12: how far a team has climbed."""

KNOCKOUT_NAMES: Final[tuple[str, ...]] = ("knockout", "淘汰")
"""(policy) A stage (``match_start.event.stage``) whose name contains one of these (any case), or
is ``ko``, is a single-elimination stage: the replay breaks its level rounds where the ruleset says
so (``Ruleset.extra_deal.rounds = "knockout"``), scoring pairs it as a bracket and ranks it by the
round a team went out."""


def is_knockout(stage: object) -> bool:
    """Whether a stage is a knockout by its name (:data:`KNOCKOUT_NAMES`)."""
    if not isinstance(stage, str) or not stage:
        return False
    name = stage.strip().lower()
    return name == "ko" or any(word in name for word in KNOCKOUT_NAMES)


def rank_of_card(card: str) -> str:
    """The rank letter of a card string, with the jokers as ``B`` and ``R``."""
    return JOKER_RANKS.get(card, card[1:2])


def _case(column: str, mapping: dict[str, str], default: str | None = None) -> str:
    arms = " ".join(f"WHEN '{k}' THEN '{v}'" for k, v in mapping.items())
    tail = f" ELSE '{default}'" if default is not None else ""
    return f"CASE {column} {arms}{tail} END"


def sql_partner(seat_column: str) -> str:
    """SQL: the partner's seat of the seat in ``seat_column``."""
    return _case(seat_column, PARTNER)


def sql_team(seat_column: str) -> str:
    """SQL: the team of the seat in ``seat_column``."""
    return _case(seat_column, TEAM)


def sql_other_team(team_column: str) -> str:
    """SQL: the other team than the one in ``team_column``."""
    return _case(team_column, OTHER_TEAM)


def sql_rank(card_column: str) -> str:
    """SQL: the rank letter of the card in ``card_column`` (jokers ``B``/``R``, like rank_of_card)."""
    jokers = " ".join(f"WHEN {card_column} = '{c}' THEN '{r}'" for c, r in JOKER_RANKS.items())
    return f"CASE {jokers} ELSE substr({card_column}, 2, 1) END"


def sql_rank_value(rank_expr: str) -> str:
    """SQL: a natural rank letter as its number (2 … 14, like RANK_VALUE); null for the jokers."""
    arms = " ".join(f"WHEN '{r}' THEN {v}" for r, v in RANK_VALUE.items())
    return f"CASE {rank_expr} {arms} END"


def sql_level_order(level_expr: str) -> str:
    """SQL: a level ``2`` … ``A`` as 0 … 12 (like LEVEL_ORDER); null for anything else."""
    arms = " ".join(f"WHEN '{r}' THEN {v}" for r, v in LEVEL_ORDER.items())
    return f"CASE {level_expr} {arms} END"
