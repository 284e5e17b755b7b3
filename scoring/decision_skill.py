"""Skill from decisions: a per-player estimate from the levels lost on real choices.

Results carry the luck of the deal; the review's losses do not (given the layout, a loss is the
player's own). Only real choices count (the review's ``choice`` is ``real``: not a forced pass,
not a position where every legal action is equally good); :func:`decision_skill` turns each
player's losses on those into an estimate, higher is better:

- the raw figure is the player's mean loss per real choice, in levels, with a 95 % interval
  (mean ± 1.96 s/√n, s the pooled within-player standard deviation);
- the estimate shrinks it toward the population's mean loss by n / (n + k), with
  k = within-player variance / between-player variance (empirical Bayes, both estimated from the
  same players), so a player seen on few choices is not ranked on noise; its interval is
  ± 1.96 √(within variance / (n + k)).

:func:`combined` puts it beside a results-based rating: both standardised over the players they
share (z-scores), then averaged with weights from their reliabilities (for the decisions, the
players' mean n / (n + k); for the rating, given by the caller from its posterior): with
ρ = √reliability, weight ρ / (1 − ρ²), the optimal one for independent errors.

Everything follows from each player's count, sum and sum of squares of their losses
(:class:`LossSums`), so :func:`decision_skill_table` (the pipeline's ``decision_skill`` table)
adds the review rows up per player and never holds them as Python lists. Pure: no I/O.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from statistics import fmean, pvariance

import polars as pl

from schemas.scoring import DECISION_SKILL
from scoring.frames import frame

Z95 = 1.96


@dataclass(frozen=True, slots=True)
class DecisionSkill:
    """One player's estimate (module docstring): real choices seen, mean loss with its interval,
    and the shrunk estimate (minus the expected loss per real choice; higher is better) with its."""

    choices: int
    mean_loss: float
    loss_low: float
    loss_high: float
    estimate: float
    low: float
    high: float
    reliability: float
    """n / (n + k): the share of the raw figure's spread that is the player's, not noise."""


@dataclass(frozen=True, slots=True)
class LossSums:
    """One player's real choices, and the sum and the sum of squares of the levels they lost."""

    choices: int
    total: float
    squares: float


def sums_of(losses: Sequence[float]) -> LossSums:
    """The :class:`LossSums` of one player's losses."""
    return LossSums(len(losses), float(sum(losses)), float(sum(x * x for x in losses)))


def decision_skill(losses: Mapping[str, Sequence[float]]) -> dict[str, DecisionSkill]:
    """Per player the estimate from their losses on real choices (module docstring); players
    with no real choice are left out."""
    return from_sums({p: sums_of(v) for p, v in losses.items() if v})


def from_sums(sums: Mapping[str, LossSums]) -> dict[str, DecisionSkill]:
    """:func:`decision_skill` from each player's :class:`LossSums` (players with no choice left out)."""
    seen = {p: s for p, s in sums.items() if s.choices > 0}
    if not seen:
        return {}
    means = {p: s.total / s.choices for p, s in seen.items()}
    deviations = sum(max(0.0, s.squares - s.total * means[p]) for p, s in seen.items())
    n_all = sum(s.choices for s in seen.values())
    within = deviations / max(1, n_all - len(seen))
    population = sum(s.total for s in seen.values()) / n_all
    noise = fmean(within / s.choices for s in seen.values())
    between = max(pvariance(means.values()) - noise, 1e-9) if len(seen) > 1 else 1e-9
    k = within / between
    out: dict[str, DecisionSkill] = {}
    for p, s in seen.items():
        n, m = s.choices, means[p]
        half = Z95 * math.sqrt(within / n)
        shrunk = population + (m - population) * n / (n + k)
        margin = Z95 * math.sqrt(within / (n + k))
        out[p] = DecisionSkill(
            n, m, m - half, m + half, -shrunk, -shrunk - margin, -shrunk + margin, n / (n + k)
        )
    return out


def reliability(estimates: Mapping[str, DecisionSkill]) -> float:
    """The players' mean reliability (0 with no player)."""
    return fmean(e.reliability for e in estimates.values()) if estimates else 0.0


def _z(values: Mapping[str, float]) -> dict[str, float]:
    mu = fmean(values.values())
    sd = math.sqrt(pvariance(values.values())) or 1.0
    return {p: (v - mu) / sd for p, v in values.items()}


def _weight(rel: float) -> float:
    """The weight of a standardised estimate whose reliability is ``rel``: with ρ = √rel its
    correlation with the true skill, ρ / (1 − ρ²), the optimal weight when the estimates' errors
    are independent."""
    rho = math.sqrt(max(0.0, min(rel, 0.999)))
    return rho / (1 - rho * rho)


def combined(
    results: Mapping[str, float], decisions: Mapping[str, DecisionSkill], results_reliability: float
) -> dict[str, float]:
    """The combined estimate of the players in both (module docstring): z-scores of the
    results-based rating (of reliability ``results_reliability``: its between-player variance
    over that plus its mean posterior variance) and of the decision estimate, averaged with the
    weights :func:`_weight` gives their reliabilities."""
    shared = sorted(set(results) & set(decisions))
    if not shared:
        return {}
    zr = _z({p: results[p] for p in shared})
    zd = _z({p: decisions[p].estimate for p in shared})
    wr = _weight(results_reliability)
    wd = _weight(reliability({p: decisions[p] for p in shared}))
    total = wr + wd or 1.0
    return {p: (wr * zr[p] + wd * zd[p]) / total for p in shared}


def rating_reliability(mu: Sequence[float], sigma: Sequence[float]) -> float:
    """The reliability of a results-based rating: the variance of the players' posterior means
    over that plus their mean posterior variance (0 with fewer than two players)."""
    if len(mu) < 2:
        return 0.0
    spread = pvariance(mu)
    noise = fmean(s * s for s in sigma)
    return spread / (spread + noise) if spread + noise > 0 else 0.0


def decision_skill_table(reviews: pl.DataFrame, ratings: pl.DataFrame) -> pl.DataFrame:
    """The ``decision_skill`` table: one row per player with a real choice among ``reviews``
    (``player_id``, ``choice``, ``loss``: decision-review rows; unknown players left out), their
    :class:`DecisionSkill`, and, for a player also in ``ratings`` (``player_id``, ``mu``,
    ``sigma``), the :func:`combined` estimate with the rating's posterior means and its
    :func:`rating_reliability`, and the player's rank by it (1 = best; ties by player id)."""
    real = reviews.filter((pl.col("choice") == "real") & pl.col("player_id").is_not_null())
    loss = pl.col("loss").cast(pl.Int64)
    sums = real.group_by("player_id").agg(
        pl.len().alias("choices"), loss.sum().alias("total"), (loss * loss).sum().alias("squares")
    )
    skills = from_sums({
        r["player_id"]: LossSums(int(r["choices"]), float(r["total"]), float(r["squares"]))
        for r in sums.iter_rows(named=True)
    })
    mu = dict(zip(ratings["player_id"].to_list(), ratings["mu"].to_list(), strict=True))
    rel = rating_reliability(list(mu.values()), ratings["sigma"].to_list())
    both = combined(mu, skills, rel)
    ranked = sorted(both, key=lambda p: (-both[p], p))
    rank = {p: i + 1 for i, p in enumerate(ranked)}
    rows = [
        {"player_id": p, "choices": s.choices, "mean_loss": s.mean_loss, "loss_low": s.loss_low,
         "loss_high": s.loss_high, "estimate": s.estimate, "low": s.low, "high": s.high,
         "reliability": s.reliability, "combined": both.get(p), "combined_rank": rank.get(p),
         "rating_reliability": rel if p in both else None}
        for p, s in sorted(skills.items())
    ]
    return frame(rows, DECISION_SKILL)
