"""An independent check of the plays in simulated logs with the rules engine (rules.md §3–§5).

Follows each deal of a match from the events alone: whose turn it is (E → N → W → S, players out
skipped), that the cards are in the hand, that the declared or only reading is a reading of the
cards (`replay.readings`), that it beats the table (`replay.beats`), when tricks end, jie feng,
and that `deal_end.order` matches the order players went out. Returns a list of problems.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

from replay import beats, readings

NEXT = {"E": "N", "N": "W", "W": "S", "S": "E"}
PARTNER = {"E": "W", "W": "E", "N": "S", "S": "N"}
TEAM = {"E": "EW", "W": "EW", "N": "NS", "S": "NS"}


def check_plays(events: list[dict[str, Any]]) -> list[str]:
    """Problems found in the play of every deal (empty when every play is legal)."""
    problems: list[str] = []
    hands: dict[str, Counter[str]] = {}
    level = "2"
    turn = None
    table = None
    table_seat = ""
    passes = 0
    out: list[str] = []

    def bad(e: dict[str, Any], msg: str) -> None:
        problems.append(f"seq {e['seq']}: {msg}")

    for e in events:
        kind = e["type"]
        if kind == "deal_start":
            hands = {s: Counter(c) for s, c in e["hands"].items()}
            level = e["level"]
            turn, table, passes, out = e["leader"], None, 0, []
            if any(len(h) != 27 for h in e["hands"].values()):
                bad(e, "hand size")
        elif kind in ("tribute", "return"):
            hands[e["from"]][e["card"]] -= 1
            hands[e["to"]][e["card"]] += 1
        elif kind in ("play", "pass"):
            seat = e["seat"]
            if seat != turn:
                bad(e, f"{seat} played out of turn ({turn} expected)")
            if kind == "pass":
                if table is None:
                    bad(e, "pass on lead")
                passes += 1
            else:
                cards = e["cards"]
                need = Counter(cards)
                if any(hands[seat][c] < n for c, n in need.items()):
                    bad(e, f"cards {cards} not in hand")
                hands[seat] -= need
                options = readings(cards, level)
                if "combo" in e:
                    chosen = [
                        r for r in options if r.type == e["combo"]["type"] and r.rank == e["combo"]["rank"]
                    ]
                elif len(options) == 1:
                    chosen = options
                else:
                    chosen = []
                    bad(e, f"{cards} has readings {options} but no combo")
                if not chosen:
                    bad(e, f"declared {e.get('combo')} is not a reading of {cards}: {options}")
                    return problems
                play = chosen[0]
                if table is not None and not beats(play, table, level):
                    bad(e, f"{play} does not beat {table}")
                table, table_seat, passes = play, seat, 0
                if sum(hands[seat].values()) == 0:
                    out.append(seat)
            active = [s for s in "ENWS" if sum(hands[s].values()) > 0]
            if table is not None:
                need_passes = len(active) if table_seat not in active else len(active) - 1
                if passes >= need_passes:
                    turn = table_seat if table_seat in active else PARTNER[table_seat]
                    table, passes = None, 0
                    continue
            turn = NEXT[seat]
            while active and turn not in active:
                turn = NEXT[turn]
        elif kind == "deal_end":
            order = e["order"]
            if order[: len(out)] != out[: len(order)]:
                bad(e, f"order {order} but players went out as {out}")
    return problems
