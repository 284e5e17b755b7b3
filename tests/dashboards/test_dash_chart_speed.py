"""The dashboards' figures drawn the fast way look exactly as before: the luck
chart's colours as codes on a colour scale instead of one colour string per player, and the
``plotly_white`` look as Plotly's default template instead of set on every figure."""

from __future__ import annotations

import pandas as pd
import plotly.graph_objects as go
import plotly.io as pio
from hypothesis import given, settings
from hypothesis import strategies as st

from dashboards import charts

_PLAYER, _LOW, _ENOUGH = "#c0392b", "#bdc3c7", "#2c3e50"
"""The luck chart's colours before the change: the chosen player, a player with too few deals,
every other player."""


def _population(low: list[bool | None]) -> pd.DataFrame:
    n = len(low)
    return pd.DataFrame(
        {
            "player_id": [f"p{i:03d}" for i in range(n)],
            "deals": list(range(10, 10 + n)),
            "above_expectation": [0.1 * i - 0.2 for i in range(n)],
            "ci_low": [0.1 * i - 0.5 for i in range(n)],
            "ci_high": [0.1 * i + 0.1 for i in range(n)],
            "low_data": low,
        }
    )


def _scale_colour(scale: tuple[tuple[float, str], ...], code: float, cmin: float, cmax: float) -> str:
    """The colour a step scale gives ``code`` (each code lands exactly on one stop)."""
    position = (code - cmin) / (cmax - cmin)
    return next(colour for stop, colour in scale if stop == position)


@settings(deadline=None, max_examples=40)
@given(low=st.lists(st.one_of(st.booleans(), st.none()), min_size=1, max_size=30), data=st.data())
def test_luck_chart_gives_every_player_the_colour_and_size_of_before(
    low: list[bool | None], data: st.DataObject
) -> None:
    df = _population(low)
    player = data.draw(st.sampled_from([*df["player_id"], "nobody"]))
    marker = charts.luck_vs_population(df, "en", player=player).data[0].marker
    colours = [_scale_colour(marker.colorscale, c, marker.cmin, marker.cmax) for c in marker.color]
    expected = [
        _PLAYER if p == player else _LOW if bool(lo) else _ENOUGH
        for p, lo in zip(df["player_id"], low, strict=True)
    ]
    assert colours == expected
    assert list(marker.size) == [12 if p == player else 7 for p in df["player_id"]]


def test_luck_chart_keeps_every_player_and_interval() -> None:
    df = _population([False, True, None, False])
    trace = charts.luck_vs_population(df, "en", player="p001").data[0]
    assert list(trace.x) == list(df["player_id"])
    assert list(trace.error_y.array) == list(df["ci_high"] - df["above_expectation"])
    assert list(trace.error_y.arrayminus) == list(df["above_expectation"] - df["ci_low"])
    assert list(trace.customdata) == list(df["deals"])


def test_figures_have_the_plotly_white_look() -> None:
    """A chart's template is ``plotly_white`` in full, as when it was set on every figure."""
    fig = charts.status_bar(pd.DataFrame({"status": ["valid"], "n": [3]}), "en")
    explicit = go.Figure(fig).update_layout(template=pio.templates["plotly_white"])
    assert fig.to_plotly_json()["layout"]["template"] == explicit.to_plotly_json()["layout"]["template"]
    assert fig.to_plotly_json()["layout"]["template"] != pio.templates["plotly"].to_plotly_json()
