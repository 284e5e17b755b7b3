"""Backtest of the dan promotion forecast (scoring/dan_forecast.py) on simulated BCTA leagues.

At every ``--every``-th session up to ``--until`` the forecast is made from what was known then
(the ledger and the ratings of earlier sessions) for every player with a dan window open; it is
scored against what happened in that window afterwards (promoted, or reset). The league runs on
to ``--rounds`` sessions so that most of those windows end: a window still open when the league
ends is left out, and those are mostly windows not (yet) promoted, so leaving out many flatters
the promotion rate. Their number is reported per seed. The raw forecasts (the simulated share,
before the recalibration) are cached per league under ``/tmp/gdan-bench-dan-forecast-*``
(delete them after changing the forecast model).

- ``--fit``: fit the Platt recalibration on the tuning seeds (``--tune-seeds``) and print it;
  the constants go into ``scoring.dan_forecast.RECALIBRATION`` by hand.
- otherwise: check ``RECALIBRATION`` on the held-out seeds (``--seeds``, which may not be tuning
  seeds): per seed and pooled, the Brier score of the calibrated and the raw forecast, the naive
  0/1 baseline (this window's points per round so far, extrapolated), that baseline clipped to
  0.1/0.9, and the base rate; and the pooled reliability table (bands of probability: mean
  forecast, share promoted, their difference and its binomial standard error). The claim checked:
  every populated band within ``--tolerance`` (0.05); the exit status is 1 when it fails.
  Figures: docs/ratings.md.

Run: ``.venv/bin/python benchmarks/bench_dan_forecast.py`` (held-out seeds 31–46; ``--fit`` refits on
1001–1008).
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
TUNING_SEEDS = tuple(range(1001, 1009))
"""The leagues the recalibration is fitted on; the check refuses them."""


def outcomes(ledger: pl.DataFrame) -> dict[tuple[str, int, int], float]:
    """(player, dan, window_no) → 1.0 when that window ended in promotion, 0.0 when it was reset."""
    ended = ledger.filter(pl.col("event").is_in(["promoted", "window_reset"]))
    return {
        (r["player_id"], r["dan_before"], r["window_no"]): float(r["event"] == "promoted")
        for r in ended.iter_rows(named=True)
    }


def backtest(ledger: pl.DataFrame, history: pl.DataFrame, until: int, every: int) -> tuple[pl.DataFrame, int]:
    """One row per (session ≤ ``until``, player with an open window): forecast, baseline and
    outcome; and how many such windows were still open when the league ended (left out)."""
    ended = outcomes(ledger)
    rows = []
    censored = 0
    for session in range(every, until + 1, every):
        known_ledger = ledger.filter(pl.col("round") <= session)
        known_history = history.filter(pl.col("round") <= session)
        last = known_ledger.sort("seq").group_by("player_id").last()
        windows = {
            r["player_id"]: r["window_no"] + (r["event"] in ("promoted", "window_reset"))
            for r in last.iter_rows(named=True)
        }
        for f in dan_forecast(known_ledger, known_history, recalibration=IDENTITY).iter_rows(named=True):
            outcome = ended.get((f["player_id"], f["dan"], windows[f["player_id"]]))
            if outcome is None:
                censored += 1
                continue
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
    return pl.DataFrame(rows), censored


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


def league_se(p: np.ndarray, y: np.ndarray, league: np.ndarray) -> float:
    """Standard error of the mean of ``y − p`` with the forecasts of one league as one cluster:
    a league forecasts the same players' windows again every few sessions, so its forecasts are
    not independent, and the binomial error understates the spread between leagues."""
    residual = y - p - (y - p).mean()
    sums = np.array([residual[league == k].sum() for k in np.unique(league)])
    k = len(sums)
    return float(np.sqrt((sums**2).sum() * k / (k - 1)) / len(p)) if k > 1 else float("nan")


def reliability_table(
    p: np.ndarray, y: np.ndarray, league: np.ndarray, tolerance: float
) -> tuple[Table, list[str]]:
    """The reliability bands (mean forecast, share promoted, difference, its binomial standard
    error and its standard error between leagues) and the bands off by more than ``tolerance``."""
    table = Table("band", "forecasts", "mean forecast", "share promoted", "difference", "s.e. binomial",
                  "s.e. between leagues", "within", title=f"reliability (tolerance ±{tolerance})")
    failed = []
    for (band, n, mean_p, share), (lo, hi) in zip(reliability(p, y), populated(p), strict=True):
        within = abs(share - mean_p) <= tolerance
        failed += [] if within else [band]
        pick = (p >= lo) & (p < hi)
        se = (mean_p * (1 - mean_p) / n) ** 0.5
        table.add_row(band, str(n), f"{mean_p:.3f}", f"{share:.3f}", f"{share - mean_p:+.3f}", f"{se:.3f}",
                      f"{league_se(p[pick], y[pick], league[pick]):.3f}", "yes" if within else "NO")
    return table, failed


def populated(p: np.ndarray) -> list[tuple[float, float]]:
    """The bands (lower, upper) that hold a forecast, in the order :func:`reliability` lists them."""
    return [(lo, hi) for lo, hi in pairwise(BANDS) if ((p >= lo) & (p < hi)).any()]


def raw_backtest(players: int, rounds: int, until: int, seed: int, every: int) -> tuple[pl.DataFrame, int]:
    """The league's backtest with the simulation's raw shares and its censored count (cached)."""
    stem = f"/tmp/gdan-bench-dan-forecast-p{players}-r{rounds}-u{until}-s{seed}-e{every}"
    cached, count = Path(f"{stem}.parquet"), Path(f"{stem}.censored")
    if cached.exists() and count.exists():
        return pl.read_parquet(cached), int(count.read_text())
    tables = league(Path(f"/tmp/gdan-bench-luck-p{players}-r{rounds}-s{seed}"), players, rounds, seed)
    scores = score_matches(tables["matches"], tables["deals"])
    ledger, _ = dan_ledger(scores)
    _, history = rate(scores, tables["deals"])
    result, censored = backtest(ledger, history, until, every)
    result.write_parquet(cached)
    count.write_text(str(censored))
    return result, censored


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
    ap.add_argument("--rounds", type=int, default=80, help="league sessions")
    ap.add_argument("--until", type=int, default=40, help="last session forecast from")
    ap.add_argument("--seeds", default=",".join(map(str, range(31, 47))), help="held-out seeds checked")
    ap.add_argument("--tune-seeds", default=",".join(map(str, TUNING_SEEDS)))
    ap.add_argument("--every", type=int, default=5, help="forecast every N sessions")
    ap.add_argument("--tolerance", type=float, default=0.05)
    ap.add_argument("--fit", action="store_true", help="fit the recalibration on the tuning seeds")
    args = ap.parse_args()
    console = Console(width=120)
    tuning, held_out = seeds_of(args.tune_seeds), seeds_of(args.seeds)

    def backtest_of(seed: int) -> tuple[pl.DataFrame, int]:
        return raw_backtest(args.players, args.rounds, args.until, seed, args.every)

    if args.fit:
        raw = pl.concat([backtest_of(s)[0].with_columns(league=pl.lit(s)) for s in tuning])
        shares, promoted = raw["forecast"].to_numpy(), raw["outcome"].to_numpy()
        console.print(f"tuning seeds {tuning}: the raw simulation")
        console.print(reliability_table(shares, promoted, raw["league"].to_numpy(), args.tolerance)[0])
        fitted = fit_recalibration(shares, promoted)
        console.print(f"tuning seeds {tuning}, {raw.height} forecasts: {fitted}")
        return
    if overlap := set(tuning) & set(held_out):
        ap.error(f"seeds {sorted(overlap)} are tuning seeds: check on seeds the fit never saw")
    console.print(f"{RECALIBRATION} (fitted on seeds {tuning}); held-out seeds {held_out}")
    briers = Table("seed", "forecasts (promoted)", "left out (open at the end)", "forecast",
                   "with a naive one", "forecast", "raw simulation", "naive 0/1", "naive 0.1/0.9",
                   "base rate",
                   title="Brier score (lower is better)")
    pooled, left_out = [], []
    for seed in held_out:
        result, censored = backtest_of(seed)
        left_out.append(censored)
        pooled.append(
            result.with_columns(
                pl.col("forecast").alias("raw"),
                pl.col("forecast").map_elements(RECALIBRATION, return_dtype=pl.Float64),
            )
        )
    per_seed = zip(map(str, held_out), pooled, left_out, strict=True)
    for label, result, censored in [*per_seed, ("pooled", pl.concat(pooled), sum(left_out))]:
        y, p = result["outcome"].to_numpy(), result["forecast"].to_numpy()
        both = result.filter(pl.col("naive").is_not_null())
        by, bp, braw, naive = (both[c].to_numpy() for c in ("outcome", "forecast", "raw", "naive"))
        base = np.full(len(by), by.mean())
        briers.add_row(
            label, f"{result.height} ({int(y.sum())})", str(censored), f"{brier(p, y):.3f}", str(both.height),
            f"{brier(bp, by):.3f}", f"{brier(braw, by):.3f}", f"{brier(naive, by):.3f}",
            f"{brier(np.clip(naive, 0.1, 0.9), by):.3f}", f"{brier(base, by):.3f}",
        )
    console.print(briers)
    all_rows = pl.concat(pooled)
    y, p = all_rows["outcome"].to_numpy(), all_rows["forecast"].to_numpy()
    league = np.concatenate([np.full(r.height, seed) for seed, r in zip(held_out, pooled, strict=True)])
    table, failed = reliability_table(p, y, league, args.tolerance)
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
