"""Skill from decisions: a per-player estimate from the mistakes on real choices.

Results carry the luck of the deal; the review's verdicts do not (given the layout, a mistake is
the player's own). Only real choices count (the review's ``choice`` is ``real``: not a forced
pass, not a position where every legal action is equally good), and on each of them the figure
is whether the action lost anything against the best one (a **mistake**: loss ≥ 1 level), not
how many levels it lost: the loss is heavy-tailed (a few 2–6-level swings), and on simulated
leagues the share of real choices that lost anything ranks players closer to their skill and
is more reliable than the mean loss (docs/ratings.md, "Skill from decisions").
:func:`decision_skill` turns each player's real choices into an estimate, higher is better:

- the raw figure is the player's mistake rate with a 95 % interval (rate ± 1.96 s/√n, s the
  pooled within-player standard deviation, clipped to 0 … 1);
- the estimate shrinks it toward the population's rate by n / (n + k), with
  k = within-player variance / between-player variance (empirical Bayes, both estimated from the
  same players), so a player seen on few choices is not ranked on noise; it is minus that rate,
  with the interval ± 1.96 √(within variance / (n + k)).

:func:`combined` puts it beside a results-based rating: both standardised over the players they
share (z-scores), then averaged with weights from their reliabilities (for the decisions, the
players' mean n / (n + k); for the rating, given by the caller from its posterior): with
ρ = √reliability, weight ρ / (1 − ρ²), the optimal one for independent errors.

Everything follows from each player's count of real choices and of mistakes
(:class:`ChoiceCounts`), so :func:`decision_skill_table` (the pipeline's ``decision_skill``
table) counts the review rows per player and never holds them as Python lists. Pure: no I/O.
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
    """One player's estimate (module docstring): real choices seen, mistakes among them, the
    mistake rate with its interval, and the shrunk estimate (minus the expected mistake rate;
    higher is better) with its."""

    choices: int
    mistakes: int
    mistake_rate: float
    rate_low: float
    rate_high: float
    estimate: float
    low: float
    high: float
    reliability: float
    """n / (n + k): the share of the raw figure's spread that is the player's, not noise."""


@dataclass(frozen=True, slots=True)
class ChoiceCounts:
    """One player's real choices and the mistakes among them (choices that lost anything)."""

    choices: int
    mistakes: int


def counts_of(losses: Sequence[float]) -> ChoiceCounts:
    """The :class:`ChoiceCounts` of one player's levels lost on their real choices."""
    return ChoiceCounts(len(losses), sum(1 for x in losses if x > 0))


def decision_skill(losses: Mapping[str, Sequence[float]]) -> dict[str, DecisionSkill]:
    """Per player the estimate from the levels they lost on each real choice (module
    docstring); players with no real choice are left out."""
    return from_counts({p: counts_of(v) for p, v in losses.items() if v})


def from_counts(counts: Mapping[str, ChoiceCounts]) -> dict[str, DecisionSkill]:
    """:func:`decision_skill` from each player's :class:`ChoiceCounts` (players with no choice
    left out)."""
    seen = {p: c for p, c in counts.items() if c.choices > 0}
    if not seen:
        return {}
    rates = {p: c.mistakes / c.choices for p, c in seen.items()}
    deviations = sum(c.choices * rates[p] * (1 - rates[p]) for p, c in seen.items())
    n_all = sum(c.choices for c in seen.values())
    within = deviations / max(1, n_all - len(seen))
    population = sum(c.mistakes for c in seen.values()) / n_all
    noise = fmean(within / c.choices for c in seen.values())
    between = max(pvariance(rates.values()) - noise, 1e-9) if len(seen) > 1 else 1e-9
    k = within / between
    out: dict[str, DecisionSkill] = {}
    for p, c in seen.items():
        n, r = c.choices, rates[p]
        half = Z95 * math.sqrt(within / n)
        shrunk = population + (r - population) * n / (n + k)
        margin = Z95 * math.sqrt(within / (n + k))
        out[p] = DecisionSkill(
            n, c.mistakes, r, max(0.0, r - half), min(1.0, r + half),
            -shrunk, max(-1.0, -shrunk - margin), min(0.0, -shrunk + margin), n / (n + k),
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
    counts = real.group_by("player_id").agg(
        pl.len().alias("choices"), (pl.col("loss") > 0).sum().alias("mistakes")
    )
    skills = from_counts({
        r["player_id"]: ChoiceCounts(int(r["choices"]), int(r["mistakes"]))
        for r in counts.iter_rows(named=True)
    })
    mu = dict(zip(ratings["player_id"].to_list(), ratings["mu"].to_list(), strict=True))
    rel = rating_reliability(list(mu.values()), ratings["sigma"].to_list())
    both = combined(mu, skills, rel)
    ranked = sorted(both, key=lambda p: (-both[p], p))
    rank = {p: i + 1 for i, p in enumerate(ranked)}
    rows = [
        {"player_id": p, "choices": s.choices, "mistakes": s.mistakes, "mistake_rate": s.mistake_rate,
         "rate_low": s.rate_low, "rate_high": s.rate_high, "estimate": s.estimate, "low": s.low,
         "high": s.high, "reliability": s.reliability, "combined": both.get(p),
         "combined_rank": rank.get(p), "rating_reliability": rel if p in both else None}
        for p, s in sorted(skills.items())
    ]
    return frame(rows, DECISION_SKILL)
