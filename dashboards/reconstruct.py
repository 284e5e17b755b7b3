"""Rebuild the four hands of a deal step by step, for the hand replayer page.

Pure functions, no Streamlit: the dealt hands (``deal_hands.hand``), then the tribute and return
moves (``tributes``: rules.md §6), then each play in ``seq`` order removes its cards from the
player's hand (rules.md §5). Hands are multisets (rules.md §1): a play removes one copy per card.
A seat whose hand is unknown stays ``None`` throughout.

Each step also carries what a coach looks for (:func:`step_marks`): a pass that could have beaten
the table, a play over the partner, a bomb, a 接风 lead (rules.md §5.6); and hands can be shown
in the Guandan order of the deal's level (rules.md §2). The cards, their order and the wild card are
the rules engine's (``replay.cards.display_order``, ``replay.cards.is_wild``).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from replay.cards import display_order
from schemas.vocabulary import PARTNER, SEATS

Hands = dict[str, list[str] | None]

__all__ = [
    "MARKS",
    "Step",
    "apply_tributes",
    "marks",
    "next_flagged",
    "next_trick",
    "reconstruct",
]


def _remove(hand: list[str] | None, cards: Iterable[str]) -> list[str] | None:
    """``hand`` without one copy of each card (rules.md §1: every card exists twice); cards not
    held are ignored (the log was validated)."""
    if hand is None:
        return None
    return display_order((Counter(hand) - Counter(cards)).elements())


def _cards(value: Any) -> list[str]:
    """The cards of a ``cards`` cell: a list, tuple or array of cards; nothing for null or a pass."""
    if isinstance(value, str) or not isinstance(value, Iterable):
        return []
    return [str(c) for c in value]


def _known(value: Any) -> bool:
    """Whether a ``hand`` cell holds cards (null, NaN or pandas NA mean the hand is unknown)."""
    return isinstance(value, Iterable) and not isinstance(value, str)


def _card(value: Any) -> str | None:
    """A single-card cell (``card``, ``return_card``): the card, or ``None`` for null/NaN."""
    return value if isinstance(value, str) and value else None


def _add(hand: list[str] | None, cards: Iterable[str]) -> list[str] | None:
    return None if hand is None else display_order([*hand, *cards])


@dataclass(frozen=True)
class Step:
    """The state after one step: hands, the combination on the table and the current trick."""

    index: int
    label: str
    trick_no: int
    hands: Hands
    table: Mapping[str, Any] | None = None
    """The last play (not pass) of the current trick: its row from ``plays``."""
    trick: tuple[Mapping[str, Any], ...] = ()
    """Every play and pass of the current trick so far."""
    action: Mapping[str, Any] | None = None
    """The play or pass of this step, with its derived flags."""
    last_of_trick: bool = field(default=False)

    @property
    def winner(self) -> str | None:
        """The seat that won the trick, once it is over: the last play on the table."""
        return self.table["seat"] if self.last_of_trick and self.table is not None else None


MARKS: tuple[str, ...] = ("could_beat", "overtake", "bomb", "jie_feng")
"""What :func:`marks` can flag, in display order (each is a label key of the replayer)."""


def marks(row: Mapping[str, Any] | None) -> list[str]:
    """The coach's marks of a play or pass (a step's ``action`` or a row of its ``trick``), from
    :data:`MARKS`: a pass that could have beaten the table (``plays.could_beat``), a play over the
    partner's (``overtook_partner``), a bomb (``bomb_class``, rules.md §4), a 接风 lead (``jie_feng``,
    set by :func:`reconstruct`: the partner went out with the last trick's winning play, §5.6)."""
    if row is None:
        return []
    flags = {
        "could_beat": row.get("action") == "pass" and row.get("could_beat") is True,
        "overtake": row.get("overtook_partner") is True,
        "bomb": isinstance(row.get("bomb_class"), str),
        "jie_feng": row.get("jie_feng") is True,
    }
    return [mark for mark in MARKS if flags[mark]]


def next_trick(steps: Sequence[Step], current: int) -> int:
    """The index of the first step of the trick after the one of step ``current`` (the last step
    when there is none)."""
    for step in steps[current + 1 :]:
        if step.action is not None and step.trick_no > steps[current].trick_no:
            return step.index
    return len(steps) - 1


def next_flagged(flagged: Iterable[int], current: int) -> int | None:
    """The first flagged step after ``current``, wrapping round to the first; ``None`` if none."""
    ordered = sorted(flagged)
    later = [i for i in ordered if i > current]
    return (later or ordered)[0] if ordered else None


def apply_tributes(hands: Hands, tributes: Sequence[Mapping[str, Any]]) -> Hands:
    """Hands after the tribute (giver → receiver) and return (receiver → giver) moves.

    Anti-tribute rows (抗贡) and rows without a card move nothing.
    """
    out: Hands = {seat: hands.get(seat) for seat in SEATS}
    for row in tributes:
        giver, receiver = row.get("giver"), row.get("receiver")
        if row.get("kind") == "anti" or giver not in out or receiver not in out:
            continue
        card, back = _card(row.get("card")), _card(row.get("return_card"))
        if card:
            out[giver] = _remove(out[giver], [card])
            out[receiver] = _add(out[receiver], [card])
        if back:
            out[receiver] = _remove(out[receiver], [back])
            out[giver] = _add(out[giver], [back])
    return out


def reconstruct(
    hands: Mapping[str, Sequence[str] | None],
    tributes: Sequence[Mapping[str, Any]],
    plays: Sequence[Mapping[str, Any]],
) -> list[Step]:
    """Every state of a deal: dealt, after tribute, then one step per play or pass in ``seq`` order.

    Each play or pass row is copied with ``jie_feng`` set (see :func:`marks`)."""
    dealt: Hands = {s: display_order(_cards(hands[s])) if _known(hands.get(s)) else None for s in SEATS}
    steps = [Step(0, "dealt", 0, dealt)]
    current = apply_tributes(dealt, tributes)
    steps.append(Step(1, "tribute", 0, current))
    ordered = sorted(plays, key=lambda row: row["seq"])
    trick: list[Mapping[str, Any]] = []
    table: Mapping[str, Any] | None = None
    trick_no = None
    for i, played in enumerate(ordered):
        row = dict(played)
        row["jie_feng"] = False
        if row["trick_no"] != trick_no:
            row["jie_feng"] = (
                table is not None and table.get("went_out") is True and row["seat"] == PARTNER[table["seat"]]
            )
            trick_no, trick, table = row["trick_no"], [], None
        trick.append(row)
        if row["action"] == "play":
            table = row
            seat = row["seat"]
            current = {**current, seat: _remove(current.get(seat), _cards(row.get("cards")))}
        is_last = i + 1 == len(ordered) or ordered[i + 1]["trick_no"] != trick_no
        steps.append(
            Step(
                index=len(steps),
                label=f"{row['seat']} {row['action']}",
                trick_no=int(row["trick_no"]),
                hands=current,
                table=table,
                trick=tuple(trick),
                action=row,
                last_of_trick=is_last,
            )
        )
    return steps
