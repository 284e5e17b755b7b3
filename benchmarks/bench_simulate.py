"""Speed of the simulator (issue 4 target: ≥ 100 simulated deals/s per core; figures go to
docs/performance.md "Simulator").

Run: ``.venv/bin/python benchmarks/bench_simulate.py [--quick] [--workers K]``.

- per ruleset: deals/s (wall clock and per CPU second) of one process playing independent
  matches (bots + referee + event objects, no disk), the until_a format so that deals dominate;
- end to end: ``simulate_to_dir`` of a league (files written, JSON serialised) with 1 and K
  worker processes, deals/s and the speed-up.
"""

from __future__ import annotations

import argparse
import os
import platform
import tempfile
import time
from pathlib import Path

from simulator import simulate_match, simulate_to_dir

RULESETS = ("national", "huaian", "bcta", "jiangsu", "njupt")


def deals_per_second(rules: str, matches: int) -> tuple[float, float, int]:
    """Deals/s (wall clock and process CPU time) playing `matches` until_a matches in memory."""
    deals = 0
    wall, cpu = time.perf_counter(), time.process_time()
    for seed in range(matches):
        events = simulate_match(rules, "until_a", seed)
        deals += sum(e["type"] == "deal_start" for e in events)
    return deals / (time.perf_counter() - wall), deals / (time.process_time() - cpu), deals


def end_to_end(workers: int, players: int, rounds: int) -> tuple[float, int, float, float]:
    """Deals/s of a league written to disk with `workers` processes; deals, seconds, and the main
    process's CPU seconds (all the work when `workers` is 1)."""
    with tempfile.TemporaryDirectory() as tmp:
        start, cpu = time.perf_counter(), time.process_time()
        summary = simulate_to_dir(
            Path(tmp), "league", players=players, rounds=rounds, seed=1, workers=workers
        )
        seconds = time.perf_counter() - start
        cpu = time.process_time() - cpu
    return summary.deals / seconds, summary.deals, seconds, cpu


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer matches (a smoke run)")
    parser.add_argument("--workers", type=int, default=min(4, os.cpu_count() or 1))
    args = parser.parse_args()
    matches = 5 if args.quick else 20
    print(f"python {platform.python_version()} on {platform.machine()}, {os.cpu_count()} cores")
    for rules in RULESETS:
        rate, cpu_rate, deals = deals_per_second(rules, matches)
        print(
            f"{rules:9s} in memory, 1 process: {rate:5.0f} deals/s wall, "
            f"{cpu_rate:5.0f} per CPU-s ({deals} deals)"
        )
    players, rounds = (48, 3) if args.quick else (120, 6)
    base, deals, seconds, cpu = end_to_end(1, players, rounds)
    print(
        f"league to disk, 1 worker : {base:7.0f} deals/s wall, {deals / cpu:5.0f} per CPU-s "
        f"({deals} deals in {seconds:.1f} s)"
    )
    if args.workers > 1:
        rate, deals, seconds, _ = end_to_end(args.workers, players, rounds)
        print(
            f"league to disk, {args.workers} workers: {rate:7.0f} deals/s "
            f"({deals} deals in {seconds:.1f} s), speed-up {rate / base:.2f}x"
        )


if __name__ == "__main__":
    main()
