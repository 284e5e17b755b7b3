"""Dagster assets of scoring.md: ``match_scores`` → standings, dan ledger, pro dan, ratings, partners.

Each asset reads its inputs from the store and replaces its table (Parquet, one DuckDB view per
table). All tables are recomputed from the replayed tables on every run: scores, dans and
ratings depend on the order of all rounds, and recomputing is what makes "re-deriving from the
logs gives the same ledger" hold by construction. Checks guard the invariants a referee relies
on (one current row per player, ledger totals that add up, one standings row per team and round).

Scoring reads the replayed tables without the matches that ``duplicate_matches`` marks
``excluded`` (a match ingested again under another id, ``pipelines.duplicates``), so a copy is
not counted twice in scores, dan points and ratings; the copy stays in ``matches``.
"""

from collections.abc import Iterator

import polars as pl
from dagster import (
    AssetCheckResult,
    AssetCheckSpec,
    AssetSpec,
    Config,
    MaterializeResult,
    asset,
    multi_asset,
)
from pydantic import Field

from pipelines.resources import StoreResource
from pipelines.store import Store
from schemas.catalog import ALL_TABLES

GROUP = "scoring"
Results = Iterator[MaterializeResult | AssetCheckResult]
"""What an asset with checks yields. (No ``from __future__ import annotations`` here: Dagster
reads the config classes from the runtime annotations.)"""


class ScoringConfig(Config):
    """Run configuration of the scoring assets."""

    overrides_file: str = Field(default="", description="per-event scoring parameters (.toml/.json), "
                                "see scoring.params.load_event_overrides; empty: none")


def _read(store: Store, name: str) -> pl.DataFrame:
    out = pl.from_arrow(store.read_table(name))
    assert isinstance(out, pl.DataFrame)
    return out


def _scored(store: Store, name: str) -> pl.DataFrame:
    """Table ``name`` without the rows of matches excluded as duplicates (``duplicate_matches``)."""
    table = _read(store, name)
    if not store.has_data("duplicate_matches"):
        return table
    excluded = _read(store, "duplicate_matches").filter(pl.col("excluded"))["match_id"]
    return table.filter(~pl.col("match_id").is_in(excluded.implode()))


def _write(store: Store, name: str, df: pl.DataFrame) -> dict[str, int]:
    schema = ALL_TABLES[name]
    store.write_table(name, df.to_arrow().cast(schema) if df.height else schema.empty_table())
    return {"rows": df.height}


def _check(name: str, asset_key: str, passed: bool, **meta: int | str) -> AssetCheckResult:
    return AssetCheckResult(check_name=name, asset_key=asset_key, passed=bool(passed), metadata=meta)


@asset(name="duplicate_matches", group_name="quality", deps=["matches", "deal_hands", "plays"])
def duplicate_matches_asset(store: StoreResource) -> MaterializeResult:
    """Matches whose deals repeat an earlier match's under another id (``pipelines.duplicates``)."""
    from pipelines.duplicates import duplicate_matches, ingest_order
    from pipelines.state import load_state
    from pipelines.warehouse import connect

    st = store.store()
    con = connect(st.root, snapshot=st.snapshot())
    try:
        table = duplicate_matches(con, ingest_order(load_state(st)))
    finally:
        con.close()
    st.write_table("duplicate_matches", table)
    excluded = sum(table["excluded"].to_pylist())
    return MaterializeResult(metadata={"rows": table.num_rows, "excluded": excluded})


@asset(name="match_scores", group_name=GROUP, deps=["matches", "deals", "duplicate_matches"],
       check_specs=[AssetCheckSpec("two_rows_per_match", asset="match_scores")])
def match_scores_asset(config: ScoringConfig, store: StoreResource) -> Results:
    """Round scores per team per match and byes (scoring.md §S2–§S5), deductions from ``rulings``.

    Matches excluded as duplicates are not scored (see the module docs).
    """
    from scoring.deductions import deductions
    from scoring.params import load_event_overrides
    from scoring.round_scores import score_matches

    st = store.store()
    overrides = load_event_overrides(config.overrides_file) if config.overrides_file else None
    ded = deductions(_scored(st, "rulings")) if "rulings" in ALL_TABLES and st.has_data("rulings") else None
    scores = score_matches(_scored(st, "matches"), _scored(st, "deals"), ded, overrides)
    meta = _write(st, "match_scores", scores)
    yield MaterializeResult(metadata=meta)
    per_match = scores.drop_nulls("match_id").group_by("match_id").len()
    yield _check("two_rows_per_match", "match_scores", per_match.filter(pl.col("len") != 2).is_empty(),
                 matches=per_match.height)


@asset(name="standings", group_name=GROUP, deps=["match_scores"],
       check_specs=[AssetCheckSpec("one_row_per_team_and_round", asset="standings")])
def standings_asset(config: ScoringConfig, store: StoreResource) -> Results:
    """Standings per event/stage after each round with every tie-break column (scoring.md §S7)."""
    from scoring.params import load_event_overrides
    from scoring.standings import standings

    st = store.store()
    overrides = load_event_overrides(config.overrides_file) if config.overrides_file else None
    matches = _read(st, "matches").drop_nulls("winner")
    winners = dict(zip(matches["match_id"].to_list(), matches["winner"].to_list(), strict=True))
    table = standings(_read(st, "match_scores"), overrides, winners)
    yield MaterializeResult(metadata=_write(st, "standings", table))
    dup = table.group_by("event_id", "stage", "after_round", "team_id").len().filter(pl.col("len") > 1)
    yield _check("one_row_per_team_and_round", "standings", dup.is_empty(), duplicates=dup.height)


@multi_asset(
    specs=[AssetSpec("dan_ledger", group_name=GROUP, deps=["match_scores"]),
           AssetSpec("dan_current", group_name=GROUP, deps=["match_scores"])],
    check_specs=[AssetCheckSpec("running_totals_consistent", asset="dan_ledger"),
                 AssetCheckSpec("one_row_per_player", asset="dan_current")],
)
def dan_assets(store: StoreResource) -> Results:
    """The amateur dan ledger and each player's current dan (scoring.md §S5)."""
    from scoring.dan import dan_current, dan_ledger
    from scoring.dan_checks import ledger_problems

    st = store.store()
    ledger, states = dan_ledger(_read(st, "match_scores"))
    current = dan_current(states)
    yield MaterializeResult(asset_key="dan_ledger", metadata=_write(st, "dan_ledger", ledger))
    yield MaterializeResult(asset_key="dan_current", metadata=_write(st, "dan_current", current))
    problems = ledger_problems(ledger)
    yield _check("running_totals_consistent", "dan_ledger", not problems, problems=len(problems),
                 first=problems[0] if problems else "")
    yield _check("one_row_per_player", "dan_current", current["player_id"].is_unique().all(),
                 players=current.height)


@asset(name="pro_dan", group_name=GROUP, deps=["match_scores"])
def pro_dan_asset(store: StoreResource) -> MaterializeResult:
    """Professional dan by win rate over the last rounds (scoring.md §S6)."""
    from scoring.pro_dan import pro_dan

    st = store.store()
    return MaterializeResult(metadata=_write(st, "pro_dan", pro_dan(_read(st, "match_scores"))))


@multi_asset(
    specs=[AssetSpec("ratings", group_name=GROUP, deps=["match_scores", "deals"]),
           AssetSpec("rating_history", group_name=GROUP, deps=["match_scores", "deals"])],
    check_specs=[AssetCheckSpec("one_row_per_player", asset="ratings")],
)
def rating_assets(store: StoreResource) -> Results:
    """Ratings (current) and their per-round history with forecasts; model and parameters stored with them."""
    from scoring.ratings import rate

    st = store.store()
    current, history = rate(_read(st, "match_scores"), _scored(st, "deals"))
    yield MaterializeResult(asset_key="ratings", metadata=_write(st, "ratings", current))
    yield MaterializeResult(asset_key="rating_history", metadata=_write(st, "rating_history", history))
    yield _check("one_row_per_player", "ratings", current["player_id"].is_unique().all(),
                 players=current.height)


@asset(name="partners", group_name=GROUP, deps=["match_scores", "rating_history"])
def partners_asset(store: StoreResource) -> MaterializeResult:
    """Per partnership: rounds together, win rate and rating gain together."""
    from scoring.partners import partners

    st = store.store()
    table = partners(_read(st, "match_scores"), _read(st, "rating_history"))
    return MaterializeResult(metadata=_write(st, "partners", table))


@multi_asset(
    specs=[AssetSpec(name, group_name=GROUP, deps=["matches", "deals", "duplicate_matches"])
           for name in ("duplicate_results", "duplicate_standings")],
)
def duplicate_assets(store: StoreResource) -> Results:
    """Duplicate (複式) events: each deal matchpointed across rooms, pairs ranked by MP score rate."""
    from scoring.duplicate import duplicate_results, duplicate_standings

    st = store.store()
    results = duplicate_results(_scored(st, "matches"), _scored(st, "deals"))
    yield MaterializeResult(asset_key="duplicate_results", metadata=_write(st, "duplicate_results", results))
    yield MaterializeResult(asset_key="duplicate_standings",
                            metadata=_write(st, "duplicate_standings", duplicate_standings(results)))


@multi_asset(
    specs=[AssetSpec(name, group_name=GROUP, deps=["deal_hands", "deals", "tributes", "duplicate_matches"])
           for name in ("luck_model", "player_luck")],
)
def luck_assets(store: StoreResource) -> Results:
    """The expected deal result from the dealt cards, and each player's levels above it."""
    from scoring.luck import luck_tables

    st = store.store()
    model, players = luck_tables(_scored(st, "deal_hands"), _scored(st, "deals"), _scored(st, "tributes"))
    yield MaterializeResult(asset_key="luck_model", metadata=_write(st, "luck_model", model))
    yield MaterializeResult(asset_key="player_luck", metadata=_write(st, "player_luck", players))


@asset(name="dan_forecast", group_name=GROUP, deps=["dan_ledger", "rating_history"])
def dan_forecast_asset(store: StoreResource) -> MaterializeResult:
    """Each player's chance of the next amateur dan before the window resets (scoring.md §S5)."""
    from scoring.dan_forecast import dan_forecast

    st = store.store()
    table = dan_forecast(_read(st, "dan_ledger"), _read(st, "rating_history"))
    return MaterializeResult(metadata=_write(st, "dan_forecast", table))


ASSETS: list = [duplicate_matches_asset, match_scores_asset, standings_asset, dan_assets, pro_dan_asset,
                rating_assets, partners_asset, duplicate_assets, luck_assets, dan_forecast_asset]
"""The scoring assets (pure functions of ``scoring``, wired into the pipeline, with their checks), keyed
by the table names of ``schemas.scoring``, and ``duplicate_matches``, which decides what is scored."""
