"""Skill from decisions against true skill on simulated BCTA leagues (docs/ratings.md).

For each seed: take the league (``bench_ratings.load_league``: simulated and replayed once, then
cached; a league ``bench_luck.py`` already made with the same simulator call and seed is used in
place), run the results-based rating (the model of ``bench_ratings.py``, session by session),
and review every match once as the pipeline does (``replay.review.review_match``: ≤ 12 cards
left, 5,000 nodes per position; wider with ``--cards`` and ``--nodes``; the rows are cached
beside the league as ``reviews-c{cards}-n{nodes}.parquet``). Each player's real choices give the
decision estimate (``scoring.decision_skill``: the mistake rate, shrunk);
``scoring.decision_skill.combined`` joins it with the rating. Reported per seed and as the mean,
over players with at least ``--min-rounds`` rated rounds (as ``bench_ratings.py``): Spearman with
the simulator's true skill (``players.json``) of the rating, of the decision estimate, of the
players' raw mean levels lost per real choice (the figure the estimate replaced) and of the
combined estimate; the reliabilities; what the combination would reach if the decisions' errors
were independent of the rating's (:func:`synthetic_combined`); and what the aim would take
(:func:`needed_reliability`, and the real choices per player that reliability needs).

    .venv/bin/python benchmarks/bench_decision_skill.py --players 96 --sessions 40 --seeds 21,22,23
"""

from __future__ import annotations

import argparse
import json
import math
import os
import platform
import statistics
import time
from collections import defaultdict
from pathlib import Path
from statistics import fmean
from typing import Any

import numpy as np
import orjson
import polars as pl
from bench_ratings import league_dir, load_league, run, sessions_of
from rating_baselines import Gaussian
from scipy.stats import spearmanr

from pipelines.steps.reviews import BUDGET, MAX_CARDS_LEFT
from replay.review import review_match
from replay.solver import Budget
from scoring.decision_skill import DecisionSkill, combined, decision_skill, reliability
from scoring.params import RatingParams

AIM = 0.98
"""Spearman of the combined estimate with true skill that the decisions should lift it to."""
SYNTHETIC_DRAWS = 100
"""Noise draws per reliability when finding the reliability the aim needs."""


def league_folder(players: int, sessions: int, seed: int) -> Path:
    """The league's folder: ``bench_ratings.league_dir``, or the folder ``bench_luck.py`` made of
    the same league when only that one holds the logs (where ``load_league`` then simulates)."""
    own = league_dir(players, sessions, seed)
    luck = Path(f"/tmp/gdan-bench-luck-p{players}-r{sessions}-s{seed}")
    for folder in (own, luck):
        if (folder / "players.json").exists() and any(folder.glob("*.jsonl")):
            return folder
    return own


def league_reviews(folder: Path, budget: Budget, cards: int) -> pl.DataFrame:
    """One row per reviewed decision of every match in the folder's logs (``player_id``,
    ``phase``, ``choice``, ``loss``), reviewed once per match in the window of ``cards`` cards
    with ``budget`` per position, then cached beside the logs."""
    cached = folder / f"reviews-c{cards}-n{budget.nodes}.parquet"
    if cached.exists():
        return pl.read_parquet(cached)
    rows: list[dict[str, Any]] = []
    for path in sorted(folder.glob("*.jsonl")):
        by_match: dict[str, list[dict[str, Any]]] = defaultdict(list)
        for line in path.read_bytes().splitlines():
            event = orjson.loads(line)
            by_match[event["match"]].append(event)
        for events in by_match.values():
            seats = next(e for e in events if e["type"] == "match_start").get("seats", {})
            for deal in review_match(events, budget, max_cards_left=cards):
                rows.extend(
                    {"player_id": seats.get(r.seat), "phase": r.phase, "choice": r.choice, "loss": r.loss}
                    for r in deal.rows
                )
    reviews = pl.DataFrame(
        rows, schema={"player_id": pl.String, "phase": pl.String, "choice": pl.String, "loss": pl.Int64}
    )
    reviews.write_parquet(cached)
    return reviews


def spearman(truth: dict[str, float], estimate: dict[str, float], players: list[str]) -> float:
    known = [p for p in players if p in estimate]
    return float(spearmanr([truth[p] for p in known], [estimate[p] for p in known]).statistic)


def synthetic_combined(
    truth: dict[str, float], rating: dict[str, float], rating_reliability: float, players: list[str],
    rel: float,
) -> float:
    """The Spearman with true skill that ``combined`` would reach with decision estimates of
    reliability ``rel`` whose errors are independent of the rating's: the true skill (standardised)
    plus normal noise of variance (1 − rel) / rel, mean over :data:`SYNTHETIC_DRAWS` seeded draws."""
    z = np.array([truth[p] for p in players])
    z = (z - z.mean()) / z.std()
    rng = np.random.default_rng(0)
    scores = []
    for _ in range(SYNTHETIC_DRAWS):
        noisy = z + rng.normal(0.0, math.sqrt((1 - rel) / rel), len(z))
        fake = {p: DecisionSkill(1, 0, 0.0, 0.0, 0.0, float(v), float(v), float(v), rel)
                for p, v in zip(players, noisy, strict=True)}
        scores.append(spearman(truth, combined(rating, fake, rating_reliability), players))
    return fmean(scores)


def needed_reliability(
    truth: dict[str, float], rating: dict[str, float], rating_reliability: float, players: list[str]
) -> float:
    """The smallest decision reliability, on a grid of ¼-octave steps of signal to noise, at which
    :func:`synthetic_combined` reaches :data:`AIM`; 1.0 when even a near-perfect one does not."""
    for step in range(-8, 41):
        snr = 2.0 ** (step / 4)
        if synthetic_combined(truth, rating, rating_reliability, players, snr / (1 + snr)) >= AIM:
            return snr / (1 + snr)
    return 1.0


def bench_seed(args: argparse.Namespace, seed: int) -> dict[str, float]:
    """The figures of one league (module docstring)."""
    t0 = time.process_time()
    folder = league_folder(args.players, args.sessions, seed)
    rounds, skills = load_league(args.players, args.sessions, seed, args.workers, folder)
    model = Gaussian(RatingParams())
    run(model, sessions_of(rounds))
    rating = model.skills()
    played: dict[str, int] = defaultdict(int)
    for r in rounds:
        for p in r.players.values():
            played[p] += 1
    players = sorted(p for p, n in played.items() if n >= min(args.min_rounds, args.sessions // 3))
    players = [p for p in players if p in skills and p in rating]
    real = league_reviews(folder, Budget(nodes=args.nodes), args.cards).filter(
        (pl.col("choice") == "real") & pl.col("player_id").is_not_null()
    )
    losses = {p: [float(x) for x in v] for p, v in real.group_by("player_id").agg("loss").iter_rows()}
    decisions = decision_skill(losses)
    spread = statistics.pvariance(list(rating.values()))
    rating_reliability = spread / (spread + float(model.model.cov.diagonal().mean()))
    both = combined(rating, decisions, rating_reliability)
    rel = reliability(decisions)
    choices = fmean(d.choices for d in decisions.values())
    needed = needed_reliability(skills, rating, rating_reliability, players)
    some = next(iter(decisions.values()))
    k = some.choices * (1 - some.reliability) / some.reliability  # n / (n + k) = reliability
    return {
        "seed": seed,
        "players": len(players),
        "choices_per_player": choices,
        "mistake_rate": fmean(d.mistake_rate for d in decisions.values()),
        "rating": spearman(skills, rating, players),
        "decisions": spearman(skills, {p: d.estimate for p, d in decisions.items()}, players),
        "levels_lost": spearman(skills, {p: -fmean(v) for p, v in losses.items()}, players),
        "combined": spearman(skills, both, players),
        "reliability": rel,
        "rating_reliability": rating_reliability,
        "independent_combined": synthetic_combined(skills, rating, rating_reliability, players, rel),
        "needed_reliability": needed,
        "needed_choices": k * needed / (1 - needed) if needed < 1 else math.inf,
        "k": k,
        "window": args.cards,
        "nodes": args.nodes,
        "cpu_s": time.process_time() - t0,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--players", type=int, default=96)
    parser.add_argument("--sessions", type=int, default=40)
    parser.add_argument("--seeds", default="21,22,23")
    parser.add_argument("--min-rounds", type=int, default=10)
    parser.add_argument("--workers", type=int, default=1)
    parser.add_argument("--cards", type=int, default=MAX_CARDS_LEFT, help="review window (cards left)")
    parser.add_argument("--nodes", type=int, default=BUDGET.nodes, help="solver nodes per position")
    args = parser.parse_args()
    figures = []
    for seed in (int(s) for s in args.seeds.split(",")):
        figures.append(bench_seed(args, seed))
        print(json.dumps(figures[-1]), flush=True)
    print(
        f"\n{platform.machine()}, Python {platform.python_version()}, load {os.getloadavg()[0]:.1f}, "
        f"{time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}; "
        f"{args.players} players x {args.sessions} sessions"
    )
    for key in ("rating", "decisions", "levels_lost", "combined", "independent_combined", "reliability",
                "choices_per_player", "needed_reliability", "needed_choices"):
        print(f"mean {key}: {fmean(f[key] for f in figures):.3f}")


if __name__ == "__main__":
    main()
