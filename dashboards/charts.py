"""Every Plotly figure of the dashboards.

Each function takes the DataFrame of one query (``dashboards.queries``) and the language, and
returns a figure whose axes carry titles with units. No figure function queries the store.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import plotly.graph_objects as go
import plotly.io as pio

from dashboards.i18n import Lang, t
from dashboards.naming import error_name, ruleset_name
from schemas.vocabulary import DISPLAY_RANKS

_COLORS = ["#c0392b", "#2c3e50", "#16a085", "#f39c12", "#8e44ad", "#7f8c8d"]
_STATUSES = ("valid", "partial", "results_only", "invalid")
"""Replay statuses with a translated label (``matches.status``)."""
_BOMB_CLASSES = ["bomb4", "bomb5", "straight_flush", "bomb6plus", "joker_bomb"]
_TEMPLATE = "plotly_white"

pio.templates.default = _TEMPLATE
"""Every figure's look. As the process's default, Plotly gives it to each new figure without
checking it again (about 4 ms a figure); set per figure with ``update_layout(template=…)`` it is
validated and copied each time (about 45 ms), and the Player page draws six figures."""


def _layout(fig: go.Figure, title: str, x: str, y: str, *, percent: bool = False) -> go.Figure:
    """Common look: title, axis titles (with units), compact margins, legend on top."""
    fig.update_layout(
        title=title,
        xaxis_title=x,
        yaxis_title=y,
        colorway=_COLORS,
        margin={"l": 60, "r": 20, "t": 60, "b": 50},
        height=360,
        legend={"orientation": "h", "y": 1.02, "yanchor": "bottom", "x": 1, "xanchor": "right"},
    )
    if percent:
        fig.update_yaxes(tickformat=".0%")
    return fig


def _unit(label: str, unit: str, lang: Lang) -> str:
    """An axis title with its unit, e.g. "Deals (count)" / "副数（个）"."""
    return f"{label}（{t('unit_' + unit, lang)}）" if lang == "zh" else f"{label} ({t('unit_' + unit, lang)})"


def rank_label(rank: str, lang: Lang) -> str:
    """A rank letter for reading: the jokers' ``B``/``R`` as 小王/大王 (small/big joker)."""
    return t("small_joker", lang) if rank == "B" else t("big_joker", lang) if rank == "R" else rank


def status_bar(df: pd.DataFrame, lang: Lang) -> go.Figure:
    """Matches by validation status."""
    labels = [t(f"status_{s}", lang) if s in _STATUSES else s for s in df["status"]]
    fig = go.Figure(go.Bar(x=labels, y=df["n"], marker_color=_COLORS[2]))
    return _layout(fig, t("status", lang), t("status", lang), _unit(t("matches", lang), "count", lang))


def matches_per_day(df: pd.DataFrame, lang: Lang) -> go.Figure:
    """Stacked matches per day, one colour per ruleset; days written as ISO dates in both languages."""
    fig = go.Figure()
    for rules, part in df.groupby("rules", sort=True):
        fig.add_bar(x=part["day"], y=part["n"], name=ruleset_name(rules, lang))
    fig.update_layout(barmode="stack")
    fig.update_xaxes(tickformat="%Y-%m-%d")
    return _layout(
        fig,
        t("matches_per_day", lang),
        _unit(t("day", lang), "local", lang),
        _unit(t("matches", lang), "count", lang),
    )


def matches_by_ruleset(df: pd.DataFrame, lang: Lang) -> go.Figure:
    """Matches per ruleset, stacked by status."""
    fig = go.Figure()
    for status, part in df.groupby("status", sort=True):
        fig.add_bar(
            x=[ruleset_name(r, lang) for r in part["rules"]],
            y=part["n"],
            name=t(f"status_{status}", lang) if status in _STATUSES else str(status),
        )
    fig.update_layout(barmode="stack")
    return _layout(
        fig, t("matches_by_ruleset", lang), t("ruleset", lang), _unit(t("matches", lang), "count", lang)
    )


def axis_names(df: pd.DataFrame) -> list[str]:
    """Readable axis labels of a per-player frame: the player's name, with the id when the name is
    missing or shared by two players shown (a category axis would otherwise merge them)."""
    names = df["name"] if "name" in df else pd.Series([None] * len(df), index=df.index)
    named = [n if isinstance(n, str) and n else None for n in names]
    counts = pd.Series([n for n in named if n]).value_counts()
    return [
        str(p) if n is None else f"{n} ({p})" if counts.get(n, 0) > 1 else n
        for n, p in zip(named, df["player_id"], strict=True)
    ]


def ratings(df: pd.DataFrame, lang: Lang, *, top: int = 50, display_k: float = 2.0) -> go.Figure:
    """The ``top`` best players by displayed rating, each drawn on the skill scale of
    ``scoring/ratings.py``: a dot at μ with the interval μ ± 2σ (about 95 %), and a dash at the
    displayed rating μ − ``display_k``·σ (the conservative number the table ranks by).
    Provisional players are hollow; the x axis names players; the title says "top N of M".

    ``df`` has ``player_id``, ``mu``, ``sigma``, ``rating`` and optionally ``name``,
    ``provisional`` and ``rank`` (shared by ties).
    """
    shown = df.sort_values(["rating", "player_id"], ascending=[False, True]).head(top)
    labels = axis_names(shown)
    provisional = shown["provisional"].fillna(False).astype(bool) if "provisional" in shown else None
    symbols = ["circle-open" if p else "circle" for p in provisional] if provisional is not None else "circle"
    ranks = shown["rank"] if "rank" in shown else pd.Series(range(1, len(shown) + 1), index=shown.index)
    hover = (
        "#%{customdata[0]} %{x}<br>μ %{y:.2f} ± 2σ %{customdata[1]:.2f}"
        "<br>" + t("rating", lang) + " %{customdata[2]:.1f}<extra></extra>"
    )
    fig = go.Figure()
    fig.add_scatter(
        x=labels,
        y=shown["mu"],
        mode="markers",
        name=t("interval_2sigma", lang),
        marker={"size": 9, "symbol": symbols, "color": _COLORS[0]},
        error_y={"type": "data", "array": 2 * shown["sigma"], "color": "rgba(192,57,43,0.45)"},
        customdata=list(zip(ranks, 2 * shown["sigma"], shown["rating"], strict=True)),
        hovertemplate=hover,
    )
    fig.add_scatter(
        x=labels,
        y=shown["rating"],
        mode="markers",
        name=t("rating_shown", lang).format(k=f"{display_k:g}"),
        marker={"size": 12, "symbol": "line-ew-open", "color": _COLORS[1], "line": {"width": 2}},
        hoverinfo="skip",
    )
    title = t("rating_dist", lang)
    if len(shown) < len(df):
        title += " · " + t("top_n_of", lang).format(n=len(shown), m=len(df))
    return _layout(fig, title, t("player", lang), _unit(t("skill_mu", lang), "points", lang))


def rating_history(df: pd.DataFrame, lang: Lang, *, x: str, rating: str, sigma: str | None) -> go.Figure:
    """A player's rating after each rated round, with a ±σ band."""
    df = df.sort_values(x)
    fig = go.Figure()
    if sigma:
        fig.add_scatter(
            x=df[x],
            y=df[rating] + df[sigma],
            mode="lines",
            line={"width": 0},
            showlegend=False,
            hoverinfo="skip",
        )
        fig.add_scatter(
            x=df[x],
            y=df[rating] - df[sigma],
            mode="lines",
            line={"width": 0},
            fill="tonexty",
            fillcolor="rgba(192,57,43,0.15)",
            name="±σ",
            hoverinfo="skip",
        )
    fig.add_scatter(
        x=df[x], y=df[rating], mode="lines+markers", name=t("rating", lang), line={"color": _COLORS[0]}
    )
    return _layout(
        fig,
        t("rating_history", lang),
        t("time", lang) if x != "round_index" else t("round_no", lang),
        _unit(t("rating", lang), "points", lang),
    )


def dan_ledger(
    df: pd.DataFrame, lang: Lang, *, x: str, points: str, threshold: str | None, window: str | None
) -> go.Figure:
    """Dan points after each round against the next dan's threshold; rounds of the window used."""
    fig = go.Figure()
    if window:
        fig.add_bar(
            x=df[x], y=df[window], name=t("window_used", lang), yaxis="y2", marker_color="rgba(44,62,80,0.25)"
        )
    fig.add_scatter(
        x=df[x], y=df[points], mode="lines+markers", name=t("dan_points", lang), line={"color": _COLORS[0]}
    )
    if threshold:
        fig.add_scatter(
            x=df[x],
            y=df[threshold],
            mode="lines+markers",
            name=t("next_threshold", lang),
            line={"dash": "dash", "shape": "hv", "color": _COLORS[1]},
        )
    top = max(float(df[window].max()) * 3, 3.0) if window and len(df) else 3.0
    fig.update_xaxes(dtick=max(1, math.ceil(len(df) / 10)))
    fig.update_layout(
        yaxis2={
            "title": _unit(t("window_used", lang), "rounds", lang),
            "overlaying": "y",
            "side": "right",
            "showgrid": False,
            "rangemode": "tozero",
            "range": [0, top],
            "dtick": max(1, math.ceil(top / 5)),
        }
    )
    return _layout(
        fig, t("dan_ledger", lang), t("round_no", lang), _unit(t("dan_points", lang), "points", lang)
    )


def compare_shares(
    df: pd.DataFrame,
    lang: Lang,
    *,
    category: str,
    title_key: str,
    x_key: str,
    order: list[str] | None = None,
    labels: dict[str, str] | None = None,
) -> go.Figure:
    """This player's share of each category next to the population's (``player_n``/``population_n``)."""
    df = df.copy()
    if order is not None:
        df["_o"] = df[category].map({v: i for i, v in enumerate(order)}).fillna(len(order))
        df = df.sort_values("_o")
    names = [labels.get(str(v), str(v)) if labels else str(v) for v in df[category]]
    fig = go.Figure()
    for column, key in (("player_n", "this_player"), ("population_n", "population")):
        total = df[column].sum()
        share = df[column] / total if total else df[column] * 0.0
        fig.add_bar(
            x=names,
            y=share,
            name=f"{t(key, lang)} (n={int(total)})",
            customdata=df[column],
            hovertemplate="%{y:.1%} (n=%{customdata})<extra></extra>",
        )
    fig.update_layout(barmode="group")
    return _layout(
        fig, t(title_key, lang), t(x_key, lang), _unit(t("share", lang), "pct", lang), percent=True
    )


def tribute_kinds(df: pd.DataFrame, lang: Lang) -> go.Figure:
    """Deals by tribute kind, as a share of deals after the first."""
    total = df["n"].sum()
    names = [t(f"kind_{k}", lang) if f"kind_{k}" in _KIND_KEYS else str(k) for k in df["kind"]]
    fig = go.Figure(
        go.Bar(
            x=names,
            y=df["n"] / total if total else df["n"],
            customdata=df["n"],
            hovertemplate="%{y:.1%} (n=%{customdata})<extra></extra>",
            marker_color=_COLORS[0],
        )
    )
    return _layout(
        fig,
        t("tribute_freq", lang),
        t("tribute_kind", lang),
        _unit(t("share_deals", lang), "pct", lang),
        percent=True,
    )


_KIND_KEYS = {"kind_none", "kind_single", "kind_double", "kind_anti"}


def tribute_cards(df: pd.DataFrame, lang: Lang) -> go.Figure:
    """Cards paid and returned, by rank (2 … A, small and big joker)."""
    df = df.set_index("rank").reindex([r for r in DISPLAY_RANKS if r in set(df["rank"])]).reset_index()
    fig = go.Figure()
    ranks = [rank_label(r, lang) for r in df["rank"]]
    fig.add_bar(x=ranks, y=df["paid"], name=t("cards_paid", lang))
    fig.add_bar(x=ranks, y=df["returned"], name=t("cards_returned", lang))
    fig.update_layout(barmode="group")
    return _layout(
        fig,
        f"{t('cards_paid', lang)} / {t('cards_returned', lang)}",
        t("rank", lang),
        _unit(t("cards", lang), "count", lang),
    )


def level_gain(df: pd.DataFrame, lang: Lang) -> go.Figure:
    """Level-gain distribution of the paying and the receiving team in the deal after tribute."""
    fig = go.Figure()
    for side in ("payer", "receiver"):
        part = df[df["side"] == side]
        total = part["n"].sum()
        fig.add_bar(
            x=part["gain"].astype(str),
            y=part["n"] / total if total else part["n"],
            name=f"{t(side, lang)} (n={int(total)})",
            customdata=part["n"],
            hovertemplate="%{y:.1%} (n=%{customdata})<extra></extra>",
        )
    fig.update_layout(barmode="group")
    return _layout(
        fig,
        t("after_tribute", lang),
        _unit(t("level_gain", lang), "levels", lang),
        _unit(t("share_deals", lang), "pct", lang),
        percent=True,
    )


def bombs_per_deal(df: pd.DataFrame, lang: Lang) -> go.Figure:
    """Deals by number of bombs played in them."""
    fig = go.Figure(go.Bar(x=df["bombs"], y=df["n"], marker_color=_COLORS[0]))
    return _layout(
        fig,
        t("bombs_dist", lang),
        _unit(t("bombs_n", lang), "bombs_per_deal", lang),
        _unit(t("deals", lang), "count", lang),
    )


def bombs_by_class(df: pd.DataFrame, lang: Lang) -> go.Figure:
    """Bombs by size, stacked by class (4/5-card bombs, straight flushes, 6+ bombs, joker bombs)."""
    fig = go.Figure()
    classes = [c for c in _BOMB_CLASSES if c in set(df["bomb_class"])]
    classes += sorted(set(df["bomb_class"]) - set(classes))
    for cls in classes:
        part = df[df["bomb_class"] == cls]
        fig.add_bar(x=part["size"], y=part["n"], name=t(cls, lang) if cls in _BOMB_CLASSES else cls)
    fig.update_layout(barmode="stack")
    return _layout(
        fig,
        t("bombs_by_class", lang),
        _unit(t("bomb_size", lang), "cards", lang),
        _unit(t("bombs_total", lang), "count", lang),
    )


def bomb_timing(df: pd.DataFrame, lang: Lang) -> go.Figure:
    """Bombs by the opponents' fewest cards left at the moment of the bomb."""
    fig = go.Figure(go.Bar(x=df["opp_min_left"], y=df["n"], marker_color=_COLORS[1]))
    return _layout(
        fig, t("bomb_timing", lang), t("opp_cards_left", lang), _unit(t("bombs_total", lang), "count", lang)
    )


def win_by_bombs(df: pd.DataFrame, lang: Lang) -> go.Figure:
    """Deal win rate against bombs held (dealt) and bombs used (played); 4 means 4 or more."""
    fig = go.Figure()
    for kind in ("held", "used"):
        part = df[df["kind"] == kind]
        fig.add_scatter(
            x=part["bombs"],
            y=part["win_rate"],
            mode="lines+markers",
            name=t(kind, lang),
            customdata=part["n"],
            hovertemplate="%{y:.1%} (n=%{customdata})<extra></extra>",
        )
    fig.update_xaxes(tickvals=[0, 1, 2, 3, 4], ticktext=["0", "1", "2", "3", "4+"])
    return _layout(
        fig,
        t("win_by_bombs", lang),
        _unit(t("bombs_n", lang), "bombs_per_seat", lang),
        t("deal_win_rate", lang),
        percent=True,
    )


def dan_distribution(df: pd.DataFrame, lang: Lang, *, dan: str) -> go.Figure:
    """Players per dan."""
    fig = go.Figure(go.Bar(x=df[dan].astype(str), y=df["n"], marker_color=_COLORS[3]))
    return _layout(
        fig, t("dan_distribution", lang), t("dan", lang), _unit(t("players_count", lang), "count", lang)
    )


def standings_points(df: pd.DataFrame, lang: Lang, *, team: str, points: str) -> go.Figure:
    """The ranking key of each team (match points, or the BCTA round score), best on top, top 40."""
    df = df.sort_values("rank", ascending=False).tail(40)
    fig = go.Figure(go.Bar(x=df[points], y=df[team].astype(str), orientation="h", marker_color=_COLORS[2]))
    fig.update_layout(height=max(300, 22 * len(df) + 100))
    label = t("match_points", lang) if points == "match_points" else t("bcta_round_score", lang)
    return _layout(fig, t("match_points_chart", lang), _unit(label, "points", lang), t("team", lang))


def quarantine_codes(df: pd.DataFrame, lang: Lang) -> go.Figure:
    """Quarantined rows per error code, each named in ``lang``."""
    df = df.sort_values("n")
    names = [error_name(code, lang) for code in df["code"]]
    fig = go.Figure(go.Bar(x=df["n"], y=names, orientation="h", marker_color=_COLORS[0]))
    fig.update_layout(height=max(260, 26 * len(df) + 100))
    return _layout(fig, t("by_code", lang), _unit(t("rows", lang), "count", lang), t("code", lang))


def luck_vs_population(df: pd.DataFrame, lang: Lang, *, player: str) -> go.Figure:
    """Levels per deal above expectation with the 95 % interval: every player, ``player`` in red.

    Players are sorted by the estimate; those with too few deals (``low_data``) are grey, so a
    wide interval from a short history does not read like a strong result. Zero = as the cards
    predicted. The three colours are one numeric code per point on a three-step colour scale
    (0 = enough deals, 1 = low data, 2 = ``player``): Plotly checks a number array at once, but a
    colour string per point one by one (0.7 s for the 5,520 players of the benchmark store).
    """
    mine = (df["player_id"] == player).to_numpy()
    code = np.where(mine, 2, np.where(df["low_data"].fillna(False).astype(bool).to_numpy(), 1, 0))
    fig = go.Figure(
        go.Scatter(
            x=df["player_id"].to_numpy(),
            y=df["above_expectation"].to_numpy(),
            mode="markers",
            marker={
                "color": code,
                "colorscale": [[0.0, _COLORS[1]], [0.5, "#bdc3c7"], [1.0, _COLORS[0]]],
                "cmin": 0,
                "cmax": 2,
                "size": np.where(mine, 12, 7),
            },
            error_y={
                "type": "data",
                "symmetric": False,
                "array": (df["ci_high"] - df["above_expectation"]).to_numpy(),
                "arrayminus": (df["above_expectation"] - df["ci_low"]).to_numpy(),
                "color": "#95a5a6",
            },
            customdata=df["deals"].to_numpy(),
            hovertemplate="%{x}: %{y:+.2f} · %{customdata} " + t("deals", lang) + "<extra></extra>",
        )
    )
    fig.add_hline(y=0, line_dash="dot", line_color="#7f8c8d")
    return _layout(
        fig,
        t("luck_chart", lang),
        t("player", lang),
        _unit(t("above_expectation", lang), "levels_per_deal", lang),
    )
