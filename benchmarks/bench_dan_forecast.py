"""Backtest of the dan promotion forecast (scoring/dan_forecast.py) on a simulated BCTA league.

At every ``--every``-th session the forecast is made from what was known then (the ledger and the
ratings' pre-match win probabilities of earlier sessions) for every player with a dan window open;
it is scored against what happened in that window afterwards (promoted, or reset; windows still
open when the league ends are left out). Reported for the forecast and for the naive baseline
(this window's points per round so far, extrapolated): the Brier score and a reliability table
(forecasts in bands of probability: mean forecast vs share promoted). Figures: docs/ratings.md.

Run: ``.venv/bin/python benchmarks/bench_dan_forecast.py --players 96 --rounds 40``.
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

from scoring.dan import dan_ledger
from scoring.dan_forecast import dan_forecast
from scoring.ratings import rate
from scoring.round_scores import score_matches

sys.path.insert(0, str(Path(__file__).parent))
from bench_luck import league

BANDS = (0.0, 0.1, 0.3, 0.5, 0.7, 0.9, 1.0001)


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
        for f in dan_forecast(known_ledger, known_history).iter_rows(named=True):
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


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--players", type=int, default=96)
    ap.add_argument("--rounds", type=int, default=40, help="league sessions")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--every", type=int, default=5, help="forecast every N sessions")
    args = ap.parse_args()
    out = Path(f"/tmp/gdan-bench-luck-p{args.players}-r{args.rounds}-s{args.seed}")
    tables = league(out, args.players, args.rounds, args.seed)
    scores = score_matches(tables["matches"], tables["deals"])
    ledger, _ = dan_ledger(scores)
    _, history = rate(scores, tables["deals"])
    result = backtest(ledger, history, args.rounds, args.every)
    console = Console(width=120)
    if result.height == 0:
        console.print("no window ended after a forecast: lengthen the league")
        return
    y = result["outcome"].to_numpy()
    p = result["forecast"].to_numpy()
    naive = result.filter(pl.col("naive").is_not_null())
    nv, ny, npf = (naive[c].to_numpy() for c in ("naive", "outcome", "forecast"))
    console.print(f"{result.height} forecasts ({int(y.sum())} promoted), sessions every {args.every}")
    console.print(f"Brier: forecast {brier(p, y):.3f}, base rate {brier(np.full(len(y), y.mean()), y):.3f}; "
                  f"where the naive baseline has a forecast ({naive.height}): naive {brier(nv, ny):.3f}, "
                  f"forecast {brier(npf, ny):.3f}")
    table = Table("band", "forecasts", "mean forecast", "share promoted", title="reliability (forecast)")
    for band, n, mean_p, share in reliability(p, y):
        table.add_row(band, str(n), f"{mean_p:.3f}", f"{share:.3f}")
    console.print(table)


if __name__ == "__main__":
    main()
