"""Tournament pairing (scoring.md §S8): Swiss without rematches and round-robin rotation."""

from __future__ import annotations

import random
from collections.abc import Sequence


def swiss_pairs(
    ranking: Sequence[str], met: set[frozenset[str]], had_bye: set[str]
) -> tuple[list[tuple[str, str]], str | None]:
    """Pair teams in `ranking` order (best first) so that no two teams meet twice.

    With an odd number of teams the lowest-ranked team without a bye gets it (once per team,
    `national` Art. 26). Pairs top-down with backtracking; if no rematch-free pairing exists the
    rematch constraint is dropped rather than failing the tournament.
    """
    teams = list(ranking)
    bye = None
    if len(teams) % 2:
        bye = next((t for t in reversed(teams) if t not in had_bye), teams[-1])
        teams.remove(bye)
    pairs = _pair(teams, met)
    if pairs is None:
        pairs = [(teams[i], teams[i + 1]) for i in range(0, len(teams), 2)]
    return pairs, bye


def _pair(teams: list[str], met: set[frozenset[str]]) -> list[tuple[str, str]] | None:
    if not teams:
        return []
    head, rest = teams[0], teams[1:]
    for i, other in enumerate(rest):
        if frozenset((head, other)) in met:
            continue
        tail = _pair(rest[:i] + rest[i + 1 :], met)
        if tail is not None:
            return [(head, other), *tail]
    return None


def round_robin_pairs(teams: Sequence[str], round_no: int) -> tuple[list[tuple[str, str]], str | None]:
    """Round `round_no` (1-based) of the circle method; with an odd count one team sits out."""
    ids: list[str | None] = list(teams)
    if len(ids) % 2:
        ids.append(None)
    n = len(ids)
    r = (round_no - 1) % (n - 1)
    rotated = [ids[0], *(ids[1:][-r:] + ids[1:][:-r] if r else ids[1:])]
    pairs: list[tuple[str, str]] = []
    bye = None
    for i in range(n // 2):
        a, b = rotated[i], rotated[n - 1 - i]
        if a is None or b is None:
            bye = a if b is None else b
            continue
        pairs.append((a, b) if (round_no + i) % 2 else (b, a))
    return pairs, bye


def first_round_order(teams: Sequence[str], seed: int) -> list[str]:
    """Round 1 of a Swiss: a random draw (scoring.md §S8)."""
    order = list(teams)
    random.Random(f"draw:{seed}").shuffle(order)
    return order
