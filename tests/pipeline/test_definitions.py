"""The Dagster code location loads and wires the pipeline as issue 5 asks."""

from __future__ import annotations

from dagster import AssetKey, Definitions

from pipelines.definitions import defs
from schemas.tables import DERIVED, SUMMARIES


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
    """incomplete_matches comes with the replay; the Player page's summaries after plays; the
    roster after the raw match_start events and the matches' start times."""
    graph = defs.resolve_asset_graph()
    assert AssetKey("raw_events") in graph.get(AssetKey("incomplete_matches")).parent_keys
    inputs = {AssetKey(n) for n in ("plays", "deal_hands", "tributes")}
    for name in ("player_patterns", "player_leads"):
        assert graph.get(AssetKey(name)).parent_keys == inputs
    assert graph.get(AssetKey("players")).parent_keys == {AssetKey("raw_events"), AssetKey("matches")}


def test_asset_checks_cover_statuses_uniqueness_and_cards() -> None:
    graph = defs.resolve_asset_graph()
    checks = {(k.asset_key.to_user_string(), k.name) for k in graph.asset_check_keys}
    assert {("matches", "match_statuses_check"), ("matches", "unique_match_ids_check"),
            ("deals", "card_conservation_check")} <= checks
