"""Dagster assets of scoring.md for ``dagster dev``: one asset per step of ``pipelines.steps.scoring_steps``.

Each body is one call into its step (which ``gdan run`` calls through ``pipelines.run.plan``), the
step's report turned into Dagster events, the step's checks declared as the asset's check specs.
Keyed by the table names of ``schemas.scoring``, and ``duplicate_matches``, which decides what is
scored. (No ``from __future__ import annotations`` here: Dagster reads the config classes from
the runtime annotations.)
"""

from collections.abc import Iterator

from dagster import AssetCheckResult, AssetCheckSpec, AssetSpec, Config, MaterializeResult, asset, multi_asset
from pydantic import Field

from pipelines.defs.asset_events import step_events
from pipelines.defs.resources import StoreResource
from pipelines.steps import scoring_steps as steps
from scoring.params import load_event_overrides

GROUP = "scoring"
Results = Iterator[MaterializeResult | AssetCheckResult]
"""What a scoring asset yields."""


class ScoringConfig(Config):
    """Run configuration of the scoring assets."""

    overrides_file: str = Field(default="", description="per-event scoring parameters (.toml/.json), "
                                "see scoring.params.load_event_overrides; empty: none")

    def overrides(self) -> steps.Overrides | None:
        """The per-event parameters of ``overrides_file``; None when it is empty."""
        return load_event_overrides(self.overrides_file) if self.overrides_file else None


@asset(name="duplicate_matches", group_name="quality", deps=["matches", "deal_fingerprints"])
def duplicate_matches_asset(store: StoreResource) -> Results:
    """Matches whose deals repeat an earlier match's under another id (``pipelines.steps.duplicates``)."""
    yield from step_events(steps.duplicate_matches_step(store.store()))


@asset(name="match_scores", group_name=GROUP, deps=["matches", "deals", "duplicate_matches"],
       check_specs=[AssetCheckSpec("two_rows_per_match", asset="match_scores")])
def match_scores_asset(config: ScoringConfig, store: StoreResource) -> Results:
    """Round scores per team per match and byes (scoring.md §S2–§S5), deductions from ``rulings``."""
    yield from step_events(steps.match_scores_step(store.store(), config.overrides()))


@asset(name="standings", group_name=GROUP, deps=["match_scores"],
       check_specs=[AssetCheckSpec("one_row_per_team_and_round", asset="standings")])
def standings_asset(config: ScoringConfig, store: StoreResource) -> Results:
    """Standings per event/stage after each round with every tie-break column (scoring.md §S7)."""
    yield from step_events(steps.standings_step(store.store(), config.overrides()))


@multi_asset(
    specs=[AssetSpec("dan_ledger", group_name=GROUP, deps=["match_scores"]),
           AssetSpec("dan_current", group_name=GROUP, deps=["match_scores"])],
    check_specs=[AssetCheckSpec("running_totals_consistent", asset="dan_ledger"),
                 AssetCheckSpec("one_row_per_player", asset="dan_current")],
)
def dan_assets(store: StoreResource) -> Results:
    """The amateur dan ledger and each player's current dan (scoring.md §S5)."""
    yield from step_events(steps.dan_step(store.store()))


@asset(name="pro_dan", group_name=GROUP, deps=["match_scores"])
def pro_dan_asset(store: StoreResource) -> Results:
    """Professional dan by win rate over the last rounds (scoring.md §S6)."""
    yield from step_events(steps.pro_dan_step(store.store()))


@multi_asset(
    specs=[AssetSpec(name, group_name=GROUP, deps=["match_scores", "deals"]) for name in steps.RATING_TABLES],
    check_specs=[AssetCheckSpec("one_row_per_player", asset="ratings")],
)
def rating_assets(store: StoreResource) -> Results:
    """Ratings (current), their per-round history with forecasts, and where the next run goes on from."""
    yield from step_events(steps.ratings_step(store.store()))


@asset(name="partners", group_name=GROUP, deps=["match_scores", "rating_history"])
def partners_asset(store: StoreResource) -> Results:
    """Per partnership: rounds together, win rate and rating gain together."""
    yield from step_events(steps.partners_step(store.store()))


@multi_asset(
    specs=[AssetSpec(name, group_name=GROUP, deps=["matches", "deals", "duplicate_matches"])
           for name in ("duplicate_results", "duplicate_standings")],
)
def duplicate_assets(store: StoreResource) -> Results:
    """Duplicate (複式) events: each deal matchpointed across rooms, pairs ranked by MP score rate."""
    yield from step_events(steps.duplicate_events_step(store.store()))


@multi_asset(
    specs=[AssetSpec(name, group_name=GROUP, deps=["deal_hands", "deals", "tributes", "duplicate_matches"])
           for name in ("luck_model", "player_luck")],
)
def luck_assets(store: StoreResource) -> Results:
    """The expected deal result from the dealt cards, and each player's levels above it."""
    yield from step_events(steps.luck_step(store.store()))


@asset(name="dan_forecast", group_name=GROUP, deps=["dan_ledger", "rating_history"])
def dan_forecast_asset(store: StoreResource) -> Results:
    """Each player's chance of the next amateur dan before the window resets (scoring.md §S5)."""
    yield from step_events(steps.dan_forecast_step(store.store()))


ASSETS: list = [duplicate_matches_asset, match_scores_asset, standings_asset, dan_assets, pro_dan_asset,
                rating_assets, partners_asset, duplicate_assets, luck_assets, dan_forecast_asset]
"""The scoring assets, one per scoring step, in the steps' order."""
