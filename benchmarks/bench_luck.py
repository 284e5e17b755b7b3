"""The luck model (scoring/luck.py) on a simulated league: validation and skill recovery.

Simulates a league (``simulator.simulate_to_dir``), replays it with ``replay.replay_batch``,
fits the expected-deal-result model and reports (docs/ratings.md, "Luck against skill"):

- held-out validation: R², RMSE and the calibration table (mean expected vs mean actual per band);
- Spearman correlation with the simulator's true skills (``players.json``) of each player's raw
  mean result per deal and of their levels above expectation, per seed, and their mean difference:
  whether taking the cards out ranks players closer to their skill (on new seeds it does not:
  docs/ratings.md).

Run: ``.venv/bin/python benchmarks/bench_luck.py --seeds 21,22,23`` (96 players × 40 sessions).
"""

from __future__ import annotations

import argparse
import json
from datetime import UTC, datetime
from pathlib import Path

import orjson
import polars as pl
import pyarrow as pa
from rich.console import Console
from rich.table import Table
from scipy.stats import spearmanr

from schemas.tables import RAW_EVENTS
from scoring.luck import LOW_DATA_DEALS, fit, player_luck, team_deals, validate

TABLES = ("matches", "deal_hands", "deals", "tributes")


def league(out: Path, players: int, rounds: int, seed: int) -> dict[str, pl.DataFrame]:
    """The league's replayed tables (simulated and replayed once, then cached as Parquet)."""
    from replay import replay_batch
    from simulator import simulate_to_dir

    cached = {name: out / f"{name}.parquet" for name in TABLES}
    if all(p.exists() for p in cached.values()):
        return {name: pl.read_parquet(p) for name, p in cached.items()}
    if not (out / "players.json").exists():
        simulate_to_dir(out, kind="league", players=players, rounds=rounds, seed=seed, progress=True)
    now = datetime.now(UTC)
    parts: dict[str, list[pl.DataFrame]] = {name: [] for name in TABLES}
    for f in sorted(out.glob("*.jsonl")):
        rows = []
        for i, line in enumerate(f.read_bytes().splitlines(), 1):
            ev = orjson.loads(line)
            rows.append({"source_file": f.name, "line_no": i, "match_id": ev.get("match"),
                         "seq": ev.get("seq"), "type": ev.get("type"), "payload": line.decode(),
                         "parse_error": None, "content_hash": None, "ingested_at": now})
        tables = replay_batch(pa.Table.from_pylist(rows, schema=RAW_EVENTS))
        for name in TABLES:
            parts[name].append(pl.from_arrow(tables[name]))  # type: ignore[arg-type]
    result = {name: pl.concat(frames) for name, frames in parts.items()}
    for name, p in cached.items():
        result[name].write_parquet(p)
    return result


def bench_seed(
    players: int, rounds: int, seed: int, out: Path | None, console: Console
) -> tuple[float, float]:
    """Validation and model of one league; its (raw, adjusted) Spearman with true skill."""
    out = out or Path(f"/tmp/gdan-bench-luck-p{players}-r{rounds}-s{seed}")
    tables = league(out, players, rounds, seed)
    rows = team_deals(tables["deal_hands"], tables["deals"], tables["tributes"])
    check = validate(rows)
    model = fit(rows)
    luck = player_luck(rows, tables["deal_hands"], model).filter(pl.col("deals") >= LOW_DATA_DEALS)
    skills = {p["id"]: p["skill"] for p in json.loads((out / "players.json").read_text())}
    luck = luck.filter(pl.col("player_id").is_in(list(skills)))
    true = [skills[p] for p in luck["player_id"]]
    console.print(f"seed {seed}: {rows.height // 2} deals, {luck.height} players with ≥ {LOW_DATA_DEALS} "
                  f"deals; held out {check.test_rows} team-deals: R² {check.r2:.3f}, RMSE {check.rmse:.3f}")
    calib = Table("band", "mean expected", "mean actual", "team-deals", title="calibration (held out)")
    for i, (e, a, n) in enumerate(check.calibration, 1):
        calib.add_row(str(i), f"{e:+.3f}", f"{a:+.3f}", str(n))
    console.print(calib)
    coef = Table("feature", "levels per unit", title="model (all deals)")
    for name, c in zip(rows.select(pl.exclude("match_id", "deal_no", "team", "result")).columns,
                       model.coefficients, strict=True):
        coef.add_row(name, f"{c:+.3f}")
    console.print(coef)
    raw = float(spearmanr(true, luck["actual_mean"].to_list()).statistic)
    adjusted = float(spearmanr(true, luck["above_expectation"].to_list()).statistic)
    return raw, adjusted


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--players", type=int, default=96)
    ap.add_argument("--rounds", type=int, default=40, help="league sessions")
    ap.add_argument("--seeds", default="21,22,23", help="league seeds, comma-separated")
    ap.add_argument("--out", type=Path, default=None, help="log folder of one seed (reused)")
    args = ap.parse_args()
    seeds = [int(s) for s in args.seeds.split(",")]
    if args.out is not None and len(seeds) != 1:
        ap.error("--out names the folder of one seed")
    console = Console(width=120)
    summary = Table("seed", "raw mean result", "levels above expectation", "difference",
                    title="Spearman with true skill (players with enough deals)")
    differences = []
    for seed in seeds:
        raw, adjusted = bench_seed(args.players, args.rounds, seed, args.out, console)
        differences.append(adjusted - raw)
        summary.add_row(str(seed), f"{raw:.3f}", f"{adjusted:.3f}", f"{adjusted - raw:+.3f}")
    console.print(summary)
    console.print(f"mean difference {sum(differences) / len(differences):+.3f} over {len(seeds)} seeds "
                  f"(positive: the adjustment ranks players closer to their true skill)")


if __name__ == "__main__":
    main()
