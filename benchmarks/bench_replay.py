"""Benchmark of the replay engine: deals replayed per second on one core, and the ratio of
replay time to the time ``orjson`` takes just to parse the same JSON Lines.

Logs come from the simulator (``simulator.api.simulate_match``) across the built-in rulesets; if the
simulator is not importable, from a random-legal-move player built on ``replay.legal_moves``.
Times are CPU seconds of this process (``time.process_time``), best of ``--repeat`` runs, so that a
machine shared with other work still measures one core. Replay includes grouping by match, every
check, and all derived rows (plays, deals, starting-hand features, tributes, player rows); like
``replay_batch``, it runs with the cyclic garbage collector paused (``replay.replayer.paused_gc``)
and frees what it built before the collector resumes. The engine runs compiled when the install built
it (``replay.native``); ``GDAN_PURE_PYTHON=1`` measures the Python sources.
Run: ``.venv/bin/python benchmarks/bench_replay.py [--matches 40] [--repeat 3]``.
"""

from __future__ import annotations

import argparse
import random
import time
from collections import Counter
from typing import Any

import orjson

from schemas.vocabulary import PARTNER, SEATS

RULES = ("national", "huaian", "bcta", "jiangsu", "njupt")


def simulated_lines(matches: int) -> list[bytes]:
    """JSON lines of ``matches`` simulated matches (the simulator, else the fallback player)."""
    try:
        from simulator.api import simulate_match
    except ImportError:
        return [orjson.dumps(e) for i in range(matches) for e in random_match(i)]
    lines: list[bytes] = []
    for i in range(matches):
        lines += [orjson.dumps(e) for e in simulate_match(RULES[i % len(RULES)], seed=i)]
    return lines


def random_match(seed: int) -> list[dict[str, Any]]:
    """One single-deal match played by random legal moves (fallback when there is no simulator)."""
    from replay import DECK, legal_moves

    rng = random.Random(seed)
    deck = list(DECK)
    rng.shuffle(deck)
    seats = SEATS
    nxt = {"E": "N", "N": "W", "W": "S", "S": "E"}
    hands = {s: Counter(deck[i * 27 : (i + 1) * 27]) for i, s in enumerate(seats)}
    mid = f"rand-{seed}"
    events: list[dict[str, Any]] = []

    def add(kind: str, **payload: Any) -> None:
        events.append({"v": 1, "match": mid, "seq": len(events), "type": kind, **payload})

    add("match_start", rules="national", seats={s: f"p{s}" for s in seats})
    add(
        "deal_start",
        deal=1,
        level="2",
        declarers=None,
        leader="E",
        hands={s: deck[i * 27 : (i + 1) * 27] for i, s in enumerate(seats)},
    )
    out: list[str] = []
    turn, table, table_seat, passes = "E", None, None, 0
    while len(out) < 3 and not (len(out) == 2 and {out[0], out[1]} in ({"E", "W"}, {"N", "S"})):
        moves = legal_moves(list(hands[turn].elements()), "2", table)
        if table is not None and (not moves or rng.random() < 0.3):
            add("pass", seat=turn)
            passes += 1
        else:
            move = rng.choice(moves)
            add("play", seat=turn, cards=list(move.cards))
            hands[turn] -= Counter(move.cards)
            table, table_seat, passes = move.combo, turn, 0
            if not hands[turn]:
                out.append(turn)
        active = [s for s in seats if hands[s] and s != table_seat]
        if table is not None and table_seat is not None and passes >= len(active):
            turn = table_seat if hands[table_seat] else PARTNER[table_seat]
            table, passes = None, 0
            continue
        turn = nxt[turn]
        while not hands[turn]:
            turn = nxt[turn]
    add("deal_end", order=out)
    add("match_end", reason="abandoned", winner=None)
    return events


def raw_table(lines: list[bytes]) -> Any:
    """The lines as ``RAW_EVENTS`` rows, as the ingest step would hand them to ``replay_batch``."""
    from datetime import UTC, datetime

    import pyarrow as pa

    from schemas.tables import RAW_EVENTS

    now = datetime.now(UTC)
    rows = []
    for i, line in enumerate(lines):
        ev = orjson.loads(line)
        rows.append(
            {
                "source_file": "bench.jsonl",
                "line_no": i + 1,
                "match_id": ev["match"],
                "seq": ev["seq"],
                "type": ev["type"],
                "payload": line.decode(),
                "content_hash": "",
                "parse_error": None,
                "ingested_at": now,
            }
        )
    return pa.Table.from_pylist(rows, schema=RAW_EVENTS)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--matches", type=int, default=40)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    from replay import native, replay_batch, replay_match
    from replay.replayer import paused_gc

    lines = simulated_lines(args.matches)
    size = sum(len(x) + 1 for x in lines)
    best_parse = best_replay = float("inf")
    deals = 0
    for _ in range(args.repeat):
        t0 = time.process_time()
        for line in lines:
            orjson.loads(line)
        best_parse = min(best_parse, time.process_time() - t0)

        t0 = time.process_time()
        with paused_gc():
            by_match: dict[str, list[dict[str, Any]]] = {}
            for line in lines:
                ev = orjson.loads(line)
                by_match.setdefault(ev["match"], []).append(ev)
            deals = 0
            for events in by_match.values():
                result = replay_match(events)
                assert result.status == "valid", result.error
                deals += len(result.rows["deals"])
            matches = len(by_match)
            # Freed before the collector resumes, as replay_batch frees its intermediates: kept alive,
            # the collector's first pass would scan every parsed event and row of the run.
            del by_match, events, result
        best_replay = min(best_replay, time.process_time() - t0)
    table = raw_table(lines)
    best_batch = float("inf")
    for _ in range(args.repeat):
        t0 = time.process_time()
        out = replay_batch(table)
        best_batch = min(best_batch, time.process_time() - t0)
    assert out["matches"].num_rows == matches
    print(f"engine: {'compiled (mypyc)' if native.is_compiled() else 'Python sources'}")
    print(f"input: {args.matches} matches, {deals} deals, {len(lines)} events, {size / 1e6:.1f} MB")
    print(f"orjson parse only:        {best_parse:.3f} s")
    print(
        f"parse + replay + features: {best_replay:.3f} s  ({deals / best_replay:,.0f} deals/s on one core, "
        f"{len(lines) / best_replay:,.0f} events/s)"
    )
    print(f"ratio replay / parse:      {best_replay / best_parse:.1f}x")
    print(
        f"replay_batch (Arrow in, every table out): {best_batch:.3f} s  ({deals / best_batch:,.0f} deals/s)"
    )


if __name__ == "__main__":
    main()
