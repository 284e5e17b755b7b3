"""The notebooks' helper module ``notebooks/lens.py``: card classes, intervals, empty-safe charts."""

from __future__ import annotations

from pipelines.storage.store import Store

import math
from pathlib import Path

import lens
import polars as pl
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from hypothesis import given
from hypothesis import strategies as st

from schemas.tables import PLAYERS


@pytest.mark.parametrize(
    ("card", "level", "expected"),
    [
        ("HR", "7", "big joker"),      # events.md "Cards": HR is the big joker
        ("SB", "7", "small joker"),    # SB is the small joker
        ("S7", "7", "level card"),     # rules.md §2: rank = the deal's level
        ("H7", "7", "level card"),     # the heart level card is still a level card by strength
        ("DA", "7", "A"),
        ("DA", "A", "level card"),     # §2: at level A the A's are the level cards
        ("C2", "7", "2"),
        ("CT", "9", "T"),
        (None, "7", None),             # an anti-tribute row has no card (tables.py TRIBUTES)
        ("XYZ", "7", None),            # not a card
    ],
)
def test_card_class_follows_single_card_order(card: str | None, level: str, expected: str | None) -> None:
    frame = pl.DataFrame({"card": [card], "level": [level]}, schema={"card": pl.Utf8, "level": pl.Utf8})
    got = frame.select(out=lens.card_class(pl.col("card"), pl.col("level")))["out"][0]
    assert got == expected


@pytest.mark.parametrize(
    ("card", "expected"),
    [("S2", True), ("HT", True), ("D9", True), ("CJ", False), ("SA", False), ("SB", False), ("HR", False),
     (None, None)],
)
def test_within_ten_is_the_return_constraint(card: str | None, expected: bool | None) -> None:
    """rules.md §6 "Return card constraints": natural rank 2…10."""
    frame = pl.DataFrame({"card": [card]}, schema={"card": pl.Utf8})
    assert frame.select(out=lens.within_ten(pl.col("card")))["out"][0] == expected


def test_card_class_order_lists_every_class_strongest_first() -> None:
    assert lens.CARD_CLASS_ORDER[:4] == ["big joker", "small joker", "level card", "A"]
    assert lens.CARD_CLASS_ORDER[-1] == "2"
    assert len(lens.CARD_CLASS_ORDER) == 3 + 13


@pytest.mark.parametrize(
    ("k", "n", "low", "high"),
    [(0, 10, 0.0, 0.2775), (5, 10, 0.2366, 0.7634), (10, 10, 0.7225, 1.0), (1, 1, 0.2065, 1.0)],
)
def test_wilson_known_values(k: int, n: int, low: float, high: float) -> None:
    got = lens.wilson(k, n)
    assert got[0] == pytest.approx(low, abs=1e-4)
    assert got[1] == pytest.approx(high, abs=1e-4)


def test_wilson_without_trials_is_nan_and_bad_counts_raise() -> None:
    assert all(math.isnan(x) for x in lens.wilson(0, 0))
    with pytest.raises(ValueError, match="successes must be in"):
        lens.wilson(11, 10)


@given(st.integers(1, 10_000).flatmap(lambda n: st.tuples(st.integers(0, n), st.just(n))))
def test_wilson_brackets_the_estimate(kn: tuple[int, int]) -> None:
    k, n = kn
    low, high = lens.wilson(k, n)
    assert 0.0 <= low <= k / n + 1e-12
    assert k / n - 1e-12 <= high <= 1.0


counts = st.integers(1, 500).flatmap(lambda n: st.tuples(st.integers(0, n), st.just(n)))


@given(counts, counts)
def test_newcombe_brackets_the_difference_and_is_antisymmetric(a: tuple[int, int],
                                                               b: tuple[int, int]) -> None:
    diff, low, high = lens.newcombe_diff(*a, *b)
    assert -1.0 <= low <= diff + 1e-12
    assert diff - 1e-12 <= high <= 1.0
    back = lens.newcombe_diff(*b, *a)
    assert back == pytest.approx((-diff, -high, -low))


def test_newcombe_with_an_empty_group_is_nan() -> None:
    assert all(math.isnan(x) for x in lens.newcombe_diff(3, 10, 0, 0))


def _clusters(rows: list[tuple[int, int, int, int]]) -> pl.DataFrame:
    return pl.DataFrame(rows, schema=["k_a", "n_a", "k_b", "n_b"], orient="row")


def test_cluster_bootstrap_is_reproducible_and_brackets_a_clear_effect() -> None:
    groups = _clusters([(3, 4, 1, 4), (2, 3, 0, 2), (4, 5, 2, 5), (1, 2, 1, 3), (3, 3, 0, 1)])
    first = lens.cluster_bootstrap_diff(groups)
    assert first == lens.cluster_bootstrap_diff(groups)
    diff, low, high = first
    assert diff == pytest.approx(13 / 17 - 4 / 15)
    assert low <= diff <= high
    assert lens.cluster_bootstrap_diff(groups, seed=1) != first


@pytest.mark.parametrize(
    ("rows", "expected"),
    [
        ([(1, 2, 1, 2)] * 4, (0.0, 0.0, 0.0)),      # same rate everywhere: no spread at all
        ([(2, 2, 0, 2)] * 3, (1.0, 1.0, 1.0)),      # a always wins, b never
    ],
)
def test_cluster_bootstrap_degenerate_cases(rows: list[tuple[int, int, int, int]],
                                            expected: tuple[float, float, float]) -> None:
    assert lens.cluster_bootstrap_diff(_clusters(rows)) == pytest.approx(expected)


@pytest.mark.parametrize("rows", [[], [(1, 2, 0, 0)], [(0, 0, 1, 2)]])
def test_cluster_bootstrap_without_both_groups_is_nan(rows: list[tuple[int, int, int, int]]) -> None:
    empty = pl.DataFrame(schema=dict.fromkeys(("k_a", "n_a", "k_b", "n_b"), pl.Int64))
    frame = _clusters(rows) if rows else empty
    assert math.isnan(lens.cluster_bootstrap_diff(frame)[0])


def test_with_wilson_adds_rate_and_bounds_and_tolerates_zero_trials() -> None:
    out = lens.with_wilson(pl.DataFrame({"k": [5, 0], "n": [10, 0]}), "k", "n", "share")
    assert out.columns == ["k", "n", "share", "share_lo", "share_hi"]
    assert out["share"][0] == pytest.approx(0.5)
    assert out["share_lo"][0] == pytest.approx(lens.wilson(5, 10)[0])
    assert math.isnan(out["share"][1])
    assert math.isnan(out["share_hi"][1])


def test_rate_bar_draws_error_bars_in_percent_with_axis_titles() -> None:
    frame = lens.with_wilson(pl.DataFrame({"x": ["a", "b"], "k": [1, 3], "n": [4, 4]}), "k", "n")
    fig = lens.rate_bar(frame, x="x", title="t", x_title="kind", y_title="share (%)")
    assert fig.layout.xaxis.title.text == "kind"
    assert fig.layout.yaxis.title.text == "share (%)"
    bar = fig.data[0]
    assert list(bar.y) == pytest.approx([25.0, 75.0])
    assert bar.error_y.array[0] == pytest.approx((lens.wilson(1, 4)[1] - 0.25) * 100)


def test_rate_bar_on_empty_data_says_so() -> None:
    empty = lens.with_wilson(pl.DataFrame(schema={"x": pl.Utf8, "k": pl.Int64, "n": pl.Int64}), "k", "n")
    fig = lens.rate_bar(empty, x="x", title="nothing", x_title="x", y_title="y")
    assert fig.data == ()
    assert "no data" in fig.layout.annotations[0].text


def test_open_store_reads_gdan_store(tiny_store: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GDAN_STORE", str(tiny_store))
    con, path = lens.open_store()
    assert path == tiny_store
    deals = lens.query(con, "SELECT count(*) AS n FROM deals WHERE deal_no > ?", [1])
    assert isinstance(deals, pl.DataFrame)
    assert deals["n"][0] == 5 * 5   # five matches of six deals; the first deal has no tribute


def test_player_name_comes_from_the_roster_table(tmp_path: Path) -> None:
    """``players`` (pipelines.steps.roster) is the one place a name is read from; unknown ids have none."""
    roster = [{"player_id": "p1", "name": "Ann", "declared_in": "m2", "matches": 2},
              {"player_id": "p2", "name": None, "declared_in": "m1", "matches": 1}]
    store = Store(tmp_path)
    store.write_table("players", pa.Table.from_pylist(roster, schema=PLAYERS))
    store.publish(store.snapshot())
    con, _ = lens.open_store(tmp_path)
    assert [lens.player_name(con, p) for p in ("p1", "p2", "nobody")] == ["Ann", None, None]
