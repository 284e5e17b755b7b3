"""The luck model: expected deal results from the dealt cards, and results above them.

A deal's result is the signed level result of rules.md §5.7; the inputs are the dealt-hand
features of ``deal_hands`` (rules.md §2–§3: jokers, wild cards, bombs) and tributes (§6).
"""

from __future__ import annotations

import random
from typing import Any

import polars as pl
import pytest
from scoring_builders import frame

from schemas.tables import DEAL_HANDS, DEALS, TRIBUTES
from scoring.luck import (
    FEATURES,
    LOW_DATA_DEALS,
    fit,
    is_holdout,
    luck_tables,
    player_luck,
    team_deals,
    validate,
)

SEATS = {"E": ("EW", "e"), "N": ("NS", "n"), "W": ("EW", "w"), "S": ("NS", "s")}


def hands(match_id: str, deal_no: int, bombs: dict[str, int]) -> list[dict[str, Any]]:
    """Four hands, identical but for the natural bombs each seat holds."""
    return [
        {
            "match_id": match_id,
            "deal_no": deal_no,
            "seat": seat,
            "team": team,
            "player_id": player,
            "jokers": 1,
            "big_jokers": 0,
            "wilds": 1,
            "level_cards": 2,
            "natural_bombs": bombs.get(seat, 0),
            "straight_flush_chances": 0,
        }
        for seat, (team, player) in SEATS.items()
    ]


def bomb_league(deals: int, seed: int = 1) -> tuple[pl.DataFrame, pl.DataFrame, pl.DataFrame]:
    """Deals where the team with more bombs wins by one level per extra bomb, plus noise."""
    rng = random.Random(seed)
    hand_rows, deal_rows = [], []
    for k in range(deals):
        match_id, bombs = f"m{k // 5}", {s: rng.randint(0, 3) for s in SEATS}
        hand_rows += hands(match_id, k % 5 + 1, bombs)
        margin = bombs["E"] + bombs["W"] - bombs["N"] - bombs["S"] + rng.choice((-1, 1))
        winner = "EW" if margin > 0 or (margin == 0 and rng.random() < 0.5) else "NS"
        deal_rows.append(
            {
                "match_id": match_id,
                "deal_no": k % 5 + 1,
                "winning_team": winner,
                "level_gain": max(1, min(3, abs(margin))),
                "declarers": None,
            }
        )
    return frame(hand_rows, DEAL_HANDS), frame(deal_rows, DEALS), frame([], TRIBUTES)


def test_team_rows_mirror_each_other() -> None:
    """Each deal gives two rows, the other team's being the mirror image (features and result)."""
    dh, ds, tr = bomb_league(10)
    rows = team_deals(dh, ds, tr)
    assert rows.height == 20
    ew, ns = rows.filter(pl.col("team") == "EW"), rows.filter(pl.col("team") == "NS")
    for col in (*FEATURES, "result"):
        assert (ew[col] + ns[col]).abs().max() == 0


def test_unknown_hands_are_left_out() -> None:
    """A deal with a hand the log did not show cannot be explained by its cards."""
    dh, ds, tr = bomb_league(4)
    dh = dh.with_columns(
        pl.when((pl.col("match_id") == "m0") & (pl.col("deal_no") == 1) & (pl.col("seat") == "E"))
        .then(None)
        .otherwise(pl.col("natural_bombs"))
        .alias("natural_bombs")
    )
    assert team_deals(dh, ds, tr).height == 6


def test_tributes_paid_are_counted_against_the_payer() -> None:
    """rules.md §6: the team that paid tribute gave up its best card."""
    dh, ds, _ = bomb_league(2)
    tr = frame([{"match_id": "m0", "deal_no": 2, "kind": "single", "giver": "N", "receiver": "E"}], TRIBUTES)
    rows = team_deals(dh, ds, tr).filter(pl.col("deal_no") == 2).sort("team")
    assert rows["tributes_paid"].to_list() == [-1.0, 1.0]


def test_fit_finds_the_bomb_effect_and_validates_out_of_sample() -> None:
    dh, ds, tr = bomb_league(2000)
    rows = team_deals(dh, ds, tr)
    model = dict(zip(FEATURES, fit(rows).coefficients, strict=True))
    assert model["natural_bombs"] > 0.5
    assert abs(model["jokers"]) < 1e-9  # no difference between the teams, so no weight
    check = validate(rows)
    assert check.test_rows > 0 and check.train_rows > check.test_rows
    assert check.r2 is not None and check.r2 > 0.3
    expected = [e for e, _, _ in check.calibration]
    actual = [a for _, a, _ in check.calibration]
    assert expected == sorted(expected) and actual == sorted(actual)
    assert all(abs(e - a) < 0.5 for e, a in zip(expected, actual, strict=True))


def test_holdout_split_is_stable() -> None:
    ids = [f"match-{i}" for i in range(1000)]
    held = [is_holdout(m) for m in ids]
    assert held == [is_holdout(m) for m in ids]
    assert 150 < sum(held) < 250


def test_a_player_with_good_cards_and_average_results_is_below_expectation() -> None:
    """Levels above expectation subtract what the cards explain; the interval narrows with deals."""
    dh, ds, tr = bomb_league(300)
    rows = team_deals(dh, ds, tr)
    model = fit(rows)
    # Give EW every extra bomb but keep the results: EW's players now under-perform their cards.
    lucky = dh.with_columns(
        pl.when(pl.col("team") == "EW")
        .then(pl.col("natural_bombs") + 2)
        .otherwise(pl.col("natural_bombs"))
        .alias("natural_bombs")
    )
    table = {r["player_id"]: r for r in player_luck(team_deals(lucky, ds, tr), lucky, model).to_dicts()}
    for player in ("e", "w"):
        r = table[player]
        assert r["expected_mean"] > r["actual_mean"]
        assert r["ci_high"] < 0 and r["ci_low"] < r["above_expectation"] < r["ci_high"]
        assert r["low_data"] is False and r["deals"] == 300
    assert table["n"]["above_expectation"] > 0


@pytest.mark.parametrize("deals", [0, LOW_DATA_DEALS - 1])
def test_small_samples(deals: int) -> None:
    """No deals: empty tables; fewer than LOW_DATA_DEALS deals: flagged as low data."""
    model, players = luck_tables(*bomb_league(deals))
    assert model.height == len(FEATURES)
    assert players.height == (4 if deals else 0)
    assert all(players["low_data"])


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_tables_do_not_depend_on_the_order_of_the_input_rows(seed: int) -> None:
    """Re-derived tables must be identical, bit for bit (architecture: delete the tables, rerun,
    get the same result), whatever order the store or an executor hands the rows over in."""
    dh, ds, tr = bomb_league(2000)
    model, players = luck_tables(dh, ds, tr)
    shuffled = luck_tables(*(t.sample(fraction=1.0, shuffle=True, seed=seed) for t in (dh, ds)), tr)
    assert shuffled[0].equals(model)
    assert shuffled[1].equals(players)
