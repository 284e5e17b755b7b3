"""Ratings against true skill on a simulated league: per-round vs per-deal updates (docs/ratings.md).

Simulates a BCTA league (``simulator.simulate_to_dir``), replays it with ``replay.replay_batch``,
scores it (``scoring.round_scores``) and rates it with each update unit and model. For
each variant it reports:

- Spearman correlation of the final rating (mu, and the displayed mu − 3σ) with the simulator's
  true skills (``players.json``), over players with at least ``--min-rounds`` rated rounds;
- log-loss and accuracy of the model's pre-match win probability on the later rounds (sessions
  after the first half, draws left out): an honest forecast, made before each result is known.

Run: ``.venv/bin/python benchmarks/bench_ratings.py --players 96 --rounds 40``.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import math
import time
from dataclasses import replace
from datetime import UTC, datetime
from pathlib import Path

import orjson
import polars as pl
import pyarrow as pa
from rich.console import Console
from rich.progress import track
from rich.table import Table
from scipy.stats import spearmanr

from schemas.tables import RAW_EVENTS
from scoring.params import RatingParams
from scoring.ratings import rate
from scoring.round_scores import score_matches


def simulate(out: Path, players: int, rounds: int, seed: int) -> None:
    """Write the league's logs into ``out`` unless they are already there."""
    from simulator import simulate_to_dir

    if (out / "players.json").exists():
        return
    simulate_to_dir(out, kind="league", players=players, rounds=rounds, seed=seed, progress=True)


def replay_dir(folder: Path) -> dict[str, pl.DataFrame]:
    """Replay every ``*.jsonl`` of ``folder`` (one file at a time) into ``matches`` and ``deals``."""
    from replay import replay_batch

    now = datetime.now(UTC)
    parts: dict[str, list[pl.DataFrame]] = {"matches": [], "deals": []}
    for f in track(sorted(folder.glob("*.jsonl")), description="replaying"):
        rows = []
        for i, line in enumerate(f.read_bytes().splitlines(), 1):
            ev = orjson.loads(line)
            rows.append({"source_file": f.name, "line_no": i, "match_id": ev.get("match"),
                         "seq": ev.get("seq"), "type": ev.get("type"), "payload": line.decode(),
                         "parse_error": None, "content_hash": hashlib.sha1(line).hexdigest(),
                         "ingested_at": now})
        out = replay_batch(pa.Table.from_pylist(rows, schema=RAW_EVENTS))
        for name in parts:
            parts[name].append(pl.from_arrow(out[name]))  # type: ignore[arg-type]
    return {name: pl.concat(frames) for name, frames in parts.items()}


def load_or_replay(folder: Path) -> dict[str, pl.DataFrame]:
    """The replayed tables, cached as Parquet next to the logs (replay is the slow step)."""
    cached = {name: folder / f"{name}.parquet" for name in ("matches", "deals")}
    if all(p.exists() for p in cached.values()):
        return {name: pl.read_parquet(p) for name, p in cached.items()}
    tables = replay_dir(folder)
    for name, p in cached.items():
        tables[name].write_parquet(p)
    return tables


def evaluate(history: pl.DataFrame, ratings: pl.DataFrame, skills: dict[str, float], split_round: int,
             min_rounds: int) -> dict[str, float]:
    """Spearman with true skill and the later rounds' log-loss/accuracy of one rating run."""
    known = ratings.filter((pl.col("rounds") >= min_rounds) & pl.col("player_id").is_in(list(skills)))
    true = [skills[p] for p in known["player_id"]]
    later = history.filter((pl.col("round") > split_round) & pl.col("result").is_in(["win", "loss"]))
    later = later.unique(["match_id", "win_probability", "result"]).unique(["match_id"], keep="first")
    p = later["win_probability"].clip(1e-9, 1 - 1e-9).to_list()
    y = [r == "win" for r in later["result"]]
    loss = -sum(math.log(q if w else 1 - q) for q, w in zip(p, y, strict=True)) / max(len(p), 1)
    acc = sum((q > 0.5) == w for q, w in zip(p, y, strict=True)) / max(len(p), 1)
    return {
        "players": known.height,
        "spearman_mu": float(spearmanr(true, known["mu"].to_list()).statistic),
        "spearman_rating": float(spearmanr(true, known["rating"].to_list()).statistic),
        "log_loss": loss,
        "accuracy": acc,
        "forecasts": len(p),
        "provisional_share": float(known["provisional"].mean() or 0.0),
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--players", type=int, default=96)
    ap.add_argument("--rounds", type=int, default=40, help="league sessions")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--out", type=Path, default=None, help="log folder (reused when present)")
    ap.add_argument("--min-rounds", type=int, default=10, help="players with fewer rated rounds are left out")
    ap.add_argument("--json", type=Path, default=None, help="also write the figures here")
    args = ap.parse_args()
    console = Console(width=160)
    out = args.out or Path(f"/tmp/gdan-bench-ratings-p{args.players}-r{args.rounds}-s{args.seed}")
    t0 = time.perf_counter()
    simulate(out, args.players, args.rounds, args.seed)
    tables = load_or_replay(out)
    t1 = time.perf_counter()
    scores = score_matches(tables["matches"], tables["deals"])
    skills = {p["id"]: p["skill"] for p in json.loads((out / "players.json").read_text())}
    split = args.rounds // 2
    results = {}
    default = RatingParams()
    variants = [default, replace(default, update_unit="deal"),
                replace(default, update_unit="deal", beta=32.0),
                replace(default, beta=25 / 6), replace(default, update_unit="deal", beta=25 / 6),
                replace(default, model="ThurstoneMostellerFull")]
    for params in track(variants, description="rating"):
        ts = time.perf_counter()
        ratings, history = rate(scores, tables["deals"], params)
        name = f"{params.model}/{params.update_unit}/beta={params.beta:.2f}"
        results[name] = {**evaluate(history, ratings, skills, split, args.min_rounds),
                         "seconds": time.perf_counter() - ts}
    table = Table(title=f"ratings vs true skill: {tables['matches'].height} matches, "
                        f"{tables['deals'].height} deals, {len(skills)} players (later rounds > {split})")
    for col in ("variant", "players", "spearman_mu", "spearman_rating", "log_loss", "accuracy", "forecasts",
                "provisional_share", "seconds"):
        table.add_column(col)
    for name, r in results.items():
        table.add_row(name, *(f"{v:.3f}" if isinstance(v, float) else str(v) for v in r.values()))
    console.print(table)
    console.print(f"simulate+replay {t1 - t0:.1f}s")
    if args.json:
        args.json.write_text(json.dumps({"args": {k: str(v) for k, v in vars(args).items()},
                                         "matches": tables["matches"].height, "results": results}, indent=2))


if __name__ == "__main__":
    main()
