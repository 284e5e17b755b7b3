"""Benchmark of the single-dummy review (docs/performance.md): CPU seconds per deal at N layouts.

Deals come from simulated matches (``simulator.api.simulate_match``, seeds from ``--seed``, one
ruleset after another); each deal is reviewed whole (``pipelines.steps.single_dummy``: the
engine's sampled layouts, the solver near the end, the simulator's bots otherwise) on this one
process, one core. The table gives CPU seconds per deal (median, p95, max; ``time.process_time``,
so a loaded machine slows it less than wall time), decisions reviewed per deal (every decision
with at least two action classes gets a row: a rollout values what the solver cannot) and the
share of them valued exactly in every layout. ``GDAN_PURE_PYTHON=1`` measures the sources.

    .venv/bin/python benchmarks/bench_single_dummy.py --deals 8 --layouts 32
"""

from __future__ import annotations

import argparse
import os
import platform
import statistics
import time
from typing import Any

from replay.single_dummy import Settings, review_deal_single_dummy
from simulator.api import simulate_match
from simulator.rollout import bot_rollout

RULES = ("national", "huaian", "bcta", "jiangsu", "njupt")


def percentile(values: list[float], q: float) -> float:
    """The ``q`` quantile (0–1) by nearest rank."""
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(q * len(ordered)) - 1))]


def deals(count: int, seed: int) -> list[tuple[list[dict[str, Any]], int]]:
    """(match events, deal number) of the first ``count`` deals of matches simulated from ``seed``."""
    out: list[tuple[list[dict[str, Any]], int]] = []
    i = 0
    while len(out) < count:
        events = simulate_match(RULES[i % len(RULES)], seed=seed + i)
        out += [(events, e["deal"]) for e in events if e["type"] == "deal_start"][: count - len(out)]
        i += 1
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--deals", type=int, default=8)
    parser.add_argument("--layouts", type=int, default=32)
    parser.add_argument("--candidates", type=int, default=6)
    parser.add_argument("--seed", type=int, default=9001)
    args = parser.parse_args()
    settings = Settings(layouts=args.layouts, max_candidates=args.candidates)
    seconds: list[float] = []
    rows = exact = 0
    for events, deal in deals(args.deals, args.seed):
        start = time.process_time()
        verdicts = list(review_deal_single_dummy(events, settings, bot_rollout, deal=deal))
        seconds.append(time.process_time() - start)
        rows += len(verdicts)
        exact += sum(1 for v in verdicts if v.exact_layouts == v.layouts)
        print(f"deal {deal}: {seconds[-1]:.1f} CPU-s, {len(verdicts)} decisions", flush=True)
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    print(
        f"\n{platform.processor() or platform.machine()}, Python {platform.python_version()}, "
        f"pure Python: {os.environ.get('GDAN_PURE_PYTHON') == '1'}, load {load:.1f}, "
        f"{time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}"
    )
    print(f"N = {args.layouts} layouts, at most {args.candidates} candidates, {len(seconds)} deals")
    print(
        f"CPU-s per deal: median {statistics.median(seconds):.1f}, p95 {percentile(seconds, 0.95):.1f}, "
        f"max {max(seconds):.1f}"
    )
    print(
        f"decisions reviewed per deal: {rows / len(seconds):.1f}; valued exactly in every layout: "
        f"{exact / max(rows, 1):.0%}"
    )


if __name__ == "__main__":
    main()
