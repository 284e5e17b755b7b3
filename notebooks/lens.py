"""Shared helpers for the analyst notebooks: store access, card labels, intervals, empty-safe plots.

The notebooks import this module from their own folder (Jupyter starts kernels in the notebook's
directory), so it is deliberately a plain module next to them, not part of an installed package.
Everything here is small and pure so that ``tests/notebooks/test_lens.py`` can check it directly.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from pathlib import Path
from statistics import NormalDist

import duckdb
import numpy as np
import plotly.graph_objects as go
import polars as pl

from pipelines.storage.warehouse import connect, store_path
from schemas.vocabulary import BIG_JOKER, JOKER_RANKS, RANKS, SMALL_JOKER

Z95 = NormalDist().inv_cdf(0.975)
"""The two-sided 95 % normal quantile (≈ 1.96) used by every interval below."""

BOOTSTRAP_SEED = 20_260_618
"""Fixed seed so that every bootstrap interval in a notebook is reproducible run to run."""

CARD_CLASS_ORDER = ["big joker", "small joker", "level card", *reversed(RANKS)]
"""Display order for a tributed card, strongest first (single-card order, rules.md §2)."""


def open_store(store: str | Path | None = None) -> tuple[duckdb.DuckDBPyConnection, Path]:
    """A read-only view connection to the store (``$GDAN_STORE``, default ``./data``) and its path."""
    path = store_path(store)
    return connect(path), path


def query(con: duckdb.DuckDBPyConnection, sql: str, params: Sequence[object] | None = None) -> pl.DataFrame:
    """Run DuckDB SQL and return the result as a Polars frame (typed even when empty)."""
    return con.execute(sql, params or []).pl()


def player_name(con: duckdb.DuckDBPyConnection, player: str | None) -> str | None:
    """The player's name from the pipeline's roster (``players``: the latest declaration wins)."""
    row = con.execute("SELECT name FROM players WHERE player_id = ?", [player]).fetchone()
    return None if row is None else row[0]


def card_rank(card: pl.Expr) -> pl.Expr:
    """The rank letter of a card in log notation (events.md "Cards"), jokers ``B`` and ``R``
    (``schemas.vocabulary.rank_of_card`` as a Polars expression); null for a missing card."""
    return (
        pl.when(card.is_in(list(JOKER_RANKS))).then(card.replace(JOKER_RANKS))
        .when(card.str.len_chars() == 2).then(card.str.slice(1, 1))
    )


def card_class(card: pl.Expr, level: pl.Expr) -> pl.Expr:
    """How strong a card is in its deal: a joker, a level card (rank = the deal's level) or its rank.

    Suits never matter for a tribute (rules.md §6: the highest single card, single-card order §2).
    Null for a missing card (an anti-tribute row has none).
    """
    rank = card_rank(card)
    return (
        pl.when(rank == JOKER_RANKS[BIG_JOKER]).then(pl.lit("big joker"))
        .when(rank == JOKER_RANKS[SMALL_JOKER]).then(pl.lit("small joker"))
        .when(rank == level).then(pl.lit("level card"))
        .otherwise(rank)
    )


def within_ten(card: pl.Expr) -> pl.Expr:
    """Whether a card has natural rank 2…10 (rules.md §6 "Return card constraints"); null if missing."""
    rank = card_rank(card)
    return pl.when(rank.is_not_null()).then(rank.is_in(list(RANKS[: RANKS.index("T") + 1])))


def wilson(successes: int, trials: int, z: float = Z95) -> tuple[float, float]:
    """Wilson score interval for a proportion; ``(nan, nan)`` when there are no trials.

    Chosen over the normal approximation because it stays inside [0, 1] and behaves on the
    small samples a single player or a rare bomb class gives.
    """
    if trials <= 0:
        return (math.nan, math.nan)
    if not 0 <= successes <= trials:
        raise ValueError(f"successes must be in [0, trials]; got {successes} of {trials}")
    p = successes / trials
    denom = 1 + z * z / trials
    centre = (p + z * z / (2 * trials)) / denom
    half = z * math.sqrt(p * (1 - p) / trials + z * z / (4 * trials * trials)) / denom
    low = 0.0 if successes == 0 else max(0.0, centre - half)
    high = 1.0 if successes == trials else min(1.0, centre + half)
    return (low, high)


def newcombe_diff(k1: int, n1: int, k2: int, n2: int, z: float = Z95) -> tuple[float, float, float]:
    """Difference of two proportions p1 − p2 with Newcombe's hybrid Wilson interval (method 10).

    Returns ``(difference, low, high)``; all ``nan`` when either group is empty.
    """
    if n1 <= 0 or n2 <= 0:
        return (math.nan, math.nan, math.nan)
    p1, p2 = k1 / n1, k2 / n2
    l1, u1 = wilson(k1, n1, z)
    l2, u2 = wilson(k2, n2, z)
    diff = p1 - p2
    low = diff - math.sqrt((p1 - l1) ** 2 + (u2 - p2) ** 2)
    high = diff + math.sqrt((u1 - p1) ** 2 + (p2 - l2) ** 2)
    return (diff, max(-1.0, low), min(1.0, high))


def with_wilson(df: pl.DataFrame, successes: str, trials: str, prefix: str = "rate") -> pl.DataFrame:
    """Add ``<prefix>``, ``<prefix>_lo`` and ``<prefix>_hi`` (Wilson 95 %) columns to a count frame."""
    ks = df[successes].to_list()
    ns = df[trials].to_list()
    bounds = [wilson(int(k or 0), int(n or 0)) for k, n in zip(ks, ns, strict=True)]
    rates = [(k or 0) / n if n else math.nan for k, n in zip(ks, ns, strict=True)]
    return df.with_columns(
        pl.Series(prefix, rates, dtype=pl.Float64),
        pl.Series(f"{prefix}_lo", [b[0] for b in bounds], dtype=pl.Float64),
        pl.Series(f"{prefix}_hi", [b[1] for b in bounds], dtype=pl.Float64),
    )


def cluster_bootstrap_diff(
    groups: pl.DataFrame,
    n_boot: int = 2000,
    seed: int = BOOTSTRAP_SEED,
    level: float = 0.95,
) -> tuple[float, float, float]:
    """Percentile bootstrap of p_a − p_b, resampling whole clusters (matches) with replacement.

    ``groups`` has one row per cluster with columns ``k_a, n_a, k_b, n_b`` (successes and trials
    of each group inside that cluster). Deals of one match share players and levels, so
    resampling matches rather than deals keeps the interval honest about that dependence.
    Returns ``(difference, low, high)``; ``nan`` where a group has no trials.
    """
    counts = groups.select("k_a", "n_a", "k_b", "n_b").to_numpy().astype(float)
    if counts.shape[0] == 0 or counts[:, 1].sum() == 0 or counts[:, 3].sum() == 0:
        return (math.nan, math.nan, math.nan)
    totals = counts.sum(axis=0)
    diff = totals[0] / totals[1] - totals[2] / totals[3]
    rng = np.random.default_rng(seed)
    picks = rng.integers(0, counts.shape[0], size=(n_boot, counts.shape[0]))
    sums = counts[picks].sum(axis=1)
    valid = (sums[:, 1] > 0) & (sums[:, 3] > 0)
    if not valid.any():
        return (float(diff), math.nan, math.nan)
    boots = sums[valid, 0] / sums[valid, 1] - sums[valid, 2] / sums[valid, 3]
    tail = (1 - level) / 2 * 100
    low, high = np.percentile(boots, [tail, 100 - tail])
    return (float(diff), float(low), float(high))


def no_data_figure(title: str) -> go.Figure:
    """A placeholder figure that says why a chart is empty instead of failing on empty data."""
    fig = go.Figure()
    fig.add_annotation(text="no data in this store for this chart", showarrow=False, x=0.5, y=0.5,
                       xref="paper", yref="paper")
    fig.update_layout(title=title, xaxis={"visible": False}, yaxis={"visible": False})
    return fig


def rate_bar(
    df: pl.DataFrame,
    x: str,
    title: str,
    x_title: str,
    y_title: str,
    color: str | None = None,
    prefix: str = "rate",
) -> go.Figure:
    """Bar chart of a Wilson-rate frame (see :func:`with_wilson`) with 95 % error bars, in percent."""
    if df.is_empty():
        return no_data_figure(title)
    fig = go.Figure()
    series = df.partition_by(color, maintain_order=True) if color else [df]
    for part in series:
        rate = part[prefix].fill_nan(None) * 100
        fig.add_bar(
            x=[str(v) for v in part[x].to_list()],
            y=rate.to_list(),
            name=str(part[color][0]) if color else y_title,
            error_y={
                "type": "data",
                "symmetric": False,
                "array": ((part[f"{prefix}_hi"].fill_nan(None) * 100) - rate).to_list(),
                "arrayminus": (rate - part[f"{prefix}_lo"].fill_nan(None) * 100).to_list(),
            },
        )
    fig.update_layout(title=title, xaxis_title=x_title, yaxis_title=y_title, barmode="group")
    return fig
