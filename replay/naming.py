"""Names of combinations for people: sequences shown by the cards they span.

The stored reading (events.md "Combination reading", ``plays.combo_rank``) ranks a sequence by
its lowest card, with ``A`` meaning A-low. Printed as "straight A" that reads as the highest
straight, so "straight 2 beats straight A" looks wrong although it is right. People see
sequences by their span instead: ``straight A2345``, ``tube AA2233``, ``plate AAA222``,
``straight TJQKA``. Other types keep their rank (``pair 9``, ``bomb 7×5``, ``joker bomb``).

Pure and dependency-free (the vocabulary only), so the CLI and the dashboards can both use it.
"""

from __future__ import annotations

from typing import Final

from schemas.vocabulary import RANKS

SEQUENCE_SHAPE: Final[dict[str, tuple[int, int]]] = {
    "straight": (5, 1),
    "straight_flush": (5, 1),
    "tube": (3, 2),
    "plate": (2, 3),
}
"""Per sequence type: how many consecutive ranks it spans and how many cards of each rank."""

_NATURAL: Final[tuple[str, ...]] = ("A", *RANKS)
"""Ranks in sequence order, A-low first: ``A 2 3 … K A``."""


def sequence_span(type_: str, rank: str) -> str:
    """The cards' ranks a sequence spans, lowest first: ``("tube", "A")`` → ``"AA2233"``.

    ``rank`` is the stored rank (the lowest card, ``A`` = A-low). ``ValueError`` for a type
    that is not a sequence or a rank the sequence cannot start at.
    """
    if type_ not in SEQUENCE_SHAPE:
        raise ValueError(f"{type_!r} is not a sequence type ({', '.join(SEQUENCE_SHAPE)})")
    length, copies = SEQUENCE_SHAPE[type_]
    start = _NATURAL.index(rank) if rank in _NATURAL else -1
    if start < 0 or start + length > len(_NATURAL):
        raise ValueError(f"a {type_.replace('_', ' ')} cannot start at rank {rank!r}")
    return "".join(r * copies for r in _NATURAL[start : start + length])


def combo_name(type_: str, rank: str | None, size: int | None = None, label: str | None = None) -> str:
    """A reading as people say it: ``straight A2345``, ``pair 9``, ``bomb 7×5``, ``joker bomb``.

    Accepts the stored columns as they are (``combo_type``, ``combo_rank``, ``combo_size``);
    a missing rank gives the type alone. ``label`` names the type in another language (the
    dashboards' ``顺子``); by default the type id itself, underscores as spaces.
    """
    label = label or type_.replace("_", " ")
    if type_ == "joker_bomb" or rank is None:
        return label
    if type_ == "bomb":
        return f"{label} {rank}×{size}" if size else f"{label} {rank}"
    if type_ in SEQUENCE_SHAPE:
        return f"{label} {sequence_span(type_, rank)}"
    return f"{label} {rank}"
