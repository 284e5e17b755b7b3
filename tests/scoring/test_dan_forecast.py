"""Dan promotion forecast (scoring.md §S5: thresholds, windows of counted rounds, reset on expiry)."""

from __future__ import annotations

from itertools import pairwise
from typing import Any

import numpy as np
import polars as pl
import pytest
from scoring_builders import T0, frame

from schemas.scoring import DAN_LEDGER, RATING_HISTORY
from scoring.dan_forecast import (
    IDENTITY,
    LOW_DATA_ROUNDS,
    RECALIBRATION,
    SIMULATIONS,
    PointModel,
    Recalibration,
    WindowState,
    dan_forecast,
    naive_promote,
    simulate,
    window_states,
)
from scoring.params import DanParams

P = DanParams()
ALWAYS_400 = PointModel({"win": np.array([400]), "draw": np.array([200]), "loss": np.array([0])}, 0.0)


def rng() -> np.random.Generator:
    return np.random.default_rng(7)


def test_sure_winner_promotes_when_the_window_has_room() -> None:
    """§S5: 10,000 points for dan 1 within 30 counted rounds; 25 wins of 400 reach it."""
    p, rounds = simulate(WindowState(0, 0, 0, 0), 1.0, ALWAYS_400, P, rng())
    assert p == 1.0 and rounds == 25


def test_too_few_rounds_left_cannot_promote_but_a_later_window_can() -> None:
    """§S5: 6 rounds left × 400 < 10,000 − 0 needed: no promotion in this window; after the reset
    (points cleared to the total held on reaching the dan) 25 more rounds are needed."""
    p, rounds = simulate(WindowState(0, 0, 0, 24), 1.0, ALWAYS_400, P, rng())
    assert p == 0.0 and rounds == 6 + 25


def test_a_sure_loser_never_promotes() -> None:
    p, rounds = simulate(WindowState(1, 12_000, 10_000, 3), 0.0, ALWAYS_400, P, rng())
    assert p == 0.0 and rounds is None


def test_the_top_dan_has_no_window() -> None:
    assert simulate(WindowState(P.max_dan, 150_000, 140_000, 0), 1.0, ALWAYS_400, P, rng()) == (0.0, None)


def test_better_players_promote_more_often() -> None:
    model = PointModel(
        {"win": np.array([450, 500]), "draw": np.array([220]), "loss": np.array([20, 40])}, 0.1
    )
    chances = [simulate(WindowState(0, 0, 0, 0), w, model, P, rng())[0] for w in (0.3, 0.6, 0.9)]
    assert chances == sorted(chances) and chances[0] < 0.2 and chances[-1] > 0.8


def test_naive_baseline_extrapolates_this_windows_rate() -> None:
    assert naive_promote(WindowState(0, 4_000, 0, 10), P) == 1.0  # 400/round × 20 left → 12,000
    assert naive_promote(WindowState(0, 2_000, 0, 10), P) == 0.0  # 200/round → 6,000
    assert naive_promote(WindowState(0, 0, 0, 0), P) is None


def ledger_row(
    player: str, seq: int, event: str | None, dan_after: int, total_after: int, used: int
) -> dict[str, Any]:
    return {
        "player_id": player,
        "seq": seq,
        "match_id": f"m{seq}",
        "counted": True,
        "round_points": 400,
        "dan_before": dan_after - (event == "promoted"),
        "dan_after": dan_after,
        "total_after": total_after,
        "window_no": 1,
        "window_rounds_used": used,
        "event": event,
        "started_at": T0,
    }


def test_window_state_after_a_promotion_starts_a_new_window() -> None:
    ledger = frame(
        [
            ledger_row("a", 1, None, 0, 9_800, 29),
            ledger_row("a", 2, "promoted", 1, 10_200, 30),
            ledger_row("b", 1, None, 0, 400, 1),
        ],
        DAN_LEDGER,
    )
    assert window_states(ledger) == {"a": WindowState(1, 10_200, 10_200, 0), "b": WindowState(0, 400, 0, 1)}


@pytest.mark.parametrize("rated", [3, LOW_DATA_ROUNDS])
def test_forecast_table_uses_the_ratings_win_chance(rated: int) -> None:
    ledger = frame([ledger_row("a", i, None, 0, 400 * i, i) for i in range(1, rated + 1)], DAN_LEDGER)
    history = frame(
        [
            {"player_id": "a", "match_id": f"m{i}", "result": "win", "win_probability": 0.8}
            for i in range(1, rated + 1)
        ],
        RATING_HISTORY,
    )
    row = dan_forecast(ledger, history).row(0, named=True)
    assert row["win_chance"] == pytest.approx(0.8) and row["rated_rounds"] == rated
    assert row["low_data"] is (rated < LOW_DATA_ROUNDS)
    assert row["rounds_left"] == 30 - rated and row["points_to_next"] == 10_000 - 400 * rated
    assert 0 < row["p_promote"] <= 1 and row["naive_promote"] == 1.0


def test_no_ratings_is_low_data_at_even_odds() -> None:
    ledger = frame([ledger_row("a", 1, None, 0, 400, 1)], DAN_LEDGER)
    row = dan_forecast(ledger, frame([], RATING_HISTORY)).row(0, named=True)
    assert row["win_chance"] == 0.5 and row["low_data"] is True
    assert isinstance(dan_forecast(frame([], DAN_LEDGER), frame([], RATING_HISTORY)), pl.DataFrame)


def test_identity_recalibration_only_keeps_the_share_off_0_and_1() -> None:
    assert IDENTITY(0.3) == pytest.approx(0.3)
    edge = 0.5 / SIMULATIONS
    assert IDENTITY(0.0) == pytest.approx(edge) and IDENTITY(1.0) == pytest.approx(1 - edge)


def test_recalibration_keeps_the_order_and_lifts_the_pessimistic_middle() -> None:
    """The simulated share was too low in the middle bands (docs/ratings.md): the fitted mapping
    raises it there and never reorders two players."""
    shares = np.linspace(0.0, 1.0, 101)
    mapped = [RECALIBRATION(float(p)) for p in shares]
    assert all(a < b for a, b in pairwise(mapped))
    assert RECALIBRATION(0.5) > 0.5 and RECALIBRATION(0.2) > 0.2
    assert Recalibration(intercept=0.0, slope=1.0)(0.7) == pytest.approx(0.7)


def test_forecast_table_maps_the_share_through_the_recalibration() -> None:
    ledger = frame([ledger_row("a", i, None, 0, 300 * i, i) for i in range(1, 11)], DAN_LEDGER)
    history = frame(
        [
            {"player_id": "a", "match_id": f"m{i}", "result": "win", "win_probability": 0.6}
            for i in range(1, 11)
        ],
        RATING_HISTORY,
    )
    raw = dan_forecast(ledger, history, recalibration=IDENTITY).row(0, named=True)["p_promote"]
    shown = dan_forecast(ledger, history).row(0, named=True)["p_promote"]
    assert shown == pytest.approx(RECALIBRATION(raw))
