"""Results-only matches score exactly like full ones (events.md "Results-only deals"): a small
simulated bcta league, stripped to results-only deals, gives identical ``match_scores``,
``standings``, ``dan_ledger`` and ``dan_current``."""

from __future__ import annotations

import hashlib
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import orjson
import polars as pl
import pyarrow as pa
from polars.testing import assert_frame_equal

from schemas.tables import RAW_EVENTS
from scoring.dan import dan_current, dan_ledger
from scoring.round_scores import score_matches
from scoring.standings import standings
from simulator.strip import strip_to_results


def _replay(matches: dict[str, list[dict[str, Any]]]) -> dict[str, pl.DataFrame]:
    from replay import replay_batch

    now = datetime.now(UTC)
    rows = []
    for match_id, events in matches.items():
        for i, ev in enumerate(events, 1):
            line = orjson.dumps(ev)
            rows.append(
                {
                    "source_file": f"{match_id}.jsonl",
                    "line_no": i,
                    "match_id": match_id,
                    "seq": ev["seq"],
                    "payload": line.decode(),
                    "content_hash": hashlib.sha1(line).hexdigest(),
                    "ingested_at": now,
                }
            )
    out = replay_batch(pa.Table.from_pylist(rows, schema=RAW_EVENTS))
    return {name: pl.from_arrow(out[name]) for name in ("matches", "deals")}  # type: ignore[misc]


def _scored(tables: dict[str, pl.DataFrame]) -> dict[str, pl.DataFrame]:
    scores = score_matches(tables["matches"], tables["deals"])
    ledger, states = dan_ledger(scores)
    return {"match_scores": scores, "standings": standings(scores), "dan_ledger": ledger,
            "dan_current": dan_current(states)}  # fmt: skip


def test_stripped_league_scores_identically(tmp_path: Path) -> None:
    from simulator import simulate_to_dir

    simulate_to_dir(tmp_path, kind="league", players=12, rounds=6, seed=3)
    full: dict[str, list[dict[str, Any]]] = {}
    for f in sorted(tmp_path.glob("*.jsonl")):
        for line in f.read_bytes().splitlines():
            ev = orjson.loads(line)
            full.setdefault(ev["match"], []).append(ev)
    stripped = {m: strip_to_results(evs) for m, evs in full.items()}
    a, b = _replay(full), _replay(stripped)
    assert set(a["matches"]["status"]) == {"valid"}
    assert set(b["matches"]["status"]) == {"results_only"}
    sa, sb = _scored(a), _scored(b)
    assert sa["match_scores"].height > 0 and sa["dan_ledger"].height > 0
    for name in sa:
        assert_frame_equal(sa[name], sb[name], check_exact=True)
