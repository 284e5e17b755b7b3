"""A run with new rounds rates only those (``pipelines.steps.scoring_steps.ratings_step``), and the store
ends as if every round had arrived at once (the real replayer, a simulated Swiss tournament)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from pipeline_helpers import store_tables

from pipelines.run.runner import run_pipeline
from pipelines.storage.store import Store
from simulator import simulate_to_dir


@pytest.fixture(scope="module")
def rounds(tmp_path_factory: pytest.TempPathFactory) -> list[Path]:
    """Four rounds of a Swiss tournament of 4 pairs (2 matches a round), one file a round."""
    out = tmp_path_factory.mktemp("swiss")
    simulate_to_dir(out, kind="tournament", pairs=4, rounds=4, format="deals:2", seed=3)
    return sorted(out.glob("*.jsonl"))


def _deliver(root: Path, files: list[Path]) -> None:
    inbox = Store(root).inbox
    inbox.mkdir(parents=True, exist_ok=True)
    for f in files:
        shutil.copy(f, inbox / f.name)


def test_later_rounds_are_rated_from_the_last_state(tmp_path: Path, rounds: list[Path]) -> None:
    by_parts, at_once = tmp_path / "parts", tmp_path / "once"
    _deliver(by_parts, rounds[:2])
    first = run_pipeline(by_parts, workers=1, reviews=False)
    assert first.step("ratings").outputs["rating_history"]["rounds_rated"] == 4
    _deliver(by_parts, rounds[2:])
    second = run_pipeline(by_parts, workers=1, reviews=False)
    assert second.success
    assert second.step("ratings").outputs["rating_history"]["rounds_rated"] == 4
    _deliver(at_once, rounds)
    assert run_pipeline(at_once, workers=1, reviews=False).step("ratings").outputs["rating_history"][
        "rounds_rated"] == 8
    assert store_tables(by_parts) == store_tables(at_once)


def test_a_store_without_the_state_rates_every_round(tmp_path: Path, rounds: list[Path]) -> None:
    """Deleting the resume tables (or a store from before them) costs one whole rating, not a wrong one."""
    _deliver(tmp_path, rounds[:2])
    run_pipeline(tmp_path, workers=1, reviews=False)
    before = store_tables(tmp_path)
    store = Store(tmp_path)
    for name in ("rating_state", "rating_progress"):
        shutil.rmtree(store.table_path(name))
    _deliver(tmp_path, rounds[2:3])
    again = run_pipeline(tmp_path, workers=1, reviews=False)
    assert again.step("ratings").outputs["rating_history"]["rounds_rated"] == 6
    assert len(store_tables(tmp_path)["rating_history"]) == len(before["rating_history"]) + 4 * 2


def test_a_stored_history_out_of_order_rates_every_round(tmp_path: Path, rounds: list[Path]) -> None:
    """The resume point holds but ``rating_history`` is not its rounds in order (rewritten by
    hand here): the run rates every round rather than append to rows it cannot vouch for."""
    parts, at_once = tmp_path / "parts", tmp_path / "once"
    _deliver(parts, rounds[:2])
    run_pipeline(parts, workers=1, reviews=False)
    store = Store(parts)
    store.write_table("rating_history", store.read_table("rating_history")[::-1])
    _deliver(parts, rounds[2:])
    again = run_pipeline(parts, workers=1, reviews=False)
    assert again.step("ratings").outputs["rating_history"]["rounds_rated"] == 8
    _deliver(at_once, rounds)
    run_pipeline(at_once, workers=1, reviews=False)
    assert store_tables(parts) == store_tables(at_once)
