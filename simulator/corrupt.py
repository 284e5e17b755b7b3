"""Damaged copies of simulated logs, labelled with the first error a replay must report.

Each damaged match gets a new id (``<id>-corrupt``) so it never collides with its clean copy,
and one kind of damage at one place. The manifest entry names the error code (replay/errors.py)
and the seq of the first offending event, per the contract:

| damage | what is changed | expected |
| --- | --- | --- |
| truncated_line | a line cut in half | missing_seq at that line's seq |
| bad_json | a line made invalid JSON | missing_seq at that line's seq |
| card_not_in_hand | a single played card swapped for a same-rank card of a suit not held | card_not_in_hand |
| out_of_turn | a pass attributed to another seat still holding cards | out_of_turn |
| wrong_tribute_card | the tribute replaced by the giver's lowest card | wrong_tribute_card |
| duplicate_seq | a line repeated | duplicate_seq at the repeated seq |
| missing_seq | a line removed | missing_seq at its seq |
| wrong_finish_order | deal_end order with the first two seats swapped | wrong_finish_order |
| short_hand | one card removed from a dealt hand (26 cards) | wrong_hand_size at that deal_start |
"""

from __future__ import annotations

import random
from typing import Any

import orjson

from replay.errors import ErrorCode
from schemas.vocabulary import SEATS
from simulator.cards import BIG_JOKER, SMALL_JOKER, single_order

DAMAGES: dict[str, ErrorCode] = {
    "truncated_line": ErrorCode.MISSING_SEQ,
    "bad_json": ErrorCode.MISSING_SEQ,
    "card_not_in_hand": ErrorCode.CARD_NOT_IN_HAND,
    "out_of_turn": ErrorCode.OUT_OF_TURN,
    "wrong_tribute_card": ErrorCode.WRONG_TRIBUTE_CARD,
    "duplicate_seq": ErrorCode.DUPLICATE_SEQ,
    "missing_seq": ErrorCode.MISSING_SEQ,
    "wrong_finish_order": ErrorCode.WRONG_FINISH_ORDER,
    "short_hand": ErrorCode.WRONG_HAND_SIZE,
}
_LINE_DAMAGES = ("truncated_line", "bad_json", "duplicate_seq", "missing_seq")

Site = tuple[int, Any]
"""Index of the event to damage, and what to put there."""


def _event_sites(events: list[dict[str, Any]]) -> dict[str, list[Site]]:
    """Where each event-level damage can be applied, found by following the hands through the match."""
    sites: dict[str, list[Site]] = {k: [] for k in DAMAGES if k not in _LINE_DAMAGES}
    hands: dict[str, list[str]] = {}
    level = "2"
    for i, e in enumerate(events):
        kind = e["type"]
        if kind == "deal_start":
            hands = {s: list(cards) for s, cards in e["hands"].items()}
            level = e["level"]
            sites["short_hand"].append((i, None))
        elif kind in ("tribute", "return"):
            giver = hands[e["from"]]
            if kind == "tribute":
                low = min(giver, key=lambda c: (single_order(c, level), c))
                if single_order(low, level) < single_order(e["card"], level):
                    sites["wrong_tribute_card"].append((i, low))
            giver.remove(e["card"])
            hands[e["to"]].append(e["card"])
        elif kind == "play":
            hand = hands[e["seat"]]
            card = e["cards"][0]
            if len(e["cards"]) == 1 and card not in (SMALL_JOKER, BIG_JOKER) and card[1] != level:
                absent = [s + card[1] for s in "SHCD" if s + card[1] not in hand]
                if absent:
                    sites["card_not_in_hand"].append((i, absent[0]))
            for c in e["cards"]:
                hand.remove(c)
        elif kind == "pass":
            others = [s for s in SEATS if s != e["seat"] and hands[s]]
            if others:
                sites["out_of_turn"].append((i, others[0]))
        elif kind == "deal_end":
            sites["wrong_finish_order"].append((i, None))
    return sites


def corrupt_match(lines: bytes, index: int, rng: random.Random) -> tuple[bytes, dict[str, Any]]:
    """Damage one match's JSON Lines; the damaged bytes and its manifest entry.

    `index` (the count of matches damaged so far) cycles through the kinds of damage so that a
    run covers all of them; a kind that has no place in this match falls through to the next.
    """
    events = [orjson.loads(line) for line in lines.splitlines()]
    source = events[0]["match"]
    match_id = f"{source}-corrupt"
    for e in events:
        e["match"] = match_id
    sites = _event_sites(events)
    names = list(DAMAGES)
    for step in range(len(names)):
        damage = names[(index + step) % len(names)]
        if damage in _LINE_DAMAGES or sites[damage]:
            break
    encoded = [orjson.dumps(e) for e in events]
    if damage in _LINE_DAMAGES:
        i = rng.randrange(1, len(events) - 1)
        if damage == "truncated_line":
            encoded[i] = encoded[i][: len(encoded[i]) // 2]
        elif damage == "bad_json":
            encoded[i] = encoded[i][:-1] + b",}"
        elif damage == "duplicate_seq":
            encoded.insert(i + 1, encoded[i])
        else:
            del encoded[i]
    else:
        i, value = rng.choice(sites[damage])
        e = events[i]
        if damage == "card_not_in_hand":
            e["cards"] = [value]
        elif damage == "out_of_turn":
            e["seat"] = value
        elif damage == "wrong_tribute_card":
            e["card"] = value
        elif damage == "wrong_finish_order":
            e["order"] = [e["order"][1], e["order"][0], *e["order"][2:]]
        else:
            e["hands"]["E"] = e["hands"]["E"][:-1]
        encoded[i] = orjson.dumps(e)
    entry = {
        "match": match_id,
        "source": source,
        "damage": damage,
        "code": str(DAMAGES[damage]),
        "seq": events[i]["seq"],
    }
    return b"".join(line + b"\n" for line in encoded), entry
