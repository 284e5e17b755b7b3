"""The luck step's cost follows the new data: per-match sums in ``luck_statistics``,
their totals in ``luck_totals``.

The store of ``test_incremental_scoring`` over three runs (new matches, a copy of a match that is
excluded, a correction, an incomplete match completed later, a late match, results-only deals):
after each run ``luck_model`` and ``player_luck`` equal, row for row and bit for bit, what
``scoring.luck.luck_tables`` gives over the whole store, and what one run over every file at once
gives; the later runs compute the sums of the new and changed matches only, replace only their
rows and update the totals by them.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import polars as pl
import pytest
from deltalake import DeltaTable
from test_incremental_scoring import DAYS, _write, run_days

from pipelines.run.runner import run_pipeline
from pipelines.steps import scoring_steps
from pipelines.steps.scoring_steps import _scored, luck_step
from pipelines.steps.step_reports import RunReport
from pipelines.storage.store import Store
from scoring.luck import HAND_FEATURES, luck_tables

LUCK_TABLES = ("luck_model", "player_luck", "luck_statistics", "luck_totals")


def _rows(root: Path, name: str) -> list[dict[str, object]]:
    """The rows of table ``name``; ``luck_statistics`` by match and player (a run appends its new
    matches' rows after the others), ``luck_totals`` without the version of the rows it adds up
    (each store has its own)."""
    table = pl.from_arrow(Store(root).read_table(name))
    assert isinstance(table, pl.DataFrame)
    if name == "luck_statistics":
        table = table.sort("match_id", "player_id", nulls_last=False)
    if name == "luck_totals":
        table = table.drop("of_version")
    return table.to_dicts()


def _check_against_whole(root: Path) -> None:
    """``luck_model`` and ``player_luck`` equal the pure function over the whole store, in order."""
    store = Store(root).pinned()
    hands = _scored(store, "deal_hands", ["match_id", "deal_no", "team", "player_id", *HAND_FEATURES])
    model, players = luck_tables(hands, _scored(store, "deals"), _scored(store, "tributes"))
    assert _rows(root, "luck_model") == model.to_dicts()
    assert _rows(root, "player_luck") == players.to_dicts()


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, list[RunReport]]:
    """Three runs, each checked against a whole computation; the store and the run reports."""
    root = tmp_path_factory.mktemp("incremental_luck") / "store"
    return root, run_days(root, _check_against_whole)


def test_later_runs_compute_only_the_new_and_changed_matches(runs: tuple[Path, list[RunReport]]) -> None:
    root, reports = runs
    assert all(r.success for r in reports)
    luck = [r.step("luck").outputs["luck_model"] for r in reports]
    # Run 1: every match (ro1's results-only deal gives a row of zeros). Run 2: s2-1, s2-2, the
    # correction of s1-2 and c2 (c1-copy is excluded, m4 incomplete). Run 3: m4, o0 and n1.
    assert [(s["statistics"], s["matches"], s["matches_added"]) for s in luck] == [
        ("whole", 5, 5), ("added", 8, 4), ("added", 11, 3)]
    assert _rows(root, "luck_model")[0]["test_rows"] and _rows(root, "player_luck")
    kept = {r["match_id"] for r in _rows(root, "luck_statistics")}
    scored = set(_scored(Store(root).pinned(), "matches")["match_id"].to_list())
    assert kept == scored and "c1-copy" not in kept
    writes = [(h["operation"], h.get("operationParameters", {}).get("mode"))
              for h in reversed(DeltaTable(Store(root).table_path("luck_statistics")).history())]
    # Run 1 writes the table; runs 2 and 3 delete the rows of the corrected s1-2 and append.
    assert [w for w in writes if w[0] != "SET TBLPROPERTIES"] == [
        ("WRITE", "Overwrite"), ("DELETE", None), ("WRITE", "Append"), ("WRITE", "Append")]


def test_totals_not_of_the_rows_kept_are_added_up_again(
    runs: tuple[Path, list[RunReport]], tmp_path: Path
) -> None:
    """Totals of another ``luck_statistics`` version (a run stopped between the two writes) or
    missing are added up again from every kept row, to the same tables."""
    root, _ = runs
    copy = tmp_path / "store"
    shutil.copytree(root, copy)
    before = {name: _rows(copy, name) for name in LUCK_TABLES}
    store = Store(copy).pinned()
    totals = pl.from_arrow(store.read_table("luck_totals"))
    assert isinstance(totals, pl.DataFrame)
    wrong = totals.with_columns(of_version=pl.col("of_version") - 1, deals=pl.col("deals") + 1)
    store.write_table("luck_totals", wrong.to_arrow())
    luck_step(Store(copy).pinned())
    assert {name: _rows(copy, name) for name in LUCK_TABLES} == before
    shutil.rmtree(Store(copy).table_path("luck_totals"))
    again = luck_step(Store(copy).pinned()).outputs["luck_model"]
    assert (again["statistics"], again["matches_added"]) == ("added", 0)
    assert {name: _rows(copy, name) for name in LUCK_TABLES} == before


def test_one_run_over_every_file_gives_the_same_rows(
    runs: tuple[Path, list[RunReport]], tmp_path: Path
) -> None:
    """Delete the tables, rerun, get the same result: one run over the three days' files at once."""
    root, _ = runs
    fresh = tmp_path / "store"
    for day in DAYS:
        for name, events in day.items():
            _write(fresh, name, events)
    report = run_pipeline(fresh, workers=1, reviews=False)
    assert report.step("luck").outputs["luck_model"]["statistics"] == "whole"
    for name in LUCK_TABLES:
        assert _rows(fresh, name) == _rows(root, name), name


def test_a_store_without_its_statistics_is_computed_whole(
    runs: tuple[Path, list[RunReport]], tmp_path: Path
) -> None:
    """Deleting ``luck_statistics``, or sums of another scheme, cost one whole computation, to the
    same rows; a run with nothing changed adds no match."""
    root, _ = runs
    copy = tmp_path / "store"
    shutil.copytree(root, copy)
    before = {name: _rows(copy, name) for name in LUCK_TABLES}
    again = luck_step(Store(copy).pinned()).outputs["luck_model"]
    assert (again["statistics"], again["matches_added"]) == ("added", 0)
    shutil.rmtree(Store(copy).table_path("luck_statistics"))
    assert luck_step(Store(copy).pinned()).outputs["luck_model"]["statistics"] == "whole"
    store = Store(copy).pinned()
    stale = pl.from_arrow(store.read_table("luck_statistics"))
    assert isinstance(stale, pl.DataFrame)
    store.write_table("luck_statistics", stale.with_columns(scheme=pl.lit("luck-0")).to_arrow())
    assert luck_step(Store(copy).pinned()).outputs["luck_model"]["statistics"] == "whole"
    assert {name: _rows(copy, name) for name in LUCK_TABLES} == before


def test_sums_computed_a_few_matches_at_a_time_are_the_same_rows(
    runs: tuple[Path, list[RunReport]], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The sums are computed ``LUCK_CHUNK_MATCHES`` matches at a time (the step's memory at 1M
    deals): two at a time, a whole computation and one of three matches give the same rows."""
    root, _ = runs
    copy = tmp_path / "store"
    shutil.copytree(root, copy)
    before = {name: _rows(copy, name) for name in LUCK_TABLES}
    monkeypatch.setattr(scoring_steps, "LUCK_CHUNK_MATCHES", 2)
    shutil.rmtree(Store(copy).table_path("luck_statistics"))
    whole = luck_step(Store(copy).pinned()).outputs["luck_model"]
    assert (whole["statistics"], whole["matches_added"]) == ("whole", 11)
    assert {name: _rows(copy, name) for name in LUCK_TABLES} == before
    store = Store(copy).pinned()
    kept = pl.from_arrow(store.read_table("luck_statistics"))
    assert isinstance(kept, pl.DataFrame)
    dropped = sorted(set(kept["match_id"].to_list()))[:3]
    store.write_table("luck_statistics", kept.filter(~pl.col("match_id").is_in(dropped)).to_arrow())
    added = luck_step(Store(copy).pinned()).outputs["luck_model"]
    assert (added["statistics"], added["matches_added"]) == ("added", 3)
    assert {name: _rows(copy, name) for name in LUCK_TABLES} == before
