"""A run without reviews (``run_pipeline(reviews=False)``, ``gdan run --no-reviews``):
its matches get no ``play_reviews`` rows while every other table is the same as a run with them,
and a later run with reviews reviews only the matches it replays."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from gdan import app
from pipelines.exec import cpu
from pipelines.run.runner import run_pipeline
from pipelines.storage.store import Store
from pipelines.storage.warehouse import connect
from simulator import simulate_to_dir

COMPARED = ("matches", "deals", "plays", "deal_hands", "quarantine", "seat_patterns", "player_patterns")


def _simulated(root: Path, seed: int) -> None:
    simulate_to_dir(Store(root).inbox / f"s{seed}", kind="matches", matches=2, players=4,
                    format="deals:3", seed=seed)


def _table(root: Path, name: str) -> list[tuple[object, ...]]:
    return sorted(connect(root).execute(f"SELECT * FROM {name}").fetchall(), key=repr)


def _count(root: Path, sql: str) -> int:
    row = connect(root).execute(sql).fetchone()
    assert row is not None
    return int(row[0])


@pytest.fixture(scope="module")
def with_and_without(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """The same two simulated matches run with reviews and without."""
    reviewed, bare = tmp_path_factory.mktemp("reviewed"), tmp_path_factory.mktemp("bare")
    for root in (reviewed, bare):
        _simulated(root, seed=11)
    assert run_pipeline(reviewed, workers=1).success
    assert run_pipeline(bare, workers=1, reviews=False).success
    return reviewed, bare


def test_a_run_without_reviews_writes_no_play_reviews(with_and_without: tuple[Path, Path]) -> None:
    reviewed, bare = with_and_without
    assert _count(reviewed, "SELECT count(*) FROM play_reviews") > 0
    assert _count(bare, "SELECT count(*) FROM play_reviews") == 0
    assert _count(bare, "SELECT count(*) FROM player_reviews") == 0


@pytest.mark.parametrize("name", COMPARED)
def test_every_other_table_is_the_same(with_and_without: tuple[Path, Path], name: str) -> None:
    reviewed, bare = with_and_without
    assert _table(bare, name) == _table(reviewed, name)


def test_a_later_run_with_reviews_reviews_only_its_own_matches(tmp_path: Path) -> None:
    _simulated(tmp_path, seed=11)
    assert run_pipeline(tmp_path, workers=1, reviews=False).success
    _simulated(tmp_path, seed=12)
    assert run_pipeline(tmp_path, workers=1).success
    matches = _count(tmp_path, "SELECT count(*) FROM matches WHERE status = 'valid'")
    reviewed = _count(tmp_path, "SELECT count(DISTINCT match_id) FROM play_reviews")
    assert matches == 4 and reviewed == 2


def test_gdan_run_no_reviews(tmp_path: Path) -> None:
    _simulated(tmp_path, seed=11)
    result = CliRunner().invoke(app, ["run", "--store", str(tmp_path), "--workers", "1", "--no-reviews"])
    assert result.exit_code == 0, result.output
    assert _count(tmp_path, "SELECT count(*) FROM matches") == 2
    assert _count(tmp_path, "SELECT count(*) FROM play_reviews") == 0


def test_the_workers_cpu_is_counted_per_stage(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """``pipelines.exec.cpu.CPU_S`` splits a run's worker CPU (bench_pipeline.py reports it)."""
    monkeypatch.setattr(cpu, "CPU_S", {})
    _simulated(tmp_path, seed=11)
    assert run_pipeline(tmp_path, workers=1, reviews=False).success
    assert cpu.CPU_S["parse"] > 0 and cpu.CPU_S["replay"] > 0
    assert cpu.CPU_S.get("reviews", 0.0) == 0.0
    _simulated(tmp_path, seed=12)
    assert run_pipeline(tmp_path, workers=1).success
    assert cpu.CPU_S["reviews"] > 0
