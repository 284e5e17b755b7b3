"""Backtest of the dan promotion forecast (scoring/dan_forecast.py) on simulated BCTA leagues.

At every ``--every``-th session the forecast is made from what was known then (the ledger and the
ratings' pre-match win probabilities of earlier sessions) for every player with a dan window open;
it is scored against what happened in that window afterwards (promoted, or reset; windows still
open when the league ends are left out). The raw forecasts (the simulated share, before the
recalibration) are cached per league under ``/tmp/gdan-bench-dan-forecast-*``.

- ``--fit``: fit the Platt recalibration on the tuning seeds (``--tune-seeds``) and print it;
  the constants go into ``scoring.dan_forecast.RECALIBRATION`` by hand.
- otherwise: check ``RECALIBRATION`` on the held-out seeds (``--seeds``, which may not be tuning
  seeds): per seed and pooled, the Brier score of the calibrated and the raw forecast, the naive
  0/1 baseline (this window's points per round so far, extrapolated), that baseline clipped to
  0.1/0.9, and the base rate; and the pooled reliability table (bands of probability: mean
  forecast, share promoted, their difference and its binomial standard error). The claim checked:
  every populated band within ``--tolerance`` (0.05); the exit status is 1 when it fails.
  Figures: docs/ratings.md.

Run: ``.venv/bin/python benchmarks/bench_dan_forecast.py`` (held-out seeds 21–24; ``--fit`` refits).
"""

from __future__ import annotations

import argparse
import sys
from itertools import pairwise
from pathlib import Path

import numpy as np
import polars as pl
from rich.console import Console
from rich.table import Table
from scipy.optimize import minimize
from scipy.special import expit, logit

from scoring.dan import dan_ledger
from scoring.dan_forecast import IDENTITY, RECALIBRATION, Recalibration, dan_forecast
from scoring.ratings import rate
from scoring.round_scores import score_matches

sys.path.insert(0, str(Path(__file__).parent))
from bench_luck import league

BANDS = (0.0, 0.1, 0.3, 0.5, 0.7, 0.9, 1.0001)
TUNING_SEEDS = (1001, 1002)
"""The leagues the recalibration is fitted on; the check refuses them."""


def outcomes(ledger: pl.DataFrame) -> dict[tuple[str, int, int], float]:
    """(player, dan, window_no) → 1.0 when that window ended in promotion, 0.0 when it was reset."""
    ended = ledger.filter(pl.col("event").is_in(["promoted", "window_reset"]))
    return {
        (r["player_id"], r["dan_before"], r["window_no"]): float(r["event"] == "promoted")
        for r in ended.iter_rows(named=True)
    }


def backtest(ledger: pl.DataFrame, history: pl.DataFrame, rounds: int, every: int) -> pl.DataFrame:
    """One row per (session, player with an open window): forecast, baseline and outcome."""
    ended = outcomes(ledger)
    rows = []
    for session in range(every, rounds, every):
        known_ledger = ledger.filter(pl.col("round") <= session)
        known_history = history.filter(pl.col("round") <= session)
        last = known_ledger.sort("seq").group_by("player_id").last()
        windows = {
            r["player_id"]: r["window_no"] + (r["event"] in ("promoted", "window_reset"))
            for r in last.iter_rows(named=True)
        }
        for f in dan_forecast(known_ledger, known_history, recalibration=IDENTITY).iter_rows(named=True):
            outcome = ended.get((f["player_id"], f["dan"], windows[f["player_id"]]))
            if outcome is not None:
                rows.append(
                    {
                        "session": session,
                        "player_id": f["player_id"],
                        "forecast": f["p_promote"],
                        "naive": f["naive_promote"],
                        "outcome": outcome,
                        "low_data": f["low_data"],
                    }
                )
    return pl.DataFrame(rows)


def brier(p: np.ndarray, y: np.ndarray) -> float:
    return float(((p - y) ** 2).mean())


def reliability(p: np.ndarray, y: np.ndarray) -> list[tuple[str, int, float, float]]:
    out = []
    for lo, hi in pairwise(BANDS):
        pick = (p >= lo) & (p < hi)
        if pick.any():
            out.append(
                (f"{lo:.1f}–{min(hi, 1):.1f}", int(pick.sum()), float(p[pick].mean()), float(y[pick].mean()))
            )
    return out


def raw_backtest(players: int, rounds: int, seed: int, every: int) -> pl.DataFrame:
    """The league's backtest with the simulation's raw shares (cached as Parquet)."""
    cached = Path(f"/tmp/gdan-bench-dan-forecast-p{players}-r{rounds}-s{seed}-e{every}.parquet")
    if cached.exists():
        return pl.read_parquet(cached)
    tables = league(Path(f"/tmp/gdan-bench-luck-p{players}-r{rounds}-s{seed}"), players, rounds, seed)
    scores = score_matches(tables["matches"], tables["deals"])
    ledger, _ = dan_ledger(scores)
    _, history = rate(scores, tables["deals"])
    result = backtest(ledger, history, rounds, every)
    result.write_parquet(cached)
    return result


def fit_recalibration(raw: np.ndarray, y: np.ndarray) -> Recalibration:
    """The Platt mapping of maximum likelihood for raw shares ``raw`` and outcomes ``y``."""
    x = np.array([logit(IDENTITY(p)) for p in raw])

    def loss(w: np.ndarray) -> float:
        q = np.clip(expit(w[0] + w[1] * x), 1e-12, 1 - 1e-12)
        return float(-(y * np.log(q) + (1 - y) * np.log(1 - q)).sum())

    intercept, slope = minimize(loss, np.array([0.0, 1.0])).x
    return Recalibration(float(intercept), float(slope))


def seeds_of(text: str) -> list[int]:
    return [int(s) for s in text.split(",") if s]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--players", type=int, default=96)
    ap.add_argument("--rounds", type=int, default=40, help="league sessions")
    ap.add_argument("--seeds", default="21,22,23,24", help="held-out seeds checked")
    ap.add_argument("--tune-seeds", default=",".join(map(str, TUNING_SEEDS)))
    ap.add_argument("--every", type=int, default=5, help="forecast every N sessions")
    ap.add_argument("--tolerance", type=float, default=0.05)
    ap.add_argument("--fit", action="store_true", help="fit the recalibration on the tuning seeds")
    args = ap.parse_args()
    console = Console(width=120)
    tuning, held_out = seeds_of(args.tune_seeds), seeds_of(args.seeds)
    if args.fit:
        raw = pl.concat([raw_backtest(args.players, args.rounds, s, args.every) for s in tuning])
        fitted = fit_recalibration(raw["forecast"].to_numpy(), raw["outcome"].to_numpy())
        console.print(f"tuning seeds {tuning}, {raw.height} forecasts: {fitted}")
        return
    if overlap := set(tuning) & set(held_out):
        ap.error(f"seeds {sorted(overlap)} are tuning seeds: check on seeds the fit never saw")
    console.print(f"{RECALIBRATION} (fitted on seeds {tuning}); held-out seeds {held_out}")
    briers = Table("seed", "forecasts (promoted)", "forecast", "with a naive one", "forecast",
                   "raw simulation", "naive 0/1", "naive 0.1/0.9", "base rate",
                   title="Brier score (lower is better)")
    pooled = []
    for seed in held_out:
        result = raw_backtest(args.players, args.rounds, seed, args.every)
        pooled.append(
            result.with_columns(
                pl.col("forecast").alias("raw"),
                pl.col("forecast").map_elements(RECALIBRATION, return_dtype=pl.Float64),
            )
        )
    for label, result in [*zip(map(str, held_out), pooled, strict=True), ("pooled", pl.concat(pooled))]:
        y, p = result["outcome"].to_numpy(), result["forecast"].to_numpy()
        both = result.filter(pl.col("naive").is_not_null())
        by, bp, braw, naive = (both[c].to_numpy() for c in ("outcome", "forecast", "raw", "naive"))
        base = np.full(len(by), by.mean())
        briers.add_row(
            label, f"{result.height} ({int(y.sum())})", f"{brier(p, y):.3f}", str(both.height),
            f"{brier(bp, by):.3f}", f"{brier(braw, by):.3f}", f"{brier(naive, by):.3f}",
            f"{brier(np.clip(naive, 0.1, 0.9), by):.3f}", f"{brier(base, by):.3f}",
        )
    console.print(briers)
    all_rows = pl.concat(pooled)
    y, p = all_rows["outcome"].to_numpy(), all_rows["forecast"].to_numpy()
    table = Table("band", "forecasts", "mean forecast", "share promoted", "difference", "s.e.", "within",
                  title=f"reliability, pooled held-out seeds (tolerance ±{args.tolerance})")
    failed = []
    for band, n, mean_p, share in reliability(p, y):
        within = abs(share - mean_p) <= args.tolerance
        failed += [] if within else [band]
        se = (mean_p * (1 - mean_p) / n) ** 0.5
        table.add_row(band, str(n), f"{mean_p:.3f}", f"{share:.3f}", f"{share - mean_p:+.3f}", f"{se:.3f}",
                      "yes" if within else "NO")
    console.print(table)
    for seed, result in zip(held_out, pooled, strict=True):
        y, p = result["outcome"].to_numpy(), result["forecast"].to_numpy()
        bands = ", ".join(f"{b} {share - m:+.2f} (n {n})" for b, n, m, share in reliability(p, y))
        console.print(f"seed {seed}, share promoted − mean forecast per band: {bands}")
    if failed:
        console.print(f"claim NOT met: bands {failed} off by more than {args.tolerance}")
        sys.exit(1)
    console.print(f"claim met: every populated band within ±{args.tolerance} on the pooled held-out seeds")


if __name__ == "__main__":
    main()
