"""End to end with the real simulator and replayer: simulate -> ingest -> run -> query."""

from __future__ import annotations

from pathlib import Path

import orjson
import pytest

from pipelines.run import checks
from pipelines.run.runner import run_pipeline
from pipelines.steps.state import load_state
from pipelines.storage.store import Store
from pipelines.storage.warehouse import connect
from simulator import SimulationSummary, simulate_to_dir


def _simulate(out: Path, **kwargs: object) -> SimulationSummary:
    return simulate_to_dir(out, **kwargs)  # type: ignore[arg-type]


def _tree(root: Path) -> list[tuple[str, int]]:
    return sorted((str(p.relative_to(root)), p.stat().st_mtime_ns) for p in root.rglob("*")
                  if not p.name.endswith(".lock"))


def test_sim_store_counts_match_the_simulation(sim_store: Path) -> None:
    con = connect(sim_store)
    statuses = dict(con.execute("SELECT status, count(*) FROM matches GROUP BY ALL").fetchall())
    assert statuses == {"valid": 12 + 5}
    raw_rows = con.execute("SELECT count(*) FROM raw_events").fetchone()
    events = sum(len(p.read_bytes().splitlines()) for p in (sim_store / "inbox").rglob("*.jsonl"))
    assert raw_rows == (events,)
    assert con.execute("SELECT count(*) FROM deals").fetchone() == (2 * 17,)
    assert con.execute("SELECT count(*) FROM player_matches").fetchone() == (4 * 17,)
    assert con.execute("SELECT count(*) FROM quarantine").fetchone() == (0,)
    assert checks.card_conservation(con)[1]["deals_checked"] == 34


@pytest.fixture(scope="module")
def corrupt_store(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, list[dict[str, object]]]:
    root = tmp_path_factory.mktemp("corrupt")
    _simulate(root / "inbox" / "t", kind="tournament", pairs=8, rounds=3, format="deals:2", seed=5,
              corrupt=1.0)
    manifest = orjson.loads((root / "inbox" / "t" / "corrupt" / "manifest.json").read_bytes())["matches"]
    run_pipeline(root, workers=2)
    return root, manifest


def test_corrupted_matches_land_in_quarantine_with_the_manifest_codes(
    corrupt_store: tuple[Path, list[dict[str, object]]],
) -> None:
    root, manifest = corrupt_store
    assert len({e["damage"] for e in manifest}) >= 5
    con = connect(root)
    matches = {m: (s, c, q) for m, s, c, q in con.execute(
        "SELECT match_id, status, error_code, error_seq FROM matches").fetchall()}
    quarantined = set(con.execute("SELECT match_id, code, seq FROM quarantine").fetchall())
    for entry in manifest:
        assert matches[entry["match"]] == ("invalid", entry["code"], entry["seq"]), entry
        assert (entry["match"], entry["code"], entry["seq"]) in quarantined, entry
    clean = [s for m, (s, _, _) in matches.items() if not m.endswith("-corrupt")]
    assert clean and set(clean) == {"valid"}


def test_nothing_is_lost(corrupt_store: tuple[Path, list[dict[str, object]]]) -> None:
    """rows in = rows of valid + partial + invalid + incomplete matches + malformed lines."""
    root, manifest = corrupt_store
    passed, meta = checks.match_statuses(connect(root), load_state(Store(root)))
    assert passed, meta
    lines = sum(len([x for x in p.read_bytes().splitlines() if x.strip()])
                for p in (root / "inbox").rglob("*.jsonl"))
    assert meta["rows_in"] == lines
    assert meta["rows_in"] == meta["rows_replayed"] + meta["rows_incomplete"] + meta["rows_malformed"]
    malformed = sum(e["damage"] in ("truncated_line", "bad_json") for e in manifest)
    assert meta["rows_malformed"] == malformed


def test_rerun_is_a_no_op_and_a_second_batch_adds_exactly_its_matches(tmp_path: Path) -> None:
    first = _simulate(tmp_path / "inbox" / "a", kind="matches", matches=3, players=8, format="deals:1",
                      seed=1)
    run_pipeline(tmp_path, workers=1)
    before = _tree(tmp_path)
    run_pipeline(tmp_path, workers=1)
    assert _tree(tmp_path) == before
    con = connect(tmp_path)
    ids_before = {m for (m,) in con.execute("SELECT match_id FROM matches").fetchall()}
    assert len(ids_before) == first.matches
    second = _simulate(tmp_path / "inbox" / "b", kind="league", players=8, rounds=1, format="deals:1", seed=2)
    run_pipeline(tmp_path, workers=1)
    con = connect(tmp_path)
    ids_after = {m for (m,) in con.execute("SELECT match_id FROM matches").fetchall()}
    assert ids_before < ids_after
    assert len(ids_after - ids_before) == second.matches
    assert con.execute("SELECT count(*) FROM deals").fetchone() == (first.deals + second.deals,)
