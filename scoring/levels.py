"""Level arithmetic of scoring.md §S1: 2=1 … A=13, a team that has passed A counts 14."""

from __future__ import annotations

from schemas.vocabulary import RANKS as LEVEL_ORDER

PASSED_A = 14
_ALIASES = {"10": "T"}


def level_value(level: str | None, passed_a: bool = False) -> int:
    """The step count of a level (§S1); ``passed_a`` wins over the level string.

    ``None`` (no deal played yet) is the starting level 2 → 1. An unknown string raises
    ``ValueError`` naming the accepted values.
    """
    if passed_a:
        return PASSED_A
    if level is None:
        return 1
    key = _ALIASES.get(level.strip().upper(), level.strip().upper())
    try:
        return LEVEL_ORDER.index(key) + 1
    except ValueError:
        raise ValueError(f"unknown level {level!r}; expected one of {', '.join(LEVEL_ORDER)} or 10") from None


def team_id(players: list[str | None], fallback: str) -> str:
    """A stable id for a partnership: the two player ids sorted and joined with ``+``.

    When a player is unknown (a partial log) the partnership cannot be identified across
    matches, so ``fallback`` (e.g. ``"<match>:EW"``) is used instead.
    """
    if any(p is None for p in players):
        return fallback
    return "+".join(sorted(p for p in players if p is not None))
