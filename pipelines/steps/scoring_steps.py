"""The scoring steps of scoring.md: ``duplicate_matches`` → match scores → standings, dan, ratings, ...

Each step reads its inputs from the store, replaces its table(s) and returns a
:class:`~pipelines.steps.step_reports.StepReport` with the checks a referee relies on (one current row
per player, ledger totals that add up, one standings row per team and round). Every table is
what computing it from the whole replayed tables gives ("re-deriving from the logs gives the
same ledger"), but not every step computes it so: ``match_scores``, ``standings`` and
``duplicate_results`` recompute only the partitions whose inputs changed
(``pipelines.steps.scoring_parts``), the dan ledger and the ratings go on from the stored ledger and
posterior when the new rounds come after every one applied, and fall back to the whole
computation otherwise; the luck model is refitted from exact per-match sums of which only the new
or changed matches' are computed (``pipelines.steps.luck_statistics``). The other tables are recomputed
whole on every run with something new.

Scoring reads the replayed tables without the matches that ``duplicate_matches`` marks
``excluded`` (a match ingested again under another id, ``pipelines.steps.duplicates``), so a copy is
not counted twice in scores, dan points and ratings; the copy stays in ``matches``.

``gdan run`` calls them through ``pipelines.run.plan``; the Dagster assets made from their
declarations (:data:`SCORING_STEPS`, ``pipelines.defs.assets.step_asset``) call each one.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterator, Mapping
from typing import TYPE_CHECKING, Any

import polars as pl

from pipelines.steps.step_reports import CheckOutcome, Meta, Step, StepReport
from pipelines.storage.store import Store
from schemas.catalog import ALL_TABLES
from scoring.frames import typed_table
from scoring.params import ScoringParams

if TYPE_CHECKING:
    import pyarrow.dataset as ds

    from scoring.ratings import RatingState

Overrides = Mapping[str, ScoringParams]
"""Per-event scoring parameters by event id (``scoring.params.load_event_overrides``)."""


def _read(store: Store, name: str, columns: list[str] | None = None,
          where: ds.Expression | None = None) -> pl.DataFrame:
    out = pl.from_arrow(store.read_table(name, columns, where))
    assert isinstance(out, pl.DataFrame)
    return out


def _scored(store: Store, name: str, columns: list[str] | None = None,
            where: ds.Expression | None = None) -> pl.DataFrame:
    """Table ``name`` (only ``columns``, which then include ``match_id``; only the rows ``where``
    selects) without the rows of matches excluded as duplicates (``duplicate_matches``)."""
    table = _read(store, name, columns, where)
    if not store.has_data("duplicate_matches"):
        return table
    excluded = _read(store, "duplicate_matches").filter(pl.col("excluded"))["match_id"]
    return table.filter(~pl.col("match_id").is_in(excluded.implode()))


def _write(store: Store, name: str, df: pl.DataFrame) -> Meta:
    """Replace table ``name`` by ``df``, in its row order (one chunk: delta-rs may write the
    record batches of a chunked table in another order)."""
    store.write_table(name, typed_table(df, ALL_TABLES[name]))
    return {"rows": df.height}


def _write_described(store: Store, name: str, df: pl.DataFrame, digests: pl.DataFrame) -> Meta:
    """:func:`_write`, then store ``digests`` as the partition digests describing the rows as
    written, typed as reading them back gives them (``pipelines.steps.partitions.save``)."""
    from pipelines.steps import partitions

    table = typed_table(df, ALL_TABLES[name])
    store.write_table(name, table)
    written = pl.from_arrow(table)
    assert isinstance(written, pl.DataFrame)
    partitions.save(store, name, digests, written)
    return {"rows": df.height}


def duplicate_matches_step(store: Store) -> StepReport:
    """Matches whose deals repeat an earlier match's under another id (``pipelines.steps.duplicates``),
    from the deals' fingerprints computed when they were replayed (``deal_fingerprints``)."""
    from pipelines.steps.duplicates import duplicate_matches, ingest_order
    from pipelines.steps.state import load_state

    table = duplicate_matches(store.read_table("deal_fingerprints"), ingest_order(load_state(store)))
    store.write_table("duplicate_matches", table)
    excluded = sum(table["excluded"].to_pylist())
    metadata: Meta = {"rows": table.num_rows, "excluded": excluded}
    return StepReport("duplicate_matches", {"duplicate_matches": metadata})


def match_scores_step(store: Store, overrides: Overrides | None = None) -> StepReport:
    """Round scores per team per match and byes (scoring.md §S2–§S5), deductions from ``rulings``.

    Matches excluded as duplicates are not scored (see the module docs). ``overrides``: per-event
    scoring parameters (``scoring.params.load_event_overrides``). Only the partitions (event
    stages, matches without an event) whose inputs changed are scored again
    (``pipelines.steps.scoring_parts``); the table is what scoring every match gives.
    """
    from pipelines.steps import partitions
    from pipelines.steps.partitions import changed
    from pipelines.steps.scoring_parts import in_whole_order, kept, partition_of, rows_of, score_digests
    from scoring.deductions import deductions
    from scoring.round_scores import score_matches

    ruled = "rulings" in ALL_TABLES and store.has_data("rulings")
    rulings = _scored(store, "rulings") if ruled else None
    matches = _scored(store, "matches")
    now = score_digests(matches, rulings, overrides)
    stored_rows = _read(store, "match_scores")
    before = partitions.stored(store, "match_scores", stored_rows)
    if before is None:
        ded = deductions(rulings) if rulings is not None else None
        scores = score_matches(matches, _scored(store, "deals"), ded, overrides)
        redone = now.height
    else:
        todo = changed(now, before)
        keyed = matches.with_columns(partition_of())
        redo = keyed.filter(pl.col(partitions.PART).is_in(sorted(todo))).drop(partitions.PART)
        ids = redo["match_id"].to_list()
        ded = deductions(rulings.filter(pl.col("match_id").is_in(ids))) if rulings is not None else None
        fresh = score_matches(redo, rows_of(store, "deals", ids), ded, overrides)
        scores = in_whole_order(pl.concat([kept(stored_rows, partition_of(), now, todo), fresh],
                                          how="vertical_relaxed"), matches)
        redone = len(todo)
    meta = _write_described(store, "match_scores", scores, now)
    per_match = scores.drop_nulls("match_id").group_by("match_id").len()
    two_each = per_match.filter(pl.col("len") != 2).is_empty()
    check = CheckOutcome("two_rows_per_match", "match_scores", two_each, {"matches": per_match.height})
    return StepReport("match_scores", {"match_scores": {**meta, "partitions": now.height,
                                                         "partitions_scored": redone}}, (check,))


def standings_step(store: Store, overrides: Overrides | None = None) -> StepReport:
    """Standings per event/stage after each round with every tie-break column (scoring.md §S7).

    Only the event stages whose ``match_scores`` rows, winners or override changed are ranked
    again (``pipelines.steps.scoring_parts``); the table is what ranking every stage gives. A
    duplicate (複式) stage has none: its standings are the MP table (``duplicate_standings``,
    scoring.md §S9), and match points would count each room of a board as a match.
    """
    from pipelines.steps import partitions
    from pipelines.steps.partitions import changed
    from pipelines.steps.scoring_parts import kept, stage_of, standings_in_whole_order, with_params
    from scoring.standings import standings

    rooms = _read(store, "matches", ["match_id", "winner", "event_id", "stage", "duplicate_board"])
    matches = rooms.drop_nulls("winner")
    winners = dict(zip(matches["match_id"].to_list(), matches["winner"].to_list(), strict=True))
    duplicate = rooms.drop_nulls("duplicate_board").select("event_id", "stage").unique()
    scores = _read(store, "match_scores").join(
        duplicate, on=["event_id", "stage"], how="anti", nulls_equal=True
    )  # a stage ranked before it was known as duplicate: its rows leave with its partitions
    eligible = scores.filter(pl.col("event_id").is_not_null() & pl.col("round").is_not_null())
    keyed = eligible.with_columns(stage_of(), pl.col("match_id").replace_strict(
        winners, default=None, return_dtype=pl.String).alias("_winner"))
    now = partitions.digests(with_params(keyed, overrides))
    stored_rows = _read(store, "standings")
    before = partitions.stored(store, "standings", stored_rows)
    if before is None:
        table = standings(scores, overrides, winners)
        redone = now.height
    else:
        todo = changed(now, before)
        redo = keyed.filter(pl.col(partitions.PART).is_in(sorted(todo))).drop(partitions.PART, "_winner")
        fresh = standings(redo, overrides, winners)
        table = standings_in_whole_order(pl.concat([kept(stored_rows, stage_of(), now, todo), fresh],
                                                   how="vertical_relaxed"))
        redone = len(todo)
    meta = _write_described(store, "standings", table, now)
    dup = table.group_by("event_id", "stage", "after_round", "team_id").len().filter(pl.col("len") > 1)
    check = CheckOutcome("one_row_per_team_and_round", "standings", dup.is_empty(),
                         {"duplicates": dup.height})
    outputs = {"standings": {**meta, "partitions": now.height, "partitions_ranked": redone}}
    return StepReport("standings", outputs, (check,))


def dan_step(store: Store) -> StepReport:
    """The amateur dan ledger and each player's current dan (scoring.md §S5).

    When the rounds the stored ledger holds are still the first rounds in time order, unchanged
    (their digest in ``scoring_partitions``), only the later ones are applied, from the players'
    states the ledger ends with (``scoring.dan.states_from_ledger``): the same ledger as applying
    every round. Otherwise (a correction, a round that sorts earlier, no digest) every round.
    """
    from pipelines.steps import partitions
    from scoring.dan import continue_ledger, dan_current, dan_ledger, dan_rounds, states_from_ledger
    from scoring.dan_checks import ledger_problems

    scores = _read(store, "match_scores")
    rounds = dan_rounds(scores)
    stored_ledger = _read(store, "dan_ledger")
    before = partitions.stored(store, "dan_ledger", stored_ledger)
    done = stored_ledger["match_id"].n_unique() if before is not None else 0
    if before is not None and partitions.lookup(before, ROUNDS) == _rounds_digest(rounds[:done]) \
            and done <= len(rounds):
        states = states_from_ledger(stored_ledger)
        ledger = pl.concat([stored_ledger, continue_ledger(rounds[done:], states)],
                           how="vertical_relaxed").sort("player_id", "seq")
    else:
        ledger, states = dan_ledger(scores)
        done = 0
    current = dan_current(states)
    digests = partitions.of(ROUNDS, _rounds_digest(rounds))
    outputs = {"dan_ledger": {**_write_described(store, "dan_ledger", ledger, digests),
                              "rounds_applied": len(rounds) - done},
               "dan_current": _write(store, "dan_current", current)}
    problems = ledger_problems(ledger)
    checks = (
        CheckOutcome("running_totals_consistent", "dan_ledger", not problems,
                     {"problems": len(problems), "first": problems[0] if problems else ""}),
        CheckOutcome("one_row_per_player", "dan_current", bool(current["player_id"].is_unique().all()),
                     {"players": current.height}),
    )
    return StepReport("dan", outputs, checks)


ROUNDS = "rounds"
"""The one ``scoring_partitions`` entry of ``dan_ledger``: the digest of the rounds it holds."""


def _rounds_digest(rounds: list[Any]) -> str:
    """A SHA-256 of dan rounds (``scoring.dan.dan_rounds``), in order."""
    return hashlib.sha256("\n".join(repr(r) for r in rounds).encode()).hexdigest()


def pro_dan_step(store: Store) -> StepReport:
    """Professional dan by win rate over the last rounds (scoring.md §S6)."""
    from scoring.pro_dan import pro_dan

    return StepReport("pro_dan", {"pro_dan": _write(store, "pro_dan", pro_dan(_read(store, "match_scores")))})


RATING_TABLES = ("ratings", "rating_history", "rating_state", "rating_progress")
"""The tables the ratings step writes; the last two are where the next run goes on from."""


def _rating_resume(store: Store) -> RatingState | None:
    """The ratings' resume point, if the last ratings step wrote all four of its tables from one commit."""
    from scoring.params import RatingParams
    from scoring.rating_state import state_from_tables

    if len({store.input_of(name) for name in RATING_TABLES}) != 1 or not store.has_data("rating_progress"):
        return None
    return state_from_tables(_read(store, "rating_state"), _read(store, "rating_progress"), RatingParams())


def ratings_step(store: Store) -> StepReport:
    """Ratings (current) and their per-round history with forecasts; model and parameters stored with them.

    Only the rounds after those the last run rated are rated, from its posterior
    (``rating_state``), when every earlier round is as it was (``scoring.ratings.rate_from``);
    the history is then the stored one plus theirs, exactly what rating every round gives
    (should the stored history not be the state's round for round, every round is rated).
    """
    from scoring.rating_state import state_tables
    from scoring.ratings import DEAL_COLUMNS, rate_from

    deals, scores = _scored(store, "deals", list(DEAL_COLUMNS)), _read(store, "match_scores")
    run = rate_from(scores, deals, resume=_rating_resume(store))
    history = run.history
    if run.resumed_after:
        earlier = _read(store, "rating_history")
        if run.continues(earlier):
            history = pl.concat([earlier, history])
        else:
            run = rate_from(scores, deals)
            history = run.history
    state, progress = state_tables(run.state)
    outputs = {"ratings": _write(store, "ratings", run.current),
               "rating_history": {**_write(store, "rating_history", history),
                                  "rounds_rated": run.state.rounds - run.resumed_after},
               "rating_state": _write(store, "rating_state", state),
               "rating_progress": _write(store, "rating_progress", progress)}
    check = CheckOutcome("one_row_per_player", "ratings", bool(run.current["player_id"].is_unique().all()),
                         {"players": run.current.height})
    return StepReport("ratings", outputs, (check,))


def partners_step(store: Store) -> StepReport:
    """Per partnership: rounds together, win rate and rating gain together."""
    from scoring.partners import partners

    table = partners(_read(store, "match_scores"), _read(store, "rating_history"))
    return StepReport("partners", {"partners": _write(store, "partners", table)})


def duplicate_events_step(store: Store) -> StepReport:
    """Duplicate (複式) events: each deal matchpointed across rooms, pairs ranked by MP score rate.

    ``duplicate_results`` is recomputed only for the event stages whose rooms (their ``matches``
    rows) changed, from those rooms' deals alone (``pipelines.steps.scoring_parts``); the standings
    are ranked from the results of every duplicate event, a table as small as those events.
    """
    from pipelines.steps import partitions
    from pipelines.steps.partitions import changed
    from pipelines.steps.scoring_parts import kept, results_in_whole_order, rows_of, stage_of
    from scoring.duplicate import SCORED_STATUSES, duplicate_results, duplicate_standings

    matches = _scored(store, "matches")
    rooms = matches.filter(pl.col("duplicate_board").is_not_null() & pl.col("status").is_in(SCORED_STATUSES))
    keyed = rooms.with_columns(stage_of())
    now = partitions.digests(keyed)
    stored_rows = _read(store, "duplicate_results")
    before = partitions.stored(store, "duplicate_results", stored_rows)
    todo = set(now[partitions.PART].to_list()) if before is None else changed(now, before)
    old = kept(stored_rows, stage_of(), now, todo)
    redo = keyed.filter(pl.col(partitions.PART).is_in(sorted(todo))).drop(partitions.PART)
    fresh = duplicate_results(redo, rows_of(store, "deals", redo["match_id"].to_list()))
    results = results_in_whole_order(pl.concat([old, fresh], how="vertical_relaxed"))
    outputs = {"duplicate_results": {**_write_described(store, "duplicate_results", results, now),
                                     "partitions": now.height, "partitions_compared": len(todo)},
               "duplicate_standings": _write(store, "duplicate_standings", duplicate_standings(results))}
    return StepReport("duplicate_events", outputs)


def luck_step(store: Store) -> StepReport:
    """The expected deal result from the dealt cards, and each player's levels above it.

    Only the matches new or changed since the last run have their sums computed (reading their
    rows alone); the tables are refitted from the totals of every match's sums, updated by those
    (``pipelines.steps.luck_statistics``): the same tables as computing every match at once."""
    from pipelines.steps import luck_statistics as kept_sums
    from scoring.luck import tables_from_statistics

    now = kept_sums.match_digests(_scored(store, "matches"))
    plan = kept_sums.plan(store, now)
    fresh = (kept_sums.with_digests(sums, chunk, now)
             for chunk, sums in _luck_sums(store, plan.todo, whole=plan.whole))
    model, players = tables_from_statistics(kept_sums.update(store, plan, fresh))
    outputs = {"luck_model": {**_write(store, "luck_model", model), "statistics": "whole" if plan.whole
                              else "added", "matches": now.height, "matches_added": len(plan.todo)},
               "player_luck": _write(store, "player_luck", players)}
    return StepReport("luck", outputs)


LUCK_CHUNK_MATCHES = 5_000
"""Matches whose luck sums are computed together: bounds the step's memory when every match is
computed (1M deals at once took the run's peak to 2.9 GiB, docs/performance.md; a
chunk of 10,000 matches peaked ≈ 500 MiB above the step's start, one of 5,000 ≈ 360 MiB, in the
same time)."""


def _luck_sums(store: Store, match_ids: list[str], *,
               whole: bool) -> Iterator[tuple[list[str], pl.DataFrame]]:
    """``scoring.luck.statistics`` of the matches ``match_ids``, :data:`LUCK_CHUNK_MATCHES` at a
    time, as each chunk's ids and sums (the sums are per match, so the chunks' rows are the rows of
    computing all at once); one chunk, empty, without matches.

    A chunk's rows are read by their id range and ids (``store.of_matches``) when ``whole`` (every
    scored match, in id order: each chunk is one range), else by the files holding them
    (``scoring_parts.rows_of``: a few matches spread over the files)."""
    chunks = [match_ids[i:i + LUCK_CHUNK_MATCHES] for i in range(0, len(match_ids), LUCK_CHUNK_MATCHES)]
    for chunk in chunks or [[]]:
        yield chunk, _chunk_luck_sums(store, chunk, whole=whole)


def _chunk_luck_sums(store: Store, match_ids: list[str], *, whole: bool) -> pl.DataFrame:
    from pipelines.steps.scoring_parts import rows_of
    from pipelines.storage.delta import of_matches
    from scoring.luck import HAND_FEATURES, statistics, team_deals

    columns = {"deal_hands": ["match_id", "deal_no", "team", "player_id", *HAND_FEATURES],
               "deals": ["match_id", "deal_no", "declarers", "winning_team", "level_gain"],
               "tributes": ["match_id", "deal_no", "kind", "giver"]}
    if whole and match_ids:
        tables = {name: _read(store, name, cols, of_matches(match_ids)) for name, cols in columns.items()}
    else:
        tables = {name: rows_of(store, name, match_ids).select(cols) for name, cols in columns.items()}
    hands = tables["deal_hands"]
    sums = statistics(team_deals(hands, tables["deals"], tables["tributes"]), hands)
    return sums.filter(pl.col("match_id").is_in(match_ids))


def dan_forecast_step(store: Store) -> StepReport:
    """Each player's chance of the next amateur dan before the window resets (scoring.md §S5)."""
    from scoring.dan_forecast import dan_forecast

    table = dan_forecast(_read(store, "dan_ledger"), _read(store, "rating_history"))
    return StepReport("dan_forecast", {"dan_forecast": _write(store, "dan_forecast", table)})


def decision_skill_step(store: Store) -> StepReport:
    """Each player's skill from the mistakes on real choices of the exact review
    (``play_reviews``, without duplicate matches), with its interval, and combined with the
    results-based rating (``scoring.decision_skill``)."""
    import pyarrow.dataset as pads

    from scoring.decision_skill import decision_skill_table

    reviews = _scored(store, "play_reviews", ["match_id", "player_id", "choice", "loss"],
                      pads.field("choice") == "real")
    table = decision_skill_table(reviews, _read(store, "ratings", ["player_id", "mu", "sigma"]))
    return StepReport("decision_skill", {"decision_skill": _write(store, "decision_skill", table)})


SCORING_STEPS: tuple[Step, ...] = (
    Step("duplicate_matches", duplicate_matches_step, ("duplicate_matches",),
         reads=("matches", "deal_fingerprints"), group="quality"),
    Step("match_scores", match_scores_step, ("match_scores",),
         reads=("matches", "deals", "duplicate_matches", "rulings"), keeps=("scoring_partitions",),
         checks=(("two_rows_per_match", "match_scores"),)),
    Step("standings", standings_step, ("standings",), reads=("matches", "match_scores"),
         keeps=("scoring_partitions",),
         checks=(("one_row_per_team_and_round", "standings"),)),
    Step("dan", dan_step, ("dan_ledger", "dan_current"), reads=("match_scores",),
         keeps=("scoring_partitions",),
         checks=(("running_totals_consistent", "dan_ledger"), ("one_row_per_player", "dan_current"))),
    Step("pro_dan", pro_dan_step, ("pro_dan",), reads=("match_scores",)),
    Step("ratings", ratings_step, RATING_TABLES, reads=("match_scores", "deals", "duplicate_matches"),
         checks=(("one_row_per_player", "ratings"),)),
    Step("partners", partners_step, ("partners",), reads=("match_scores", "rating_history")),
    Step("duplicate_events", duplicate_events_step, ("duplicate_results", "duplicate_standings"),
         reads=("matches", "deals", "duplicate_matches"), keeps=("scoring_partitions",)),
    Step("luck", luck_step, ("luck_model", "player_luck"),
         reads=("matches", "deal_hands", "deals", "tributes", "duplicate_matches"),
         keeps=("luck_statistics", "luck_totals")),
    Step("dan_forecast", dan_forecast_step, ("dan_forecast",), reads=("dan_ledger", "rating_history")),
    Step("decision_skill", decision_skill_step, ("decision_skill",),
         reads=("play_reviews", "ratings", "duplicate_matches")),
)
"""Every scoring step with the tables it reads and writes (the run order is derived from them)."""

SCORING_TABLES: tuple[str, ...] = tuple(t for step in SCORING_STEPS for t in step.writes)
"""The tables the scoring steps write."""
