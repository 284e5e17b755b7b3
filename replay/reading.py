"""Which combination a play is taken as (events.md reading policy; rules.md §3, §4, §10).

A declared ``combo`` must be one of the cards' readings; without one, a follower's play takes the
weakest reading that beats the table and a lead the strongest reading (by
``replay.combos.sort_key``). A play that fits no allowed reading, or beats nothing it must, is a
:class:`~replay.faults.Fault` at its seq.
"""

from __future__ import annotations

from typing import Any

from replay.combos import BeatKey, Combo, beat_key, bomb_class, key_beats, readings
from replay.errors import ErrorCode
from replay.faults import fault
from replay.rulesets import Ruleset
from schemas.vocabulary import BIG_JOKER, SMALL_JOKER

Reading = tuple[Combo, BeatKey, str | None]
"""A reading of a play with what the replay needs of it: its ``beat_key`` at the deal's level
(compared with the table's) and its ``bomb_class``."""
_READINGS: dict[tuple[tuple[str, ...], str], tuple[Reading, ...]] = {}
"""Readings by the played cards as logged and the level (plays repeat a lot across deals)."""


def _joker_pair(cards: list[str]) -> bool:
    return cards.count(SMALL_JOKER) == 2 or cards.count(BIG_JOKER) == 2


def allowed_readings(seq: int, ruleset: Ruleset, cards: list[str], level: str) -> tuple[Reading, ...]:
    """The readings of the played cards the ruleset allows (rules.md §3, §10), weakest first."""
    key = (tuple(cards), level)
    options = _READINGS.get(key)
    if options is None:
        try:
            found = readings(cards, level)
        except ValueError as exc:
            raise fault(seq, ErrorCode.NOT_A_COMBINATION, f"{' '.join(cards)}: {exc}") from None
        if len(_READINGS) > 200_000:
            _READINGS.clear()
        options = _READINGS[key] = tuple((r, beat_key(r, level), bomb_class(r)) for r in found)
    if not ruleset.full_house_joker_pair and _joker_pair(cards):
        options = tuple(r for r in options if r[0].type != "full_house")
    if not options:
        raise fault(
            seq,
            ErrorCode.NOT_A_COMBINATION,
            f"{' '.join(cards)} is no combination at level {level} (rules.md §3)",
        )
    return options


def choose_reading(
    seq: int,
    ev: dict[str, Any],
    options: tuple[Reading, ...],
    table: Combo | None,
    table_key: BeatKey | None,
) -> Reading:
    """The reading the play ``ev`` is taken as (module docstring), checked against the table's
    combination and its ``beat_key`` (rules.md §4)."""
    declared = ev.get("combo")
    if declared is not None:
        chosen = next(
            (r for r in options if r[0].type == declared["type"] and r[0].rank == declared["rank"]), None
        )
        if chosen is None:
            found = ", ".join(f"{r.type} {r.rank}" for r, _, _ in options)
            raise fault(
                seq,
                ErrorCode.BAD_READING,
                f"declared {declared['type']} {declared['rank']} is not a "
                f"reading of {' '.join(ev['cards'])}; readings: {found}",
            )
        if table_key is not None and not key_beats(chosen[1], table_key):
            raise fault(seq, ErrorCode.DOES_NOT_BEAT, f"{chosen[0]} does not beat {table} (rules.md §4)")
        return chosen
    if table_key is None:
        return options[-1]
    for r in options:
        if key_beats(r[1], table_key):
            return r
    raise fault(
        seq,
        ErrorCode.DOES_NOT_BEAT,
        f"{' '.join(ev['cards'])} ({options[-1][0]}) does not beat {table} (rules.md §4)",
    )
