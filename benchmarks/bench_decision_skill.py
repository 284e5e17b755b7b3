"""Skill from decisions against true skill on simulated BCTA leagues (docs/ratings.md).

For each seed (seeds the code was never tuned on): simulate a league (``simulator.simulate_to_dir``,
kept under ``/tmp/gdan-bench-decisions-*``), replay and score it and run the results-based rating
(the model of ``bench_ratings.py``, session by session), and review every deal exactly as the
pipeline does (``replay.review.review_deal``: ≤ 12 cards left, 5,000 nodes per position; wider
with ``--cards`` and ``--nodes``). Each
player's losses on real choices (the review's ``choice``) give the decision
estimate; ``scoring.decision_skill.combined`` joins it with the rating. Reported per seed and as
the mean: Spearman of the rating, the decision estimate and the combined estimate with the
simulator's true skill (``players.json``), over players with at least ``--min-rounds`` rated
rounds (as ``bench_ratings.py``), and the decision estimate's mean reliability.

    .venv/bin/python benchmarks/bench_decision_skill.py --players 32 --sessions 20 --seeds 7001,7002
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import time
from collections import defaultdict
from pathlib import Path
from statistics import fmean
from typing import Any

import orjson
from bench_ratings import load_league, run, sessions_of
from rating_baselines import Gaussian
from scipy.stats import spearmanr

from pipelines.steps.reviews import BUDGET, MAX_CARDS_LEFT
from replay.events import normalise_level
from replay.review import review_deal
from replay.solver import Budget
from scoring.decision_skill import combined, decision_skill, reliability
from scoring.params import RatingParams


def league_losses(folder: Path, budget: Budget, cards: int) -> dict[str, list[float]]:
    """Per player, the levels lost on each real choice of every deal the exact review reaches
    (decisions with at most ``cards`` cards left, ``budget`` per position)."""
    losses: dict[str, list[float]] = defaultdict(list)
    for path in sorted(folder.glob("*.jsonl")):
        by_match: dict[str, list[dict[str, Any]]] = defaultdict(list)
        for line in path.read_bytes().splitlines():
            event = orjson.loads(line)
            by_match[event["match"]].append(event)
        for events in by_match.values():
            events.sort(key=lambda e: e["seq"])
            start = events[0]
            seats = start.get("seats", {})
            for ev in events:
                if ev["type"] != "deal_start" or normalise_level(ev["level"]) is None:
                    continue
                try:
                    rows = review_deal(events, budget, deal=ev["deal"], max_cards_left=cards)
                except ValueError:
                    continue
                for row in rows:
                    if row.choice == "real" and row.seat in seats:
                        losses[seats[row.seat]].append(float(row.loss))
    return losses


def spearman(truth: dict[str, float], estimate: dict[str, float], players: list[str]) -> float:
    known = [p for p in players if p in estimate]
    return float(spearmanr([truth[p] for p in known], [estimate[p] for p in known]).statistic)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--players", type=int, default=32)
    parser.add_argument("--sessions", type=int, default=20)
    parser.add_argument("--seeds", default="7001,7002")
    parser.add_argument("--min-rounds", type=int, default=10)
    parser.add_argument("--workers", type=int, default=1)
    parser.add_argument("--cards", type=int, default=MAX_CARDS_LEFT, help="review window (cards left)")
    parser.add_argument("--nodes", type=int, default=BUDGET.nodes, help="solver nodes per position")
    args = parser.parse_args()
    figures: list[dict[str, float]] = []
    for seed in (int(s) for s in args.seeds.split(",")):
        t0 = time.process_time()
        rounds, skills = load_league(args.players, args.sessions, seed, args.workers)
        folder = Path(f"/tmp/gdan-bench-ratings-p{args.players}-r{args.sessions}-s{seed}")
        model = Gaussian(RatingParams())
        run(model, sessions_of(rounds))
        rating = model.skills()
        played: dict[str, int] = defaultdict(int)
        for r in rounds:
            for p in r.players.values():
                played[p] += 1
        players = sorted(p for p, n in played.items() if n >= min(args.min_rounds, args.sessions // 3))
        players = [p for p in players if p in skills and p in rating]
        decisions = decision_skill(league_losses(folder, Budget(nodes=args.nodes), args.cards))
        cov = model.model.cov.diagonal()
        spread = statistics.pvariance(list(rating.values()))
        rating_reliability = spread / (spread + float(cov.mean()))
        both = combined(rating, decisions, rating_reliability)
        row = {
            "seed": seed,
            "players": len(players),
            "choices_per_player": fmean(d.choices for d in decisions.values()),
            "rating": spearman(skills, rating, players),
            "decisions": spearman(skills, {p: d.estimate for p, d in decisions.items()}, players),
            "combined": spearman(skills, both, players),
            "reliability": reliability(decisions),
            "rating_reliability": rating_reliability,
            "window": args.cards,
            "cpu_s": time.process_time() - t0,
        }
        figures.append(row)
        print(json.dumps(row), flush=True)
    load = os.getloadavg()[0]
    print(
        f"\n{platform.machine()}, Python {platform.python_version()}, load {load:.1f}, "
        f"{time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}; "
        f"{args.players} players x {args.sessions} sessions"
    )
    for key in ("rating", "decisions", "combined", "reliability", "choices_per_player"):
        print(f"mean {key}: {fmean(f[key] for f in figures):.3f}")


if __name__ == "__main__":
    main()
