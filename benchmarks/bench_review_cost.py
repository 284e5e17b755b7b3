"""Benchmark: the exact decision review's CPU per deal against the replay's own, and its coverage.

Simulates ``--matches`` matches (every built-in ruleset in turn, fixed seeds), then in this process
times ``replay_match`` over all of them (the fastest of three passes) and the review of every deal
with all four hands at each ``--windows`` size (cards left in all hands) and ``--nodes`` per
position, CPU seconds (``time.process_time``). The first review pass, at the first window, is timed on its own
(``cold``: the process's match-value model has no state yet and fills those these matches need);
each window is then timed on a pass with that model filled, as in a pipeline worker after its
first matches (``warm``). Coverage: decisions per deal, decisions reviewed, and the share of the
decisions that are choices at all (not a pass with no legal play) that got a verdict.

``--base DIR`` runs the same measure, in one run, on another checkout (an earlier commit, built
the same way: compiled or ``GDAN_PURE_PYTHON=1``) in a child process whose imports come from
``DIR``: its review is ``review_deal`` deal by deal, as its pipeline ran it. Machines here differ by
2× and their load changes by the minute, so only figures of one run are compared.

Run: ``nice .venv/bin/python benchmarks/bench_review_cost.py [--matches 16] [--windows 12,20]
[--nodes 5000] [--base DIR]``.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

RULESETS = ("national", "huaian", "bcta", "jiangsu")


def measure(matches: int, windows: list[int], nodes: int) -> list[dict[str, Any]]:
    """The figures of the code on ``sys.path``: one dict per window."""
    from replay import replay_match
    from replay.moves import can_beat
    from replay.review import position_before
    from replay.solver import Budget
    from simulator.api import simulate_match

    logs = [simulate_match(RULESETS[i % len(RULESETS)], seed=1000 + i) for i in range(matches)]
    replay_cpu = float("inf")
    for _ in range(3):  # the fastest of three passes: the first fills the replay's own caches
        start = time.process_time()
        for events in logs:
            replay_match(events)
        replay_cpu = min(replay_cpu, time.process_time() - start)
    deals = [(events, e["deal"]) for events in logs for e in events
             if e["type"] == "deal_start" and all((e.get("hands") or {}).get(s) for s in "ENWS")]
    decisions = sum(e["type"] in ("play", "pass") for events in logs for e in events)
    forced = 0
    for events in logs:
        for e in events:
            if e["type"] == "pass":
                p = position_before(events, e["seq"])
                if p.table is not None and not can_beat(list(p.hands[p.turn]), p.level, p.table):
                    forced += 1
    start = time.process_time()
    for events, deal in deals:
        _review(events, deal, Budget(nodes=nodes), windows[0])
    cold = time.process_time() - start
    out = []
    for window in windows:
        per_deal: list[float] = []
        rows: list[Any] = []
        for events, deal in deals:
            t = time.process_time()
            rows.extend(_review(events, deal, Budget(nodes=nodes), window))
            per_deal.append(time.process_time() - t)
        reviewed_forced = sum(getattr(r, "choice", None) == "forced" for r in rows)
        out.append({
            "window": window, "nodes": nodes, "matches": matches, "deals": len(deals),
            "compiled": _compiled(),
            "cold_review_ms_per_deal": 1000 * cold / len(deals) if window == windows[0] else None,
            "replay_ms_per_deal": 1000 * replay_cpu / len(deals),
            "review_ms_per_deal": 1000 * sum(per_deal) / len(deals),
            "review_ms_median": 1000 * statistics.median(per_deal),
            "review_ms_p95": 1000 * statistics.quantiles(per_deal, n=20)[-1],
            "decisions_per_deal": decisions / len(deals),
            "reviewed_per_deal": len(rows) / len(deals),
            "choices_covered": (len(rows) - reviewed_forced) / max(decisions - forced, 1)
            if hasattr(rows[0] if rows else None, "choice") else None,
            "real_choices_per_deal": sum(getattr(r, "choice", None) == "real" for r in rows) / len(deals),
        })
    return out


def _compiled() -> bool:
    import replay.native as native

    return native.is_compiled()


def _review(events: list[dict[str, Any]], deal: int, budget: Any, window: int) -> list[Any]:
    import replay.review as review

    if hasattr(review, "review_match"):
        return [r for d in review.review_match(events, budget, max_cards_left=window, deals=[deal])
                for r in d.rows]
    return list(review.review_deal(events, budget, deal=deal, max_cards_left=window))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--matches", type=int, default=16)
    parser.add_argument("--windows", default="12,20")
    parser.add_argument("--nodes", type=int, default=5_000)
    parser.add_argument("--base", type=Path, help="another checkout to measure in the same run")
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    windows = [int(w) for w in args.windows.split(",")]
    if args.child:
        print(json.dumps(measure(args.matches, windows, args.nodes)))
        return
    runs: dict[str, list[dict[str, Any]]] = {}
    if args.base is not None:
        env = {**os.environ, "PYTHONPATH": str(args.base.resolve())}
        child = subprocess.run(
            [sys.executable, __file__, "--child", "--matches", str(args.matches), "--windows",
             args.windows, "--nodes", str(args.nodes)],
            cwd=args.base, env=env, capture_output=True, text=True, check=True,
        )
        runs[f"base {args.base}"] = json.loads(child.stdout.splitlines()[-1])
    runs["this checkout"] = measure(args.matches, windows, args.nodes)
    load = os.getloadavg()
    print(f"load average {load[0]:.1f} {load[1]:.1f} {load[2]:.1f}")
    for name, figures in runs.items():
        for f in figures:
            covered = "—" if f["choices_covered"] is None else f"{100 * f['choices_covered']:.0f} %"
            if f["cold_review_ms_per_deal"] is not None:
                print(f"{name} ({'compiled' if f['compiled'] else 'pure Python'}): first review pass "
                      f"(cold match-value model) {f['cold_review_ms_per_deal']:.2f} ms/deal = "
                      f"{f['cold_review_ms_per_deal'] / f['replay_ms_per_deal']:.2f}× the replay")
            print(f"{name}: window {f['window']} / {f['nodes']} nodes, {f['deals']} deals: replay "
                  f"{f['replay_ms_per_deal']:.2f} ms/deal, review {f['review_ms_per_deal']:.2f} ms/deal "
                  f"(median {f['review_ms_median']:.2f}, p95 {f['review_ms_p95']:.2f}) = "
                  f"{f['review_ms_per_deal'] / f['replay_ms_per_deal']:.2f}× the replay; "
                  f"{f['decisions_per_deal']:.0f} decisions/deal, {f['reviewed_per_deal']:.1f} reviewed "
                  f"({f['real_choices_per_deal']:.1f} real choices), choices covered {covered}")


if __name__ == "__main__":
    main()
