"""Speed of the simulator (target: ≥ 100 simulated deals/s per core; figures go to
docs/performance.md "Simulator").

Run: ``.venv/bin/python benchmarks/bench_simulate.py [--quick] [--workers K]``.

- per ruleset: deals/s (wall clock and per CPU second) of one process playing independent
  matches (bots + referee + event objects, no disk), the until_a format so that deals dominate;
- end to end: ``simulate_to_dir`` of a league (files written, JSON serialised) with 1 and K
  worker processes, deals/s and the speed-up;
- with ``--quality``: how the bots play (`simulator.quality`): bombs per deal by §4 class and by
  style, straight flushes dealt and played, and the round-win rate of the more skilled half of a
  league's players.
"""

from __future__ import annotations

import argparse
import os
import platform
import resource
import tempfile
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

import orjson

from simulator import simulate_match, simulate_to_dir
from simulator.bots import STYLES
from simulator.quality import BOMB_CLASSES, play_stats, top_half_win_rate

RULESETS = ("national", "huaian", "bcta", "jiangsu", "njupt")


def deals_per_second(rules: str, matches: int) -> tuple[float, float, int]:
    """Deals/s (wall clock and process CPU time) playing `matches` until_a matches in memory."""
    deals = 0
    wall, cpu = time.perf_counter(), time.process_time()
    for seed in range(matches):
        events = simulate_match(rules, "until_a", seed)
        deals += sum(e["type"] == "deal_start" for e in events)
    return deals / (time.perf_counter() - wall), deals / (time.process_time() - cpu), deals


def _children_cpu() -> float:
    """CPU seconds used so far by this process's finished (joined) child processes."""
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def end_to_end(workers: int, players: int, rounds: int) -> tuple[float, int, float, float]:
    """Deals/s of a league written to disk with `workers` processes; deals, seconds, and the CPU
    seconds of the main process plus its worker processes (the work's cost, whatever the load)."""
    with tempfile.TemporaryDirectory() as tmp:
        start, cpu, children = time.perf_counter(), time.process_time(), _children_cpu()
        summary = simulate_to_dir(
            Path(tmp), "league", players=players, rounds=rounds, seed=1, workers=workers
        )
        seconds = time.perf_counter() - start
        cpu = time.process_time() - cpu + _children_cpu() - children
    return summary.deals / seconds, summary.deals, seconds, cpu


def quality(matches: int, players: int, rounds: int) -> None:
    """Print bombs per deal by class for each style (four players of one style per table), straight
    flushes, and the top-half win rate of a bcta league (its default 60-minute / 11-deal rounds)."""
    for style in STYLES:
        games = [
            simulate_match("national", "until_a", seed, styles=(style,) * 4, match_id=f"q-{style}-{seed}")
            for seed in range(matches)
        ]
        ids = {pid: style for events in games for pid in events[0]["seats"].values()}
        stats = play_stats(games, ids)
        by_class = ", ".join(f"{c} {stats.per_deal(c):.2f}" for c in BOMB_CLASSES)
        print(
            f"{style:12s} {stats.deals:5d} deals: bombs/deal {stats.per_deal('all'):.2f} ({by_class}), "
            f"early {4 * stats.per_player_deal(style, early=True):.2f}; "
            f"hands with a straight flush {stats.hands_with_straight_flush / stats.deals:.2f}/deal"
        )
    with tempfile.TemporaryDirectory() as tmp:
        simulate_to_dir(Path(tmp), "league", players=players, rounds=rounds, seed=1)
        roster = orjson.loads((Path(tmp) / "players.json").read_bytes())
        league: dict[str, list[dict[str, Any]]] = defaultdict(list)
        for path in sorted(Path(tmp).glob("*.jsonl")):
            for line in path.read_bytes().splitlines():
                event = orjson.loads(line)
                league[event["match"]].append(event)
    stats = play_stats(league.values(), {p["id"]: p["style"] for p in roster})
    rate = top_half_win_rate(league.values(), {p["id"]: p["skill"] for p in roster})
    per_style = ", ".join(
        f"{s} {stats.per_player_deal(s):.2f} (early {stats.per_player_deal(s, early=True):.2f})"
        for s in STYLES
    )
    by_class = ", ".join(f"{c} {stats.per_deal(c):.2f}" for c in BOMB_CLASSES)
    print(
        f"league ({players} players, {rounds} sessions, {len(league)} matches, {stats.deals} deals): "
        f"top-half win rate {rate:.3f}; bombs/deal {stats.per_deal('all'):.2f} ({by_class}); "
        f"per player and deal: {per_style}"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer matches (a smoke run)")
    parser.add_argument("--workers", type=int, default=min(4, os.cpu_count() or 1))
    parser.add_argument("--quality", action="store_true", help="bot play statistics instead of speed")
    args = parser.parse_args()
    matches = 5 if args.quick else 20
    if args.quality:
        quality(matches * 3, *((48, 10) if args.quick else (96, 24)))
        return
    print(f"python {platform.python_version()} on {platform.machine()}, {os.cpu_count()} cores")
    for rules in RULESETS:
        rate, cpu_rate, deals = deals_per_second(rules, matches)
        print(
            f"{rules:9s} in memory, 1 process: {rate:5.0f} deals/s wall, "
            f"{cpu_rate:5.0f} per CPU-s ({deals} deals)"
        )
    players, rounds = (48, 3) if args.quick else (160, 8)
    base, deals, seconds, cpu = end_to_end(1, players, rounds)
    print(
        f"league to disk, 1 worker : {base:7.0f} deals/s wall, {deals / cpu:5.0f} per CPU-s "
        f"({deals} deals in {seconds:.1f} s)"
    )
    if args.workers > 1:
        rate, deals, seconds, total_cpu = end_to_end(args.workers, players, rounds)
        print(
            f"league to disk, {args.workers} workers: {rate:7.0f} deals/s "
            f"({deals} deals in {seconds:.1f} s), speed-up {rate / base:.2f}x; "
            f"CPU-s main + workers {total_cpu:.1f} vs {cpu:.1f} with 1 worker"
        )
    print(f"load average (1, 5, 15 min) at the end: {', '.join(f'{x:.1f}' for x in os.getloadavg())}")


if __name__ == "__main__":
    main()
