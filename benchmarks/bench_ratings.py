"""Ratings against true skill on simulated BCTA leagues: the new model and every baseline (docs/ratings.md).

For each league size and seed: simulate (``simulator.simulate_to_dir``, cached under
``/tmp/gdan-bench-ratings-*``), replay (``replay.replay_batch``, cached as Parquet), score
(``scoring.round_scores``), then run every method of ``rating_baselines.py`` session by
session: each session's rounds are forecast from the earlier sessions only, then learned.
Reported per method, as the mean over the seeds:

- **Spearman** of the final skill estimate with the simulator's true skill (``players.json``),
  over players with at least ``--min-rounds`` rated rounds (at most a third of the sessions);
- **log-loss**, **accuracy** and **ECE** (expected calibration error, 10 equal-width bins of
  the EW win chance; per seed, and once over the forecasts of all seeds pooled, which has less
  binning noise) of the forecasts of the later half of the sessions, drawn rounds left out;
- **ECE if calibrated**: the ECE a perfectly calibrated forecaster making the same forecasts
  would score, with the results drawn from the forecasts themselves (``CALIBRATED_DRAWS``
  times; mean and sd of the mean over the seeds). It is the binning noise of the ECE at this
  number of forecasts: an ECE at it shows no miscalibration the metric can detect, and its sd
  says how far two methods' ECEs can differ by chance;
- **coverage** of the Gaussian forecasts: the share of the later rounds whose final level
  difference lies in the forecast's central 50 %, 80 % and 95 % intervals (nominal if honest).

Run: ``.venv/bin/python benchmarks/bench_ratings.py`` (96 × 40, 96 × 12 and 32 × 200, seeds
1–5); ``--leagues 96x40 --seeds 1,2`` for less; ``--tune`` fits the model's parameters on a
league that is not scored (seed 1001).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import math
import time
from collections.abc import Sequence
from dataclasses import replace
from datetime import UTC, datetime
from pathlib import Path
from statistics import mean

import numpy as np
import orjson
import polars as pl
import pyarrow as pa
from rating_baselines import BradleyTerry, Elo, Gaussian, Method, OpenSkill, Ridge, TrueSkill, WinRate
from rich.console import Console
from rich.table import Table
from scipy.stats import spearmanr

from schemas.tables import DEALS, MATCHES, RAW_EVENTS
from scoring.params import RatingParams
from scoring.ratings import _SIGN, SEATS, Forecast, GaussianRatings, RatedRound, rated_rounds
from scoring.round_scores import score_matches

LEVELS = (0.5, 0.8, 0.95)
"""Nominal probabilities of the forecast intervals whose coverage is measured."""
RIDGE_LAMBDA = 10.0
BT_LAMBDA = 8.0
"""Regularisation of the whole-history baselines, chosen on the tuning league (``--tune``)."""
TUNING_SEED = 1001
CALIBRATED_DRAWS = 200
"""Monte-Carlo draws of the ECE a calibrated forecaster would score on a method's forecasts."""
REPLAYED = {"matches": MATCHES, "deals": DEALS}
"""The replayed tables cached per league: a cache written under another schema is replayed again."""


def league_dir(players: int, sessions: int, seed: int) -> Path:
    return Path(f"/tmp/gdan-bench-ratings-p{players}-r{sessions}-s{seed}")


def load_league(
    players: int, sessions: int, seed: int, workers: int, out: Path | None = None
) -> tuple[list[RatedRound], dict[str, float]]:
    """The league's rated rounds (simulated and replayed once, then cached) and true skills;
    ``out``: the league's folder when not :func:`league_dir` (e.g. one ``bench_luck.py`` made
    with the same simulator call and seed).

    The cached tables are used only when their columns are the current replay schema's: a cache
    from before a schema change (e.g. ``deals.extra_deal``) would not score, or score stale rows.
    """
    from simulator import simulate_to_dir

    out = out or league_dir(players, sessions, seed)
    if not (out / "players.json").exists():
        simulate_to_dir(out, kind="league", players=players, rounds=sessions, seed=seed, workers=workers)
    cached = {name: out / f"{name}.parquet" for name in ("matches", "deals")}
    tables = {name: pl.read_parquet(p) for name, p in cached.items() if p.exists()}
    if any(tables.get(name, pl.DataFrame()).columns != schema.names for name, schema in REPLAYED.items()):
        tables = replay_dir(out)
        for name, p in cached.items():
            tables[name].write_parquet(p)
    scores = score_matches(tables["matches"], tables["deals"])
    skills = {p["id"]: p["skill"] for p in json.loads((out / "players.json").read_text())}
    return rated_rounds(scores, tables["deals"]), skills


def replay_dir(folder: Path) -> dict[str, pl.DataFrame]:
    """Replay every ``*.jsonl`` of ``folder`` (one file at a time) into ``matches`` and ``deals``."""
    from replay import replay_batch

    now = datetime.now(UTC)
    parts: dict[str, list[pl.DataFrame]] = {"matches": [], "deals": []}
    for f in sorted(folder.glob("*.jsonl")):
        rows = []
        for i, line in enumerate(f.read_bytes().splitlines(), 1):
            ev = orjson.loads(line)
            rows.append(
                {
                    "source_file": f.name,
                    "line_no": i,
                    "match_id": ev.get("match"),
                    "seq": ev.get("seq"),
                    "type": ev.get("type"),
                    "payload": line.decode(),
                    "parse_error": None,
                    "content_hash": hashlib.sha1(line).hexdigest(),
                    "ingested_at": now,
                }
            )
        out = replay_batch(pa.Table.from_pylist(rows, schema=RAW_EVENTS))
        for name in parts:
            parts[name].append(pl.from_arrow(out[name]))  # type: ignore[arg-type]
    return {name: pl.concat(frames) for name, frames in parts.items()}


def sessions_of(rounds: Sequence[RatedRound]) -> list[list[RatedRound]]:
    """Rounds grouped by session (league round number), in order."""
    out: dict[int, list[RatedRound]] = {}
    for r in rounds:
        out.setdefault(int(r.round or 0), []).append(r)
    return [out[k] for k in sorted(out)]


def run(
    method: Method, sessions: Sequence[Sequence[RatedRound]]
) -> list[tuple[RatedRound, Forecast | float]]:
    """Forecast each session from the earlier ones, then learn it; every round with its forecast."""
    out: list[tuple[RatedRound, Forecast | float]] = []
    for session in sessions:
        out.extend((r, method.forecast(r)) for r in session)
        method.learn(session)
    return out


def ece(p: np.ndarray, y: np.ndarray, bins: int = 10) -> float:
    """Expected calibration error: |mean outcome − mean forecast| per equal-width bin, weighted."""
    which = np.minimum((p * bins).astype(int), bins - 1)
    total = 0.0
    for b in range(bins):
        sel = which == b
        if sel.any():
            total += sel.sum() * abs(float(y[sel].mean()) - float(p[sel].mean()))
    return total / len(p)


def calibrated_ece(p: np.ndarray, rng: np.random.Generator, draws: int = CALIBRATED_DRAWS) -> np.ndarray:
    """The ECE of ``draws`` sets of results drawn from the forecasts ``p`` themselves.

    The forecasts are calibrated for such results by construction, so what these ECEs show is the
    metric's binning noise at this number and spread of forecasts.
    """
    return np.array([ece(p, (rng.random(len(p)) < p).astype(float)) for _ in range(draws)])


def evaluate(
    method: Method,
    forecasts: Sequence[tuple[RatedRound, Forecast | float]],
    skills: dict[str, float],
    split: int,
    min_rounds: int,
    pool: list[tuple[np.ndarray, np.ndarray]] | None = None,
) -> dict[str, float]:
    """The figures of one method on one league (see the module docstring)."""
    played: dict[str, int] = {}
    for r, _ in forecasts:
        for pid in r.players.values():
            played[pid] = played.get(pid, 0) + 1
    est = method.skills()
    known = sorted(pid for pid, n in played.items() if n >= min_rounds and pid in skills and pid in est)
    rho = float(spearmanr([skills[p] for p in known], [est[p] for p in known]).statistic)
    later = [(r, f) for r, f in forecasts if int(r.round or 0) > split]
    decided = [(r, f) for r, f in later if r.result["EW"] in ("win", "loss")]
    p = np.clip([f.p_ew if isinstance(f, Forecast) else f for _, f in decided], 1e-9, 1 - 1e-9)
    y = np.array([r.result["EW"] == "win" for r, _ in decided], dtype=float)
    if pool is not None:
        pool.append((p, y))
    out = {
        "spearman": rho,
        "log_loss": float(-np.mean(y * np.log(p) + (1 - y) * np.log(1 - p))),
        "ece": ece(p, y),
        "accuracy": float(np.mean((p > 0.5) == (y == 1))),
        "forecasts": float(len(p)),
        "players": float(len(known)),
    }
    gaussian = [(r, f) for r, f in later if isinstance(f, Forecast)]
    if gaussian:
        for level in LEVELS:
            inside = [lo <= r.level_diff <= hi for r, f in gaussian for lo, hi in [f.interval(level)]]
            out[f"coverage_{round(level * 100)}"] = float(np.mean(inside))
        z = np.array([(r.level_diff - f.level_diff) / f.sd for r, f in gaussian])
        out["z_sd"] = float(z.std())
    return out


def methods(params: RatingParams, skills: dict[str, float], first_half: Sequence[RatedRound]) -> list[Method]:
    """Fresh instances of every compared method (the new model first, the ceiling last)."""
    return [
        Gaussian(params),
        OpenSkill(per_deal=False),
        OpenSkill(per_deal=True),
        Elo(),
        BradleyTerry(BT_LAMBDA),
        Ridge(RIDGE_LAMBDA),
        WinRate(),
        TrueSkill(skills, first_half),
    ]


def bench_league(
    players: int, sessions: int, seeds: Sequence[int], params: RatingParams, workers: int, min_rounds: int
) -> dict[str, dict[str, float]]:
    """Mean figures per method over the seeds of one league size."""
    per_method: dict[str, list[dict[str, float]]] = {}
    pools: dict[str, list[tuple[np.ndarray, np.ndarray]]] = {}
    split = sessions // 2
    for seed in seeds:
        rounds, skills = load_league(players, sessions, seed, workers)
        grouped = sessions_of(rounds)
        first = [r for r in rounds if int(r.round or 0) <= split]
        for method in methods(params, skills, first):
            t0 = time.perf_counter()
            pool = pools.setdefault(method.name, [])
            figures = evaluate(
                method, run(method, grouped), skills, split, min(min_rounds, sessions // 3), pool
            )
            figures["seconds"] = time.perf_counter() - t0
            per_method.setdefault(method.name, []).append(figures)
    out = {name: {k: mean(f[k] for f in runs) for k in runs[0]} for name, runs in per_method.items()}
    rng = np.random.default_rng(0)
    for name, pool in pools.items():
        out[name]["ece_pooled"] = ece(
            np.concatenate([p for p, _ in pool]), np.concatenate([y for _, y in pool])
        )
        calibrated = np.mean([calibrated_ece(p, rng) for p, _ in pool], axis=0)
        out[name]["ece_calibrated"] = float(calibrated.mean())
        out[name]["ece_calibrated_sd"] = float(calibrated.std())
        for seed, f in zip(seeds, per_method[name], strict=True):
            out[name][f"ece_seed_{seed}"] = f["ece"]
    return out


def noise_fit(rounds: Sequence[RatedRound], p: RatingParams) -> RatingParams:
    """One empirical-Bayes step: noise sds, partner-place slope and prior sd from the full fit of ``p``."""
    model = GaussianRatings(p)
    for r in rounds:
        model.update(r)
    resid, wx, wy = [], [], []
    for r in rounds:
        t = {s: float(model.mu[model.index[r.players[s]]]) for s in SEATS}
        pred = t["E"] + t["W"] - t["N"] - t["S"]
        for d in r.deals:
            resid.append(d.margin - pred)
            for a, c in (("E", "W"), ("N", "S")):
                if a in d.places and c in d.places:
                    wx.append(t[a] - t[c])
                    wy.append(d.places[c] - d.places[a])
    x, y = np.array(wx), np.array(wy)
    slope = float(x @ y / (x @ x))
    prior = math.sqrt(float(np.var(model.mu)) + float(np.mean(np.diag(model.cov))))
    return replace(
        p,
        deal_sd=float(np.std(resid)),
        within_weight=slope,
        within_sd=float(np.std(y - slope * x)),
        prior_sd=prior,
    )


def tune(workers: int, min_rounds: int, console: Console) -> None:
    """Fit the model's parameters on the tuning league and compare regularisations of every fit.

    Noise sds and the partner-place slope come from three empirical-Bayes steps
    (:func:`noise_fit`); the prior sd and the baselines' L2 weights are then compared on the
    league's forecasts (the defaults in ``RatingParams`` and above are the rounded choices).
    """
    rounds, skills = load_league(96, 40, TUNING_SEED, workers)
    grouped = sessions_of(rounds)
    console.print(
        f"tuning league: {len(rounds)} rounds, {mean(len(r.deals) for r in rounds):.2f} deals a round"
    )
    console.print(within_fit(rounds, skills))
    fitted = replace(RatingParams(), deals_per_round=round(mean(len(r.deals) for r in rounds), 1))
    for _ in range(3):
        fitted = noise_fit(rounds, fitted)
        console.print(
            f"deal_sd {fitted.deal_sd:.3f}, within_weight {fitted.within_weight:.3f}, "
            f"within_sd {fitted.within_sd:.3f}, prior_sd {fitted.prior_sd:.3f}"
        )
    model = GaussianRatings(fitted)
    for r in rounds:
        model.update(r)
    x = np.array([float(_SIGN @ model.mu[[model.index[r.players[s]] for s in SEATS]]) for r in rounds])
    y = np.array([r.level_diff for r in rounds], dtype=float)
    slope = float(x @ y / (x @ x))
    console.print(
        f"level difference per unit of deal margin {slope:.2f}, residual sd {np.std(y - slope * x):.2f} "
        "(in sample; round_sd is chosen where the forecasts' z sd is 1)"
    )
    table = Table(title=f"tuning (seed {TUNING_SEED}, 96 × 40)")
    cols = ("spearman", "log_loss", "ece", "coverage_80", "z_sd")
    for col in ("method", "parameter", *cols):
        table.add_column(col)
    candidates: list[tuple[str, str, Method]] = [
        ("gaussian", f"prior_sd {prior}", Gaussian(replace(fitted, prior_sd=prior)))
        for prior in (0.2, 0.3, 0.4)
    ]
    candidates += [
        (
            "gaussian",
            f"round_sd {sd}",
            Gaussian(replace(fitted, prior_sd=0.3, deals_per_round=7.2, round_sd=sd)),
        )
        for sd in (5.5, 5.7, 6.1)
    ]
    candidates += [("ridge", f"lambda {lam}", Ridge(lam)) for lam in (3.0, 10.0, 30.0)]
    candidates += [("bradley_terry", f"lambda {lam}", BradleyTerry(lam)) for lam in (0.5, 2.0, 8.0)]
    for kind, parameter, method in candidates:
        f = evaluate(method, run(method, grouped), skills, 20, min_rounds)
        table.add_row(kind, parameter, *(f"{f.get(k, math.nan):.3f}" for k in cols))
    console.print(table)


def within_fit(rounds: Sequence[RatedRound], skills: dict[str, float]) -> str:
    """How partners' place differences relate to their true skill difference (a sanity check)."""
    diffs, places = [], []
    for r in rounds:
        for d in r.deals:
            for a, c in (("E", "W"), ("N", "S")):
                if a in d.places and c in d.places:
                    diffs.append(skills[r.players[a]] - skills[r.players[c]])
                    places.append(d.places[c] - d.places[a])
    slope = float(np.polyfit(diffs, places, 1)[0])
    return f"partner place difference per unit of true skill difference: {slope:.2f} (n = {len(diffs)})"


def markdown(spec: str, figures: dict[str, dict[str, float]]) -> str:
    """One league's figures as a Markdown table."""
    lines = [
        f"League {spec}:",
        "",
        "| method | Spearman | log-loss | ECE | ECE if calibrated | ECE pooled | accuracy "
        "| coverage 50 / 80 / 95 % |",
        "| --- | --- | --- | --- | --- | --- | --- | --- |",
    ]
    for name, f in figures.items():
        cover = (
            " / ".join(f"{f[f'coverage_{round(x * 100)}']:.2f}" for x in LEVELS)
            if "coverage_50" in f
            else "—"
        )
        cells = " | ".join(f"{f[k]:.3f}" for k in ("spearman", "log_loss", "ece"))
        calibrated = f"{f['ece_calibrated']:.3f} ± {f['ece_calibrated_sd']:.3f}"
        rest = " | ".join(f"{f[k]:.3f}" for k in ("ece_pooled", "accuracy"))
        lines.append(f"| {name} | {cells} | {calibrated} | {rest} | {cover} |")
    return "\n".join(lines)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--leagues", default="96x40,96x12,32x200", help="players x sessions, comma-separated")
    ap.add_argument("--seeds", default="1,2,3,4,5")
    ap.add_argument("--workers", type=int, default=2, help="simulation processes")
    ap.add_argument("--min-rounds", type=int, default=10, help="players with fewer rated rounds are left out")
    ap.add_argument("--tune", action="store_true", help="grid-search parameters on the tuning league")
    ap.add_argument("--json", type=Path, default=None, help="also write the figures here")
    ap.add_argument(
        "--markdown", action="store_true", help="also print the tables as Markdown (docs/ratings.md)"
    )
    args = ap.parse_args()
    console = Console(width=180)
    if args.tune:
        tune(args.workers, args.min_rounds, console)
        return
    seeds = [int(s) for s in args.seeds.split(",")]
    params = RatingParams()
    results = {}
    for spec in args.leagues.split(","):
        players, sessions = (int(x) for x in spec.split("x"))
        t0 = time.perf_counter()
        figures = bench_league(players, sessions, seeds, params, args.workers, args.min_rounds)
        results[spec] = figures
        table = Table(
            title=f"{players} players × {sessions} sessions, seeds {args.seeds} (mean), "
            f"forecasts: sessions > {sessions // 2}, {time.perf_counter() - t0:.0f} s"
        )
        cols = (
            "spearman",
            "log_loss",
            "ece",
            "ece_calibrated",
            "ece_calibrated_sd",
            "ece_pooled",
            "accuracy",
            "coverage_50",
            "coverage_80",
            "coverage_95",
            "forecasts",
            "players",
            "seconds",
        )
        table.add_column("method")
        for col in cols:
            table.add_column(col)
        for name, f in figures.items():
            table.add_row(name, *(f"{f[c]:.3f}" if c in f else "—" for c in cols))
        console.print(table)
        if args.markdown:
            console.print(markdown(spec, figures), soft_wrap=True)
    console.print(
        f"coverage: share of later rounds whose final level difference lies in the forecast's central "
        f"{', '.join(f'{x:.0%}' for x in LEVELS)} intervals"
    )
    if args.json:
        args.json.write_text(
            json.dumps(
                {"args": vars(args) | {"json": str(args.json)}, "results": results}, indent=2, default=str
            )
        )


if __name__ == "__main__":
    main()
