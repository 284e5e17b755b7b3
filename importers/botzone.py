"""Convert Botzone GuanDan match logs to event format v1 (events.md).

**Input** (assumptions from public Botzone GuanDan judges and bots): the match log as Botzone stores it,
a JSON array — or an object whose ``log`` is that array — alternating

- judge entries ``{"output": {"command": "request" | "finish", "content": {"0": request, …}}}``
  (the requests the judge sends to players ``"0"``–``"3"``), and
- player entries ``{"0": {"response": …, "verdict": "OK"}, …}`` (their answers).

Requests have a ``stage``: ``deal`` (``deliver``: the player's 27 card ids, ``your_id``),
``tribute`` (answer ``[card]``), ``return`` (answer ``[card]``) and ``play`` (answer
``[cards, claim]``; ``[[], []]`` or ``[]`` is a pass; the claim is the cards after wild
substitution and gives the combination). Each carries a ``global`` block in one of two known
variants: the short ``{"level", "tribute", "first", "last"}`` with ``-1`` for "no seat", and the
long one adding ``resist``, ``tribute_cards`` ``{payer: card | -1}`` and ``return_cards``, with
``null`` for "no seat". ``tribute`` is 0, 1 or 2 payers; ``first``/``last`` are the previous
deal's 1st and 4th.

Card ids are 0–107: ``id % 54`` is 52 for the small joker, 53 for the big joker, otherwise
``divmod(id % 54, 4)`` gives the rank index (A, 2, …, K) and the suit index (h, d, s, c).
Seats 0–3 play in increasing order and map to E, N, W, S (``common``).

A log may hold several deals in sequence (each begins with ``deal`` requests); they form one
match under the ``national`` ruleset with the ``deals`` format (N = the deals in the log), ended
by ``match_end`` when the judge's ``finish`` entry is present. The tribute route follows rules.md
§6 (1st takes the higher card; equal cards go to each payer's 上家), since the log does not record it.

**Starting mid-match.** Botzone's own judge plays single deals that start from a drawn level and
tribute set-up. When the first deal's ``global`` names a previous deal (``first``) or a level
other than 2, ``match_start`` carries ``start_state`` (docs/event-extensions.md), so the replay
checks that deal like a later one. What the log does not say is filled in as follows:

- ``levels``: the log gives only the deal's level; both teams are stated at it (so the match
  winner is the deal's winner, as for a level-2 start);
- ``declarers``: the team of ``first``;
- ``previous_order``: for a double tribute ``[first, first's partner]`` (a double win); for a single
  tribute ``[first, ·, ·, last]`` — with ``last`` an opponent, the 1st's partner was 3rd (2nd would
  have been a double win); with ``last`` the partner (a 1-4 finish) the opponents' 2nd/3rd places
  are unknown and listed in play order after ``first``, which no rule depends on; with no tribute
  due it is left out.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import orjson

from importers.claims import classify_claim
from importers.common import BOM, RANKS, SEATS, EventWriter, seats_payload, team_of
from importers.errors import ConversionError
from schemas.vocabulary import TEAMS

RULESET = "national"
_ID_RANKS = "A23456789TJQK"
_ID_SUITS = "HDSC"
_LEVEL_NAMES = {**{r: r for r in RANKS}, "10": "T", **{str(i): RANKS[i - 2] for i in range(2, 15)}}


def card_of_id(card_id: int) -> str:
    """The events.md card of a Botzone card id 0–107."""
    base = card_id % 54
    if base == 52:
        return "SB"
    if base == 53:
        return "HR"
    rank, suit = divmod(base, 4)
    return _ID_SUITS[suit] + _ID_RANKS[rank]


@dataclass(slots=True)
class _Deal:
    """One deal collected from the log: set-up, hands, transfers and moves in platform seats."""

    level: str
    tribute: int
    first: int | None
    last: int | None
    hands: dict[int, list[str]] = field(default_factory=dict)
    payments: dict[int, str] = field(default_factory=dict)
    returns: list[tuple[int, str, str]] = field(default_factory=list)
    """(receiver, card, where in the log) of each return."""
    moves: list[tuple[int, list[str], tuple[str, str] | None]] = field(default_factory=list)


class _Log:
    """Walks the log entries, turning every fault into a located ConversionError."""

    def __init__(self, path: Path, entries: list[Any]) -> None:
        self.path = path
        self.entries = entries

    def fail(self, where: str, expected: str, got: object = None) -> ConversionError:
        return ConversionError(self.path, None, where, expected, got)

    def card(self, value: object, where: str) -> str:
        if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= 107:
            raise self.fail(where, "a card id 0-107", value)
        return card_of_id(value)

    def cards(self, value: object, where: str) -> list[str]:
        if not isinstance(value, list):
            raise self.fail(where, "a list of card ids", value)
        return [self.card(v, f"{where}[{i}]") for i, v in enumerate(value)]

    def seat_or_none(self, value: object, where: str) -> int | None:
        if value is None or value == -1:
            return None
        if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= 3:
            raise self.fail(where, "a seat 0-3, -1 or null", value)
        return value

    def global_block(self, request: dict[str, Any], where: str) -> tuple[str, int, int | None, int | None]:
        """``(level, payers, first, last)`` from either variant of the ``global`` block."""
        block = request.get("global")
        if not isinstance(block, dict):
            raise self.fail(f"{where}.global", "an object with level, tribute, first, last", block)
        level = _LEVEL_NAMES.get(str(block.get("level")))
        if level is None:
            raise self.fail(f"{where}.global.level", "a level 2-10, J, Q, K, A", block.get("level"))
        payers = block.get("tribute", 0)
        if payers not in (0, 1, 2):
            raise self.fail(f"{where}.global.tribute", "0, 1 or 2", payers)
        first = self.seat_or_none(block.get("first"), f"{where}.global.first")
        last = self.seat_or_none(block.get("last"), f"{where}.global.last")
        if payers and (first is None or last is None or first == last):
            raise self.fail(f"{where}.global", "distinct first and last seats when a tribute is due", block)
        if payers == 2 and first is not None and last is not None and team_of(first) == team_of(last):
            raise self.fail(f"{where}.global.last", "an opponent of first for a double tribute", last)
        return level, payers, first, last


def read_log(path: Path) -> list[Any]:
    """The log entries of a Botzone match log file."""
    try:
        data = orjson.loads(Path(path).read_bytes().removeprefix(BOM))
    except orjson.JSONDecodeError as exc:
        raise ConversionError(path, None, None, f"a JSON document ({exc})") from None
    if isinstance(data, dict):
        data = data.get("log")
    if not isinstance(data, list):
        raise ConversionError(path, None, "log", "a JSON array of log entries (or an object with 'log')")
    return data


def convert_botzone(
    path: Path, match_id: str | None = None, players: Sequence[str] | None = None
) -> list[dict[str, Any]]:
    """Events of the match in a Botzone GuanDan log (see the module docs for the format)."""
    path = Path(path)
    log = _Log(path, read_log(path))
    deals, finished = _collect(log)
    if not deals:
        raise ConversionError(path, None, "log", "at least one 'deal' request")
    digest = hashlib.sha1(path.read_bytes(), usedforsecurity=False).hexdigest()[:10]
    name = path.name.split(".")[0]
    ident = match_id or f"botzone-{name}-{digest}"
    writer = EventWriter(ident)
    head = deals[0]
    state = start_state(head.level, head.tribute, head.first, head.last)
    writer.emit(
        "match_start",
        rules=RULESET,
        format={"kind": "deals", "deals": len(deals)},
        seats=seats_payload(players or [f"{ident}/{k}" for k in range(4)]),
        source={"format": "botzone", "clients": sorted(deals[0].hands)},
        **({"start_state": state} if state else {}),
    )
    orders = [_deal_events(writer, log, number, deal) for number, deal in enumerate(deals, start=1)]
    if finished and all(orders):
        _match_end(writer, orders, state)
    return writer.events


def start_state(level: str, payers: int, first: int | None, last: int | None) -> dict[str, Any] | None:
    """``match_start.start_state`` for a log whose first deal (its ``global`` block: level, payers,
    first, last) starts mid-match (module docs), or None for a first deal at level 2 with no
    previous deal (plain event v1)."""
    if first is None and level == "2":
        return None
    state: dict[str, Any] = {"levels": {"EW": level, "NS": level}}
    if first is None:
        return state
    state["declarers"] = team_of(first)
    order = _previous_order(payers, first, last)
    if order:
        state["previous_order"] = [SEATS[s] for s in order]
    return state


def _previous_order(payers: int, first: int, last: int | None) -> list[int]:
    """The previous deal's finishing order as far as the tribute set-up tells it (module docs)."""
    partner = (first + 2) % 4
    if payers == 2:
        return [first, partner]
    if payers == 0 or last is None:
        return []
    middle = sorted(
        (s for s in range(4) if s not in (first, last)), key=lambda s: (s == partner, (s - first) % 4)
    )
    return [first, *middle, last]


def _collect(log: _Log) -> tuple[list[_Deal], bool]:
    """The deals of the log and whether the judge finished it (a ``finish`` command).

    Requests set the stage; the player entry that follows holds the answers.
    """
    deals: list[_Deal] = []
    finished = False
    pending: dict[str, tuple[str, str]] = {}
    for index, entry in enumerate(log.entries):
        where = f"log[{index}]"
        if not isinstance(entry, dict):
            raise log.fail(where, "an object (judge or players entry)", entry)
        output = entry.get("output")
        if isinstance(output, dict):
            finished = finished or output.get("command") == "finish"
            pending = _judge_entry(log, output, where, deals)
            continue
        for player, (stage, request_where) in pending.items():
            answer = entry.get(player)
            if not isinstance(answer, dict) or "response" not in answer:
                raise log.fail(f"{where}.{player}", f"the answer to the {stage} request at {request_where}")
            _answer(log, deals[-1], int(player), stage, answer["response"], f"{where}.{player}.response")
        pending = {}
    return deals, finished


def _judge_entry(
    log: _Log, output: dict[str, Any], where: str, deals: list[_Deal]
) -> dict[str, tuple[str, str]]:
    """Record ``deal`` requests; return the players whose answer the next entry must hold."""
    if output.get("command") == "finish":
        return {}
    content = output.get("content")
    if not isinstance(content, dict):
        raise log.fail(f"{where}.output.content", "an object of requests by player '0'-'3'", content)
    pending: dict[str, tuple[str, str]] = {}
    for player in sorted(content):
        request = content[player]
        at = f"{where}.output.content.{player}"
        if player not in ("0", "1", "2", "3") or not isinstance(request, dict):
            raise log.fail(at, "a request object for player '0'-'3'", request)
        stage = request.get("stage")
        if stage == "deal":
            level, payers, first, last = log.global_block(request, at)
            seat = int(player)
            if request.get("your_id", seat) != seat:
                raise log.fail(
                    f"{at}.your_id", f"{seat} (the player the request is sent to)", request["your_id"]
                )
            hand = log.cards(request.get("deliver"), f"{at}.deliver")
            if len(hand) != 27:
                raise log.fail(f"{at}.deliver", "27 card ids", len(hand))
            if not deals or deals[-1].moves or seat in deals[-1].hands:
                deals.append(_Deal(level=level, tribute=payers, first=first, last=last))
            deals[-1].hands[seat] = hand
            continue
        if stage not in ("tribute", "return", "play"):
            raise log.fail(f"{at}.stage", "deal, tribute, return or play", stage)
        if not deals:
            raise log.fail(f"{at}.stage", "a 'deal' request before any other", stage)
        pending[player] = (stage, at)
    return pending


def _answer(log: _Log, deal: _Deal, seat: int, stage: str, response: object, where: str) -> None:
    """Record one player's answer to a tribute, return or play request."""
    if stage in ("tribute", "return"):
        if not isinstance(response, list) or len(response) != 1:
            raise log.fail(where, "[card id]", response)
        card = log.card(response[0], f"{where}[0]")
        if stage == "tribute":
            deal.payments[seat] = card
        else:
            deal.returns.append((seat, card, where))
        return
    if response in ([], [[], []]):
        deal.moves.append((seat, [], None))
        return
    if not isinstance(response, list) or len(response) != 2:
        raise log.fail(where, "[cards, claim] or [[], []] for a pass", response)
    cards = log.cards(response[0], f"{where}[0]")
    claim = log.cards(response[1], f"{where}[1]")
    if not cards or len(claim) != len(cards):
        raise log.fail(f"{where}[1]", f"a claim of as many cards as played ({len(cards)})", response[1])
    combo = classify_claim(claim)
    if combo is None:
        raise log.fail(f"{where}[1]", "a claim forming one combination (rules.md §3)", claim)
    deal.moves.append((seat, cards, combo))


def _routes(deal: _Deal) -> list[tuple[int, int]]:
    """(payer, receiver) of each tribute, rules.md §6 (the log does not record the route)."""
    if deal.first is None or deal.last is None:
        return []
    payers = [p for p in (deal.last, (deal.last + 2) % 4) if p in deal.payments]
    if len(payers) < 2:
        return [(p, deal.first) for p in payers]
    a, b = payers
    value_a, value_b = (_tribute_value(deal.payments[p], deal.level) for p in payers)
    if value_a == value_b:
        return [(a, (a - 1) % 4), (b, (b - 1) % 4)]
    high, low = (a, b) if value_a > value_b else (b, a)
    return [(high, deal.first), (low, (deal.first + 2) % 4)]


def _tribute_value(card: str, level: str) -> int:
    """Single-card order (rules.md §2): natural rank, the level rank above A, then the jokers."""
    if card in ("SB", "HR"):
        return 20 if card == "SB" else 21
    return 15 if card[1] == level else RANKS.index(card[1])


def _deal_events(writer: EventWriter, log: _Log, number: int, deal: _Deal) -> list[int]:
    """Emit one deal; return its finishing order (platform seats; empty when unfinished)."""
    first_move = deal.moves[0][0] if deal.moves else None
    start: dict[str, Any] = {
        "deal": number,
        "level": deal.level,
        "declarers": None if deal.first is None else team_of(deal.first),
        "hands": {SEATS[s]: cards for s, cards in sorted(deal.hands.items())},
    }
    if first_move is not None:
        start["leader"] = SEATS[first_move]
    writer.emit("deal_start", **start)
    routes = _routes(deal)
    receiver_of = dict(routes)
    if deal.tribute and not deal.payments and deal.last is not None:
        payers = [deal.last, (deal.last + 2) % 4][: deal.tribute]
        showing = [p for p in payers if "HR" in deal.hands.get(p, ["HR"])]
        writer.emit("anti_tribute", seats=[SEATS[p] for p in showing])
    for payer, receiver in routes:
        writer.emit("tribute", **{"from": SEATS[payer], "to": SEATS[receiver], "card": deal.payments[payer]})
    for receiver, card, where in deal.returns:
        giver = next((p for p, r in receiver_of.items() if r == receiver), None)
        if giver is None:
            raise log.fail(
                where, f"a return only by a tribute receiver ({sorted(receiver_of.values())})", receiver
            )
        writer.emit("return", **{"from": SEATS[receiver], "to": SEATS[giver], "card": card})
    left = {s: 27 for s in range(4)}
    order: list[int] = []
    for seat, cards, combo in deal.moves:
        if not cards:
            writer.emit("pass", seat=SEATS[seat])
            continue
        payload: dict[str, Any] = {"seat": SEATS[seat], "cards": cards}
        if combo is not None:
            payload["combo"] = {"type": combo[0], "rank": combo[1]}
        writer.emit("play", **payload)
        left[seat] -= len(cards)
        if left[seat] <= 0 and seat not in order:
            order.append(seat)
    if len(order) == 2 and team_of(order[0]) == team_of(order[1]):
        writer.emit("deal_end", order=[SEATS[s] for s in order])
        return order
    if len(order) >= 3:
        order += [s for s in range(4) if s not in order]
        writer.emit("deal_end", order=[SEATS[s] for s in order])
        return order
    return []


def _match_end(writer: EventWriter, orders: list[list[int]], state: dict[str, Any] | None) -> None:
    """match_end of a ``deals`` match: levels climb by rules.md §5.8 from the start levels; the
    declarers pass A by finishing 1st with the partner not 4th (§7); else the higher level wins."""
    top = len(RANKS) - 1
    levels = {team: RANKS.index(state["levels"][team]) if state else 0 for team in TEAMS}
    declarers = state.get("declarers") if state else None
    for order in orders:
        team = team_of(order[0])
        partner_place = 1 if len(order) == 2 else order.index((order[0] + 2) % 4)
        if team == declarers and levels[team] == top and partner_place != 3:
            writer.emit("match_end", reason="passed_a", winner=team)
            return
        levels[team] = min(levels[team] + {1: 3, 2: 2, 3: 1}[partner_place], top)
        declarers = team
    winner = None if levels["EW"] == levels["NS"] else max(levels, key=lambda t: levels[t])
    writer.emit("match_end", reason="deals", winner=winner)
