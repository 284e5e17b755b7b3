"""The Dagster code location loads, its graph is the run plan's declaration, its sensor and schedule
are deployed, and its assets materialize with its resources (the store and the replay executor)
into the same tables as ``gdan run``."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from dagster import AssetKey, DagsterInstance, Definitions, ScheduleDefinition, materialize
from pipeline_helpers import store_tables
from pydantic import ValidationError

from pipelines.definitions import defs
from pipelines.defs.assets import PRIVATE
from pipelines.defs.resources import ExecutorResource, StoreResource
from pipelines.defs.single_dummy import single_dummy_reviews
from pipelines.exec.executor import Executor, ExecutorKind
from pipelines.run import plan
from pipelines.run.runner import run_pipeline
from schemas.scoring import SCORING
from schemas.tables import DERIVED
from simulator import simulate_to_dir


def test_definitions_are_loadable() -> None:
    Definitions.validate_loadable(defs)


def test_every_asset_depends_on_what_its_step_declares_it_reads() -> None:
    """The graph is the plan's declaration (``Step.reads``/``writes``), not a second copy."""
    graph = defs.resolve_asset_graph()
    keys = {k.to_user_string() for k in graph.get_all_asset_keys()}
    assert {"raw_events", "warehouse", *DERIVED} <= keys
    for name in (*DERIVED, "incomplete_matches", "superseded"):
        assert graph.get(AssetKey(name)).parent_keys == {AssetKey("raw_events")}, name
    for step in plan.DOWNSTREAM_STEPS:
        declared = {AssetKey(t) for t in step.reads if t not in step.writes and t not in PRIVATE}
        for table in step.writes:
            assert graph.get(AssetKey(table)).parent_keys == declared, table


def test_the_single_dummy_review_is_opt_in() -> None:
    """Its asset reads the events and the matches, and the default ``pipeline`` job leaves it out."""
    graph = defs.resolve_asset_graph()
    key = AssetKey("single_dummy_reviews")
    assert graph.get(key).parent_keys == {AssetKey("raw_events"), AssetKey("matches")}
    pipeline = defs.resolve_job_def("pipeline").asset_layer.selected_asset_keys
    assert key not in pipeline and AssetKey("matches") in pipeline
    assert defs.resolve_job_def("single_dummy").asset_layer.selected_asset_keys == {key}


def test_the_sensor_and_the_maintenance_schedule_are_deployed() -> None:
    assert [s.name for s in defs.sensors or []] == ["inbox_sensor"]
    schedules = [s for s in defs.schedules or [] if isinstance(s, ScheduleDefinition)]
    assert [(s.name, s.job_name) for s in schedules] == [("nightly_maintain", "maintain_job")]


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
    default_run = [a for a in defs.assets or () if a is not single_dummy_reviews]  # the opt-in asset aside
    result = materialize(
        [*default_run, *defs.asset_checks],  # type: ignore[list-item]
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


def test_the_maintain_job_maintains_the_store(tmp_path: Path) -> None:
    """What the nightly schedule runs is ``gdan maintain``: the store compacted, its tables unchanged."""
    from pipelines.defs.jobs import maintain_job

    root = tmp_path / "store"
    simulate_to_dir(root / "inbox", kind="tournament", pairs=4, rounds=1, format="deals:1", seed=4)
    run_pipeline(root, workers=1)
    before = store_tables(root)
    result = maintain_job.execute_in_process(
        resources={"store": StoreResource(root=str(root))},
        run_config={"ops": {"maintain_store": {"config": {"retention_days": 0}}}},
    )
    assert result.success
    assert store_tables(root) == before


def test_the_code_location_refuses_a_store_on_object_storage() -> None:
    """The assets write the store in place: an s3:// root is refused in one line, not taken for a
    folder named ``s3:``."""
    refused = r"s3://bucket/league: the Dagster code location needs a store folder"
    with pytest.raises(ValueError, match=refused):
        StoreResource(root="s3://bucket/league").store()
