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
ρ = √reliability, weight ρ / (1 − ρ²), the optimal one for independent errors. Pure: no I/O.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from statistics import fmean, pvariance

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


def decision_skill(losses: Mapping[str, Sequence[float]]) -> dict[str, DecisionSkill]:
    """Per player the estimate from their losses on real choices (module docstring); players
    with no real choice are left out."""
    seen = {p: list(v) for p, v in losses.items() if v}
    if not seen:
        return {}
    means = {p: fmean(v) for p, v in seen.items()}
    pooled = [x - means[p] for p, v in seen.items() for x in v]
    within = sum(d * d for d in pooled) / max(1, len(pooled) - len(seen))
    population = fmean(x for v in seen.values() for x in v)
    noise = fmean(within / len(v) for v in seen.values())
    between = max(pvariance(means.values()) - noise, 1e-9) if len(seen) > 1 else 1e-9
    k = within / between
    out: dict[str, DecisionSkill] = {}
    for p, v in seen.items():
        n, m = len(v), means[p]
        half = Z95 * math.sqrt(within / n)
        shrunk = population + (m - population) * n / (n + k)
        spread = Z95 * math.sqrt(within / (n + k))
        out[p] = DecisionSkill(
            n, m, m - half, m + half, -shrunk, -shrunk - spread, -shrunk + spread, n / (n + k)
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
