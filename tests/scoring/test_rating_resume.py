"""Ratings that go on from the last run's posterior (scoring/ratings.py ``rate_from``,
scoring/rating_state.py): the same floats as rating the whole history, or a whole re-rating."""

from __future__ import annotations

from dataclasses import replace
from datetime import timedelta

import polars as pl
import pytest
from test_ratings import simulated

from scoring.params import RatingParams
from scoring.rating_state import state_from_tables, state_tables
from scoring.ratings import RatingState, rate, rate_from


def _first(scores: pl.DataFrame, deals: pl.DataFrame, n: int) -> tuple[pl.DataFrame, pl.DataFrame]:
    """The first ``n`` rounds (matches m0000 … in time order) and their deals."""
    ids = [f"m{i:04d}" for i in range(n)]
    return scores.filter(pl.col("match_id").is_in(ids)), deals.filter(pl.col("match_id").is_in(ids))


def _stored(state: RatingState) -> RatingState:
    """``state`` after a trip through its two tables, as the next run reads it."""
    restored = state_from_tables(*state_tables(state), RatingParams())
    assert restored is not None
    return restored


@pytest.mark.parametrize("calibrated", [False, True], ids=["before-calibration", "calibrated"])
def test_resumed_ratings_equal_rating_the_whole_history(calibrated: bool) -> None:
    """Rating 120 rounds, then 40 more from the stored state, gives exactly the tables of rating
    all 160 at once (the win calibration is fitted from 50 forecasts on: both sides of it)."""
    s, d = simulated(160)
    cut = 120 if calibrated else 30
    first = rate_from(*_first(s, d, cut))
    assert first.resumed_after == 0
    went_on = rate_from(s, d, resume=_stored(first.state))
    whole_current, whole_history = rate(s, d)
    assert went_on.resumed_after == cut
    assert went_on.history.height == 4 * (160 - cut)
    assert went_on.current.equals(whole_current)
    assert pl.concat([first.history, went_on.history]).equals(whole_history)
    assert went_on.state.rounds == 160


def test_going_on_twice_keeps_the_floats() -> None:
    """Three runs of 50 new rounds each end on the state of rating all 150 at once."""
    s, d = simulated(150)
    state: RatingState | None = None
    parts = []
    for n in (50, 100, 150):
        run = rate_from(*_first(s, d, n), resume=None if state is None else _stored(state))
        parts.append(run.history)
        state = run.state
    whole = rate_from(s, d)
    assert state is not None
    assert pl.concat(parts).equals(whole.history)
    assert (state.model.cov == whole.state.model.cov).all()
    assert (state.model.mu == whole.state.model.mu).all()
    assert state.digest == whole.state.digest


def _changed_result(scores: pl.DataFrame, deals: pl.DataFrame) -> tuple[pl.DataFrame, pl.DataFrame]:
    flipped = scores.with_columns(
        level_diff=pl.when(pl.col("match_id") == "m0003").then(-pl.col("level_diff")).otherwise("level_diff")
    )
    return flipped, deals


def _changed_deal(scores: pl.DataFrame, deals: pl.DataFrame) -> tuple[pl.DataFrame, pl.DataFrame]:
    foul = pl.when((pl.col("match_id") == "m0005") & (pl.col("deal_no") == 2)).then(True).otherwise("foul")
    return scores, deals.with_columns(foul=foul)


def _removed_deal(scores: pl.DataFrame, deals: pl.DataFrame) -> tuple[pl.DataFrame, pl.DataFrame]:
    return scores, deals.filter((pl.col("match_id") != "m0007") | (pl.col("deal_no") != 3))


def _earlier_round(scores: pl.DataFrame, deals: pl.DataFrame) -> tuple[pl.DataFrame, pl.DataFrame]:
    """Round m0079 (not rated before) moved before the rated ones in time."""
    start = scores["started_at"].min() - timedelta(minutes=1)
    return scores.with_columns(
        started_at=pl.when(pl.col("match_id") == "m0079").then(pl.lit(start)).otherwise("started_at")
    ), deals


def _removed_round(scores: pl.DataFrame, deals: pl.DataFrame) -> tuple[pl.DataFrame, pl.DataFrame]:
    return scores.filter(pl.col("match_id") != "m0010"), deals.filter(pl.col("match_id") != "m0010")


@pytest.mark.parametrize("change", [_changed_result, _changed_deal, _removed_deal, _earlier_round,
                                    _removed_round])
def test_a_changed_earlier_round_rates_the_whole_history(change: object) -> None:
    """A correction of a rated round's result or deals, a round that now sorts before the rated
    ones, or a rated round gone (a duplicate excluded, a retracted match): the state no longer
    holds, and every round is rated again, as from scratch."""
    assert callable(change)
    s, d = simulated(80)
    first = rate_from(*_first(s, d, 60))
    s2, d2 = change(s, d)
    again = rate_from(s2, d2, resume=_stored(first.state))
    whole = rate_from(s2, d2)
    assert again.resumed_after == 0
    assert again.history.equals(whole.history)
    assert again.current.equals(whole.current)


def test_other_parameters_rate_the_whole_history() -> None:
    s, d = simulated(60)
    first = rate_from(*_first(s, d, 40))
    other = replace(RatingParams(), deal_sd=RatingParams().deal_sd * 2)
    again = rate_from(s, d, other, resume=first.state)
    assert again.resumed_after == 0
    assert again.history.equals(rate_from(s, d, other).history)


def test_nothing_new_rates_nothing() -> None:
    s, d = simulated(40)
    first = rate_from(s, d)
    again = rate_from(s, d, resume=_stored(first.state))
    assert again.resumed_after == 40
    assert again.history.is_empty()
    assert again.current.equals(first.current)


def test_going_on_leaves_the_resume_state_as_it_was() -> None:
    """``rate_from`` rates on a copy of ``resume``'s posterior and win calibration: rating the same
    40 rounds from it twice gives the same tables, and the state still holds what it held."""
    s, d = simulated(160)
    resume = _stored(rate_from(*_first(s, d, 120)).state)
    model = resume.model
    assert model.calibration is not None
    before = (model.mu.copy(), model.cov.copy(), dict(model.index), list(model.calibration.z),
              model.calibration.scale)
    once, twice = rate_from(s, d, resume=resume), rate_from(s, d, resume=resume)
    assert once.history.equals(twice.history)
    assert (model.mu == before[0]).all() and (model.cov == before[1]).all()
    assert model.index == before[2]
    assert model.calibration.z == before[3] and model.calibration.scale == before[4]
