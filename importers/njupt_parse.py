"""Parse one client's recording of the NJUPT Guandan AI platform protocol into public deals.

A recording is JSON Lines: every message one client received, in order. ``notify`` messages
carry the public course of the game (``beginning`` with the client's own hand, ``play``,
``tribute``, ``anti-tribute``, ``back``, ``episodeOver``, ``gameOver``, ``gameResult``); ``act``
messages are requests to this client and add nothing public (its answer comes back as a
``notify``), so they are skipped.

Known drift between platform versions is accepted: ``handCard``/``handCards``,
``antiNum``/``antiNums``, ``curRank`` (and ``selfRank``/``oppoRank``) as an index 2–14 or a
rank string, ``curPos``/``curAction`` (and ``greaterPos``/``greaterAction``, never read)
swapped. Anything else malformed raises :class:`ConversionError` with file, line and field.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import orjson

from importers.common import BOM, RANKS, is_card
from importers.errors import ConversionError

COMBO_TYPES: dict[str, str] = {
    "Single": "single",
    "Pair": "pair",
    "Trips": "triple",
    "ThreeWithTwo": "full_house",
    "Straight": "straight",
    "ThreePair": "tube",
    "TwoTrips": "plate",
    "StraightFlush": "straight_flush",
    "Bomb": "bomb",
}
"""NJUPT action type → combination type id (rules.md §3)."""

JOKER_BOMB_NAMES = frozenset({"JOKER", "R", "FourKings"})
"""Spellings of the joker bomb by different tools, as the action type or a ``Bomb`` rank."""

COMBO_RANKS = frozenset(RANKS) | {"B", "R"}


@dataclass(frozen=True, slots=True)
class Step:
    """One public event of a deal, in platform seat numbers.

    ``kind`` is ``tribute``, ``anti_tribute``, ``return``, ``play`` or ``pass``; ``line`` is
    where it was read (not part of equality, so the four clients' steps compare equal).
    """

    kind: str
    seat: int = 0
    to: int = 0
    cards: tuple[str, ...] = ()
    combo: tuple[str, str] | None = None
    seats: tuple[int, ...] = ()
    line: int = field(default=0, compare=False)


@dataclass(slots=True)
class ParsedDeal:
    """One deal as seen by one client: its level, its hand(s), the public steps, the result."""

    line: int
    level: str
    hands: dict[int, list[str]]
    self_level: str
    oppo_level: str
    steps: list[Step] = field(default_factory=list)
    order: list[int] | None = None
    order_line: int = 0


@dataclass(slots=True)
class ParsedMatch:
    """The deals of one platform game; ``finished`` once ``gameOver`` was received."""

    deals: list[ParsedDeal] = field(default_factory=list)
    finished: bool = False


@dataclass(slots=True)
class ClientStream:
    """Everything one client's recording says: its seat and the games it saw."""

    path: Path
    my_pos: int
    matches: list[ParsedMatch]


class _Reader:
    """Field access on one message that turns every fault into a located ConversionError."""

    def __init__(self, path: Path, line: int, message: dict[str, Any]) -> None:
        self.path = path
        self.line = line
        self.message = message

    def fail(self, name: str | None, expected: str, got: object = None) -> ConversionError:
        return ConversionError(self.path, self.line, name, expected, got)

    def get(self, *names: str) -> Any:
        """The value of the first of ``names`` present (version drift spellings)."""
        for name in names:
            if name in self.message:
                return self.message[name]
        raise self.fail(names[0], "a field " + " or ".join(repr(n) for n in names) + " in this message")

    def seat(self, value: object, name: str) -> int:
        if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= 3:
            raise self.fail(name, "a seat number 0-3", value)
        return value

    def cards(self, value: object, name: str) -> tuple[str, ...]:
        if not isinstance(value, list):
            raise self.fail(name, "a list of cards", value)
        for i, card in enumerate(value):
            if not is_card(card):
                raise self.fail(f"{name}[{i}]", "a card like 'S5', 'HT', 'SB' or 'HR'", card)
        return tuple(value)

    def level(self, name: str) -> str:
        """A rank given as an index 2–14 (int or digit string) or as a rank character."""
        value = self.get(name)
        if isinstance(value, str) and value.isdigit():
            value = int(value)
        if isinstance(value, int) and not isinstance(value, bool) and 2 <= value <= 14:
            return RANKS[value - 2]
        if isinstance(value, str) and value in RANKS:
            return value
        raise self.fail(name, "a level: an index 2-14 or one of " + ", ".join(RANKS), value)

    def transfers(self, name: str) -> list[tuple[int, int, str]]:
        """``[[from, to, card], …]`` of a tribute or back result."""
        value = self.get(name)
        if not isinstance(value, list) or not value:
            raise self.fail(name, "a non-empty list of [from, to, card]", value)
        out = []
        for i, item in enumerate(value):
            if not isinstance(item, list) or len(item) != 3 or not is_card(item[2]):
                raise self.fail(f"{name}[{i}]", "[from seat, to seat, card]", item)
            out.append(
                (self.seat(item[0], f"{name}[{i}][0]"), self.seat(item[1], f"{name}[{i}][1]"), item[2])
            )
        return out


def read_client(path: Path) -> ClientStream:
    """Parse one client's recording (JSON Lines) into its seat and its games."""
    my_pos: int | None = None
    matches = [ParsedMatch()]
    deal: ParsedDeal | None = None
    with path.open("rb") as handle:
        for line_no, raw in enumerate(handle, start=1):
            if not raw.strip():
                continue
            try:
                message = orjson.loads(raw.removeprefix(BOM) if line_no == 1 else raw)
            except orjson.JSONDecodeError as exc:
                raise ConversionError(path, line_no, None, f"a JSON object ({exc})") from None
            if not isinstance(message, dict):
                raise ConversionError(path, line_no, None, "a JSON object", message)
            reader = _Reader(path, line_no, message)
            kind, stage = reader.get("type"), reader.get("stage")
            if kind == "act":
                continue
            if kind != "notify":
                raise reader.fail("type", "'notify' or 'act'", kind)
            if stage == "beginning":
                if matches[-1].finished:
                    matches.append(ParsedMatch())
                pos = reader.seat(reader.get("myPos"), "myPos")
                if my_pos is not None and pos != my_pos:
                    raise reader.fail("myPos", f"the same seat as earlier beginnings ({my_pos})", pos)
                my_pos = pos
                deal = ParsedDeal(
                    line=line_no,
                    level=reader.level("curRank"),
                    hands={pos: list(reader.cards(reader.get("handCards", "handCard"), "handCards"))},
                    self_level=reader.level("selfRank"),
                    oppo_level=reader.level("oppoRank"),
                )
                matches[-1].deals.append(deal)
                continue
            if stage in ("gameOver", "gameResult"):
                matches[-1].finished = True
                deal = None
                continue
            if deal is None or deal.order is not None:
                raise reader.fail("stage", f"'beginning' before a {stage!r} message", stage)
            _read_deal_message(reader, stage, deal)
    if my_pos is None:
        raise ConversionError(path, None, None, "at least one 'beginning' message (none found)")
    if not matches[-1].deals:
        matches.pop()
    return ClientStream(path=path, my_pos=my_pos, matches=matches)


def _read_deal_message(reader: _Reader, stage: object, deal: ParsedDeal) -> None:
    """Add one in-deal ``notify`` message to ``deal``."""
    line = reader.line
    if stage == "play":
        deal.steps.append(_play_step(reader))
    elif stage == "tribute":
        deal.steps.extend(
            Step("tribute", seat=a, to=b, cards=(c,), line=line) for a, b, c in reader.transfers("result")
        )
    elif stage == "back":
        deal.steps.extend(
            Step("return", seat=a, to=b, cards=(c,), line=line) for a, b, c in reader.transfers("result")
        )
    elif stage == "anti-tribute":
        positions = reader.get("antiPos")
        if not isinstance(positions, list) or not positions:
            raise reader.fail("antiPos", "a non-empty list of seats", positions)
        seats = tuple(reader.seat(p, f"antiPos[{i}]") for i, p in enumerate(positions))
        count = reader.get("antiNum", "antiNums")
        if count != len(seats):
            raise reader.fail("antiNum", f"the number of seats in antiPos ({len(seats)})", count)
        deal.steps.append(Step("anti_tribute", seats=seats, line=line))
    elif stage == "episodeOver":
        order = reader.get("order")
        if not isinstance(order, list) or sorted(order) != [0, 1, 2, 3]:
            raise reader.fail("order", "the four seats 0-3 by finishing position", order)
        deal.order = order
        deal.order_line = line
    else:
        raise reader.fail(
            "stage",
            "one of beginning, play, tribute, anti-tribute, back, episodeOver, gameOver, gameResult",
            stage,
        )


def _play_step(reader: _Reader) -> Step:
    """A ``notify``/``play`` message as a play or a pass (``curPos``/``curAction`` may be swapped)."""
    pos, action = reader.get("curPos"), reader.get("curAction")
    if isinstance(pos, list) and isinstance(action, int):
        pos, action = action, pos
    seat = reader.seat(pos, "curPos")
    if not isinstance(action, list) or len(action) != 3:
        raise reader.fail("curAction", "[type, rank, cards]", action)
    kind, rank, cards = action
    if not isinstance(kind, str) or not isinstance(rank, str):
        raise reader.fail("curAction", "[type, rank, cards] with a string type and rank", action)
    if kind == "PASS":
        return Step("pass", seat=seat, line=reader.line)
    played = reader.cards(cards, "curAction[2]")
    if not played:
        raise reader.fail("curAction[2]", "at least one card", cards)
    if kind in JOKER_BOMB_NAMES or (kind == "Bomb" and rank in JOKER_BOMB_NAMES):
        if sorted(played) != ["HR", "HR", "SB", "SB"]:
            raise reader.fail("curAction[2]", "both small and both big jokers for a joker bomb", cards)
        return Step("play", seat=seat, cards=played, combo=("joker_bomb", "JOKER"), line=reader.line)
    combo_type = COMBO_TYPES.get(kind)
    if combo_type is None:
        known = ", ".join([*COMBO_TYPES, *sorted(JOKER_BOMB_NAMES), "PASS"])
        raise reader.fail("curAction[0]", f"an action type: {known}", kind)
    if rank not in COMBO_RANKS:
        raise reader.fail("curAction[1]", "a rank 2-9, T, J, Q, K, A, B or R", rank)
    return Step("play", seat=seat, cards=played, combo=(combo_type, rank), line=reader.line)
