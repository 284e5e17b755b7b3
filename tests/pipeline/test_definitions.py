"""The Dagster code location loads and wires the pipeline, and its assets, a thin
adapter over the run plan, materialize with its resources (the store
and the replay executor) into the same tables as ``gdan run``."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from dagster import AssetKey, DagsterInstance, Definitions, materialize
from pipeline_helpers import store_tables
from pydantic import ValidationError

from pipelines.definitions import defs
from pipelines.defs.resources import ExecutorResource, StoreResource
from pipelines.exec.executor import Executor, ExecutorKind
from pipelines.run.runner import run_pipeline
from schemas.scoring import SCORING
from schemas.tables import DERIVED, SUMMARIES
from simulator import simulate_to_dir


def test_definitions_are_loadable() -> None:
    Definitions.validate_loadable(defs)


def test_asset_keys_are_the_table_names_and_the_warehouse_comes_last() -> None:
    graph = defs.resolve_asset_graph()
    keys = {k.to_user_string() for k in graph.get_all_asset_keys()}
    assert {"raw_events", "warehouse", *DERIVED} <= keys
    for name in DERIVED:
        assert AssetKey("raw_events") in graph.get(AssetKey(name)).parent_keys
    warehouse_parents = graph.get(AssetKey("warehouse")).parent_keys
    assert warehouse_parents >= {AssetKey("raw_events"), *(AssetKey(n) for n in (*DERIVED, *SUMMARIES))}


def test_summary_tables_follow_their_inputs() -> None:
    """incomplete_matches and seat_patterns come with the replay; the Player page's per-player
    summaries after the per-match counts the replay appends; the roster after the raw
    match_start events and the matches' start times."""
    graph = defs.resolve_asset_graph()
    for name in ("incomplete_matches", "seat_patterns", "player_match_patterns", "player_match_leads"):
        assert AssetKey("raw_events") in graph.get(AssetKey(name)).parent_keys, name
    inputs = {AssetKey(n) for n in ("player_match_patterns", "player_match_leads")}
    for name in ("player_patterns", "player_leads"):
        assert graph.get(AssetKey(name)).parent_keys == inputs
    assert graph.get(AssetKey("players")).parent_keys == {AssetKey("raw_events"), AssetKey("matches")}


def test_asset_checks_cover_statuses_uniqueness_and_cards() -> None:
    graph = defs.resolve_asset_graph()
    checks = {(k.asset_key.to_user_string(), k.name) for k in graph.asset_check_keys}
    assert {("matches", "match_statuses_check"), ("matches", "unique_match_ids_check"),
            ("deals", "card_conservation_check")} <= checks


def test_the_resources_default_to_the_local_pool_and_configure_dask() -> None:
    resources = defs.resources or {}
    assert isinstance(resources["store"], StoreResource)
    assert isinstance(resources["executor"], ExecutorResource)
    assert resources["executor"].executor() == Executor()
    dask = ExecutorResource(kind="dask", address="tcp://scheduler:8786").executor()
    assert dask == Executor(ExecutorKind.DASK, "tcp://scheduler:8786")
    assert ExecutorResource(kind="dask").executor().address is None
    with pytest.raises(ValidationError):
        ExecutorResource(kind="ray")  # type: ignore[arg-type]


def test_the_code_location_materializes_the_same_tables_as_run_pipeline(tmp_path: Path) -> None:
    """Dagster's own ``materialize`` over every asset and check of ``defs`` (pointed at a temporary
    store) runs the plan's steps: every check passes and every table equals ``run_pipeline``'s."""
    inbox = tmp_path / "sim"
    summary = simulate_to_dir(inbox, kind="tournament", pairs=4, rounds=2, format="deals:1", seed=3)
    by_dagster, by_runner = tmp_path / "dagster", tmp_path / "runner"
    for root in (by_dagster, by_runner):
        shutil.copytree(inbox, root / "inbox")
    result = materialize(
        [*defs.assets, *defs.asset_checks],  # type: ignore[list-item]
        resources={"store": StoreResource(root=str(by_dagster), replay_workers=1),
                   "executor": ExecutorResource()},
        instance=DagsterInstance.ephemeral(),
    )
    assert result.success
    materialized = {e.asset_key.to_user_string() for e in result.get_asset_materialization_events()}
    assert materialized == run_pipeline(by_runner, workers=1).materialized
    assert {"raw_events", "incomplete_matches", "warehouse", *DERIVED, *SCORING} <= materialized
    evaluations = result.get_asset_check_evaluations()
    assert len(evaluations) == 9 and all(e.passed for e in evaluations)
    replayed = next(
        e.materialization.metadata for e in result.get_asset_materialization_events()
        if e.asset_key == AssetKey("matches")
    )
    assert replayed["matches_replayed"].value == summary.matches
    tables = store_tables(by_dagster)
    assert tables["matches"] and tables["match_scores"] and tables["standings"]
    assert tables == store_tables(by_runner)
