"""Benchmark of the endgame solver and the decision review (docs/performance.md).

Positions come from simulated deals (``simulator.api.simulate_match``): in every deal, the first
decision at which the four hands hold at most N cards together, for N = 8, 12, 16, … Each is solved
by a fresh ``Solver`` within the budget; the table gives median and 95th-percentile CPU time and
nodes by N, and the share solved. Then every deal's decisions from 16 cards left are reviewed
(``review_deal``) and timed per deal. Times are CPU seconds of this process (``time.process_time``),
so a loaded machine slows them less than wall time. ``GDAN_PURE_PYTHON=1`` measures the sources,
``GDAN_NATIVE_CORE=0`` the compiled engine without its Cython core (and so without the search in
C, ``replay/_search.pyx``).

``--pairs N`` compares the two side by side instead: child processes alternate (engine without the
core, engine with the core and the search in C, then the other way round, N pairs), each solving
the same positions with fresh solvers, and the speed-up in nodes per CPU second of the solves is
printed per pair with the median; node counts must agree. No review is timed in this mode.

    .venv/bin/python benchmarks/bench_solver.py --matches 6 --sizes 8,12,16,20,24,28
    .venv/bin/python benchmarks/bench_solver.py --matches 3 --sizes 20,24,28 --nodes 200000 --pairs 3
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import subprocess
import sys
import time
from datetime import UTC, datetime
from typing import Any

from replay import native
from replay.review import position_before, review_deal
from replay.solver import SEARCH_ENGINE, Budget, Position, Solver
from simulator.api import simulate_match

ENGINES = {"mypyc": {"GDAN_NATIVE_CORE": "0"}, "C search": {}}
"""The pair mode's engines: the compiled engine without its Cython core, and with it."""

RULES = ("national", "huaian", "bcta", "jiangsu", "njupt")


def percentile(values: list[float], q: float) -> float:
    """The ``q`` quantile (0–1) by nearest rank."""
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(q * len(ordered)) - 1))]


def deals_of(matches: int) -> list[tuple[list[dict[str, Any]], int]]:
    """(match events, deal number) of every deal of ``matches`` simulated matches."""
    out = []
    for i in range(matches):
        events = simulate_match(RULES[i % len(RULES)], seed=i)
        out += [(events, e["deal"]) for e in events if e["type"] == "deal_start"]
    return out


def positions_at(events: list[dict[str, Any]], deal: int, sizes: list[int]) -> dict[int, Position]:
    """Per size N, the position before the deal's first play or pass with at most N cards left."""
    start = next(e["seq"] for e in events if e["type"] == "deal_start" and e["deal"] == deal)
    end = next(e["seq"] for e in events if e["type"] == "deal_end" and e["seq"] > start)
    seqs = [e["seq"] for e in events if start < e["seq"] < end and e["type"] in ("play", "pass")]
    found: dict[int, Position] = {}
    for seq in seqs:
        p = position_before(events, seq)
        left = p.cards_left()
        for n in sizes:
            if n not in found and left <= n and n - left < 4:
                found[n] = p
        if left <= min(sizes):
            break
    return found


def solve_all(deals: list[tuple[list[dict[str, Any]], int]], sizes: list[int], budget: Budget
              ) -> dict[int, list[tuple[float, int, bool]]]:
    """Per size, (CPU seconds, nodes, solved) of each position's solve by a fresh solver."""
    by_size: dict[int, list[tuple[float, int, bool]]] = {n: [] for n in sizes}
    for events, deal in deals:
        for n, p in positions_at(events, deal, sizes).items():
            solver = Solver(p.level, p.ruleset)
            t0 = time.process_time()
            s = solver.solve(p, budget)
            by_size[n].append((time.process_time() - t0, s.nodes, s.solved))
    return by_size


def child(args: argparse.Namespace) -> None:
    """The pair mode's child: this engine's solves, as one JSON line."""
    sizes = [int(x) for x in args.sizes.split(",")]
    by_size = solve_all(deals_of(args.matches), sizes, Budget(nodes=args.nodes, seconds=args.seconds))
    solves = [row for rows in by_size.values() for row in rows]
    print(json.dumps({
        "compiled": native.is_compiled(),
        "c_search": SEARCH_ENGINE is not None,
        "positions": len(solves),
        "nodes": [k for _, k, _ in solves],
        "cpu_s": sum(t for t, _, _ in solves),
    }))


def pairs(args: argparse.Namespace) -> None:
    """Alternate the two engines' children ``args.pairs`` times; print nodes/s and speed-ups."""
    load = " ".join(f"{x:.2f}" for x in os.getloadavg())
    print(f"python {platform.python_version()} on {platform.machine()}, {os.cpu_count()} cores, "
          f"{datetime.now(UTC):%Y-%m-%d %H:%M} UTC, load {load}; {args.matches} matches, sizes "
          f"{args.sizes}, {args.nodes:,} nodes a solve")
    command = [sys.executable, __file__, "--child", "--matches", str(args.matches), "--sizes", args.sizes,
               "--nodes", str(args.nodes), "--seconds", str(args.seconds)]
    speedups = []
    for pair in range(args.pairs):
        order = ("mypyc", "C search") if pair % 2 == 0 else ("C search", "mypyc")
        got = {}
        for engine in order:
            env = {**os.environ, **ENGINES[engine]}
            env.pop("GDAN_PURE_PYTHON", None)
            done = subprocess.run(command, env=env, capture_output=True, text=True, check=True)
            got[engine] = json.loads(done.stdout.splitlines()[-1])
        a, b = got["mypyc"], got["C search"]
        if not (a["compiled"] and b["compiled"] and b["c_search"] and not a["c_search"]):
            sys.exit(f"not the engines to compare (need a current build with replay/_search): {got}")
        if a["nodes"] != b["nodes"]:
            sys.exit("the two engines searched different node counts")
        rate_a, rate_b = sum(a["nodes"]) / a["cpu_s"], sum(b["nodes"]) / b["cpu_s"]
        speedups.append(rate_b / rate_a)
        print(f"pair {pair + 1} ({' then '.join(order)}): {a['positions']} solves, "
              f"{sum(a['nodes']):,} nodes; "
              f"mypyc {a['cpu_s']:.2f} CPU-s ({rate_a:,.0f} nodes/s), C search {b['cpu_s']:.2f} CPU-s "
              f"({rate_b:,.0f} nodes/s): {rate_b / rate_a:.2f}x")
    load = " ".join(f"{x:.2f}" for x in os.getloadavg())
    print(f"C search / mypyc nodes per second, median of {args.pairs} pairs: "
          f"{statistics.median(speedups):.2f}x (pairs: {', '.join(f'{x:.2f}' for x in speedups)}; "
          f"load now {load})")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--matches", type=int, default=6)
    parser.add_argument("--sizes", default="8,12,16,20,24,28")
    parser.add_argument("--nodes", type=int, default=2_000_000, help="node budget per solve")
    parser.add_argument("--seconds", type=float, default=20.0, help="time budget per solve")
    parser.add_argument("--review-nodes", type=int, default=200_000, help="node budget per reviewed position")
    parser.add_argument("--review-from", type=int, default=16, help="review decisions from this many cards")
    parser.add_argument("--pairs", type=int, default=0, help="compare the engines side by side, N pairs")
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        child(args)
        return
    if args.pairs:
        pairs(args)
        return
    sizes = [int(x) for x in args.sizes.split(",")]
    deals = deals_of(args.matches)
    mode = "compiled" if native.is_compiled() else "pure Python"
    print(f"{len(deals)} deals from {args.matches} matches; engine {mode}; load {os.getloadavg()}")
    by_size = solve_all(deals, sizes, Budget(nodes=args.nodes, seconds=args.seconds))
    print("| cards left | positions | solved | median s | p95 s | median nodes | p95 nodes |")
    print("| ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
    for n in sizes:
        rows = by_size[n]
        if not rows:
            continue
        times = [t for t, _, _ in rows]
        nodes = [float(k) for _, k, _ in rows]
        solved = sum(ok for _, _, ok in rows)
        median_nodes, p95_nodes = statistics.median(nodes), percentile(nodes, 0.95)
        print(
            f"| {n} | {len(rows)} | {solved}/{len(rows)} | {statistics.median(times):.4f} | "
            f"{percentile(times, 0.95):.4f} | {median_nodes:.0f} | {p95_nodes:.0f} |"
        )
    solves = [row for rows in by_size.values() for row in rows]
    total_s, total_nodes = sum(t for t, _, _ in solves), sum(k for _, k, _ in solves)
    rate = total_nodes / max(total_s, 1e-9)
    print(f"all solves: {total_nodes:,} nodes in {total_s:.2f} CPU-s, {rate:,.0f} nodes/s")
    review_budget = Budget(nodes=args.review_nodes)
    per_deal: list[float] = []
    decisions = lossy = 0
    for events, deal in deals:
        t0 = time.process_time()
        reviewed = review_deal(events, review_budget, deal=deal, max_cards_left=args.review_from)
        per_deal.append(time.process_time() - t0)
        decisions += len(reviewed)
        lossy += sum(r.loss > 0 for r in reviewed)
    print(
        f"review from {args.review_from} cards: {len(per_deal)} deals, {decisions} decisions "
        f"({lossy} with a loss); per deal median {statistics.median(per_deal) * 1000:.1f} ms, "
        f"p95 {percentile(per_deal, 0.95) * 1000:.1f} ms, total {sum(per_deal):.2f} s"
    )


if __name__ == "__main__":
    main()
