"""Acceptance: on a simulated league the ratings rank players like their true skill.

A scale test (simulates and replays ~650 matches, about two minutes): run with ``-m slow``.
The league is 32 players over 100 sessions (~80 rated rounds each); ``benchmarks/bench_ratings.py``
compares the model with its baselines on larger leagues (figures in docs/ratings.md).
"""

from __future__ import annotations

import hashlib
import json
from datetime import UTC, datetime
from pathlib import Path

import orjson
import polars as pl
import pyarrow as pa
import pytest
from scipy.stats import spearmanr

from schemas.tables import RAW_EVENTS
from scoring.ratings import rate
from scoring.round_scores import score_matches


def replay_folder(folder: Path) -> dict[str, pl.DataFrame]:
    """``matches`` and ``deals`` of every log file in ``folder``."""
    from replay import replay_batch

    now = datetime.now(UTC)
    parts: dict[str, list] = {"matches": [], "deals": []}
    for f in sorted(folder.glob("*.jsonl")):
        rows = [
            {
                "source_file": f.name,
                "line_no": i,
                "match_id": orjson.loads(line)["match"],
                "seq": orjson.loads(line)["seq"],
                "payload": line.decode(),
                "content_hash": hashlib.sha1(line).hexdigest(),
                "ingested_at": now,
            }
            for i, line in enumerate(f.read_bytes().splitlines(), 1)
        ]
        out = replay_batch(pa.Table.from_pylist(rows, schema=RAW_EVENTS))
        for name in parts:
            parts[name].append(pl.from_arrow(out[name]))
    return {name: pl.concat(frames) for name, frames in parts.items()}


@pytest.mark.slow
def test_ratings_spearman_with_true_skill_at_least_0_8(tmp_path: Path) -> None:
    from simulator import simulate_to_dir

    simulate_to_dir(tmp_path, kind="league", players=32, rounds=100, seed=1)
    tables = replay_folder(tmp_path)
    ratings, _ = rate(score_matches(tables["matches"], tables["deals"]), tables["deals"])
    skills = {p["id"]: p["skill"] for p in json.loads((tmp_path / "players.json").read_text())}
    rated = ratings.filter(pl.col("rounds") >= 10)
    rho = spearmanr([skills[p] for p in rated["player_id"]], rated["mu"].to_list()).statistic
    assert rated.height == 32
    assert rho >= 0.8, f"Spearman {rho:.3f}"
