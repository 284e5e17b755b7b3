"""Player ratings: a Gaussian whole-history model of per-deal level margins (docs/ratings.md).

Each player has a skill θ, the player's share of the expected level margin of a partnership.
Every deal of a rated round is evidence, with Gaussian noise:

- the deal's **level margin**: +g for the winners, −g for the losers, where g = 3, 2, 1 is the
  finishing-place 升級 of seed 001 (1st+2nd, 1st+3rd, 1st+4th; a foul counts as a double win),
  observed as θ_E + θ_W − θ_N − θ_S + noise (sd ``deal_sd``);
- within each partnership whose two finishing places are known, the **place difference** of
  the partners (the one out earlier is ahead), observed as ``within_weight`` · (θ_a − θ_b) +
  noise (sd ``within_sd``): who of two partners carries the team.

With a Gaussian prior N(0, ``prior_sd``²) per player this is Bayesian linear (ridge) regression
on the whole history. It is computed exactly and online: the joint posterior (mean and full
covariance of all players) is updated after each round, so the posterior after the last round
*is* the whole-history fit, and the state before a round is the fit on all earlier rounds. The
covariance carries what the design implies (a player's estimate moves when a former partner's
or opponent's does), and its diagonal is each player's honest posterior variance: sigma.
``tau`` adds skill drift (a random walk per round played); the default is none.

A round's forecast is the expected final level difference ``deals_per_round`` · (margin of the
team skills) with variance ``round_sd``² (the luck of a round) + ``deals_per_round``² ·
(posterior variance of that margin); the win probability is the chance that it is positive
given that it is not 0, and the interval is the central ``interval`` of the same Gaussian.
The win probability is then recalibrated online (:class:`WinCalibration`): p = Φ(a · Φ⁻¹(p₀)),
the probit scale a fitted by maximum likelihood on the model's own earlier forecasts of decided
rounds (each made before its round was learnt), so it uses no later result; the interval is
not rescaled, its coverage stays the Gaussian's.
Skills are shown in levels per ``display_deals`` deals. Forfeits, byes and rounds with an
unknown player are not rated.
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterator, Sequence
from dataclasses import asdict, dataclass, field
from importlib.metadata import version
from typing import Any

import numpy as np
import polars as pl
from scipy.linalg.blas import dgemm
from scipy.optimize import minimize_scalar
from scipy.special import log_ndtr, ndtr, ndtri

from schemas.scoring import RATING_HISTORY, RATINGS
from scoring.frames import frame
from scoring.params import RatingParams

SEATS = ("E", "W", "N", "S")
"""Seat order of a round's four players in the model: the EW partnership, then NS."""
_SIGN = np.array([1.0, 1.0, -1.0, -1.0])
_SIGN_OUTER = np.outer(_SIGN, _SIGN)
_PARTNERS = (
    ("E", "W", np.array([1.0, -1.0, 0.0, 0.0])),
    ("N", "S", np.array([0.0, 0.0, 1.0, -1.0])),
)
"""Each partnership's seats and the design row of their place difference over the four seats."""
_PARTNER = {"E": "W", "W": "E", "N": "S", "S": "N"}


@dataclass(frozen=True, slots=True)
class Deal:
    """What a rated deal tells the model: the signed level margin for EW and the finishing places."""

    margin: int
    """+g when EW won the deal, −g when NS did (g = 3, 2, 1 by finishing places)."""
    places: dict[str, int]
    """Seat → finishing place 1–4 for the seats whose place is known (none for a foul)."""


@dataclass(frozen=True, slots=True)
class RatedRound:
    """One rated round: the four players by seat, its deals and its result (scoring's view)."""

    match_id: str
    event_id: str | None
    round: int | None
    started_at: Any
    players: dict[str, str]
    deals: tuple[Deal, ...]
    level_diff: int
    """Final level difference EW − NS (scoring.md §S1)."""
    result: dict[str, str]
    """Team → win, draw or loss (``match_scores.result``: equal levels follow ``equal_levels``)."""


@dataclass(frozen=True, slots=True)
class Forecast:
    """A round's forecast before it is played: final level difference EW − NS and win chance."""

    level_diff: float
    sd: float
    p_ew: float
    """P(EW wins | the round is not drawn)."""

    def interval(self, level: float) -> tuple[float, float]:
        """The central ``level`` interval of the forecast level difference."""
        half = float(ndtri(0.5 + level / 2)) * self.sd
        return self.level_diff - half, self.level_diff + half


def deal_margin(order: Sequence[str], double_win: bool, foul: bool) -> Deal:
    """The model's view of one deal from its finishing order (rules.md §5.8, seed 001 單局勝出).

    Places are the played ones: none after a foul (the deal is forfeited), only the winners' in
    a double win (the losers' order is not played out, rules.md §5.7), the 4th implied when
    three went out.
    """
    first = order[0]
    third = order[2] if len(order) > 2 else None
    gain = 3 if double_win or foul else 2 if third == _PARTNER[first] else 1
    sign = 1 if first in ("E", "W") else -1
    places: dict[str, int] = {}
    if not foul:
        played = order[:2] if double_win else order[:3]
        places = {s: i + 1 for i, s in enumerate(played)}
        if len(places) == 3:
            places.update({s: 4 for s in SEATS if s not in places})
    return Deal(sign * gain, places)


def rated_rounds(scores: pl.DataFrame, deals: pl.DataFrame | None) -> list[RatedRound]:
    """Played rounds with four known players, in time order, with their deals (``match_scores``)."""
    played = scores.filter(
        (pl.col("outcome") == "played")
        & pl.col("player_1").is_not_null()
        & pl.col("player_2").is_not_null()
        & pl.col("match_id").is_not_null()
    ).sort("started_at", "match_id", "side", nulls_last=True)
    by_match: dict[str, list[Deal]] = {}
    if deals is not None and not deals.is_empty():
        cols = (
            deals.drop_nulls("finish_order")
            .sort("match_id", "deal_no")
            .select(
                "match_id",
                "finish_order",
                pl.col("double_win").fill_null(False),
                pl.col("foul").fill_null(False),
            )
        )
        for match_id, order, double, foul in cols.iter_rows():
            if order:
                by_match.setdefault(match_id, []).append(deal_margin(order, double, foul))
    by_round: dict[str, list[dict[str, Any]]] = {}
    columns = ("match_id", "side", "player_1", "player_2", "event_id", "round", "started_at",
               "level_diff", "result")
    for row in played.select(columns).iter_rows(named=True):
        by_round.setdefault(row["match_id"], []).append(row)
    out = []
    for match_id, grp in by_round.items():
        rows = {r["side"]: r for r in grp}
        if len(grp) != 2 or set(rows) != {"EW", "NS"}:
            continue
        ew, ns = rows["EW"], rows["NS"]
        players = {"E": ew["player_1"], "W": ew["player_2"], "N": ns["player_1"], "S": ns["player_2"]}
        if len(set(players.values())) != 4:
            continue
        out.append(
            RatedRound(
                match_id=str(match_id),
                event_id=ew["event_id"],
                round=ew["round"],
                started_at=ew["started_at"],
                players=players,
                deals=tuple(by_match.get(str(match_id), ())),
                level_diff=int(ew["level_diff"] or 0),
                result={"EW": ew["result"], "NS": ns["result"]},
            )
        )
    return out


@dataclass
class WinCalibration:
    """Online probit recalibration of the win probability: p = Φ(a · Φ⁻¹(p₀)).

    The level-difference Gaussian sets ``round_sd`` for the coverage of its intervals, which
    need not make P(win) calibrated (level differences are capped at A and end rounds early). The
    scale a is the maximum-likelihood fit on the earlier forecasts p₀ of decided rounds and
    their results (drawn rounds tell nothing about the side), refitted when those grow by
    ``refit``; a = 1 (no change) until ``minimum`` of them are known.
    """

    minimum: int
    refit: float
    scale: float = 1.0
    z: list[float] = field(default_factory=list)
    won: list[float] = field(default_factory=list)
    _fitted_at: int = 0

    def apply(self, p: float) -> float:
        """The recalibrated win probability."""
        if self.scale == 1.0:
            return p
        return float(ndtr(self.scale * ndtri(min(max(p, 1e-12), 1 - 1e-12))))

    def learn(self, p: float, result: str) -> None:
        """Add a decided round's raw forecast and result (``win``/``loss`` for EW; others skipped)."""
        if result not in ("win", "loss"):
            return
        self.z.append(float(ndtri(min(max(p, 1e-12), 1 - 1e-12))))
        self.won.append(1.0 if result == "win" else -1.0)
        n = len(self.z)
        if n >= self.minimum and n >= self.refit * self._fitted_at:
            z, t = np.array(self.z), np.array(self.won)
            fit = minimize_scalar(
                lambda a: -float(np.sum(log_ndtr(t * a * z))), bounds=(0.2, 5.0), method="bounded"
            )
            self.scale = float(fit.x)
            self._fitted_at = n


@dataclass
class GaussianRatings:
    """The joint Gaussian posterior over every player's skill, updated round by round.

    ``mu`` and ``cov`` are in levels per deal; players are added with the prior when first seen.
    """

    p: RatingParams
    index: dict[str, int] = field(default_factory=dict)
    mu: np.ndarray = field(default_factory=lambda: np.zeros(0))
    cov: np.ndarray = field(default_factory=lambda: np.zeros((0, 0)))
    calibration: WinCalibration | None = None

    def __post_init__(self) -> None:
        if self.calibration is None:
            self.calibration = WinCalibration(self.p.calibration_min, self.p.calibration_refit)

    def reserve(self, players: Sequence[str]) -> None:
        """Add players not yet known with the prior N(0, prior_sd²) (independent of everyone)."""
        new = [pid for pid in dict.fromkeys(players) if pid not in self.index]
        if not new:
            return
        n, k = len(self.index), len(new)
        for i, pid in enumerate(new):
            self.index[pid] = n + i
        self.mu = np.concatenate([self.mu, np.zeros(k)])
        cov = np.zeros((n + k, n + k))
        cov[:n, :n] = self.cov
        cov[range(n, n + k), range(n, n + k)] = self.p.prior_sd**2
        self.cov = cov

    def _seats(self, r: RatedRound) -> list[int]:
        self.reserve([r.players[s] for s in SEATS])
        return [self.index[r.players[s]] for s in SEATS]

    def forecast(self, r: RatedRound, raw: Forecast | None = None) -> Forecast:
        """The round's forecast from the current posterior (before its result is known).

        ``raw``: its :meth:`raw_forecast` when the caller already has it.
        """
        raw = raw or self.raw_forecast(r)
        assert self.calibration is not None
        return Forecast(raw.level_diff, raw.sd, self.calibration.apply(raw.p_ew))

    def raw_forecast(self, r: RatedRound) -> Forecast:
        """The Gaussian forecast before the win probability's recalibration."""
        idx = self._seats(r)
        n = self.p.deals_per_round
        mean = n * float(_SIGN @ self.mu[idx])
        var = self.p.round_sd**2 + n * n * float(_SIGN @ self.cov[np.ix_(idx, idx)] @ _SIGN)
        sd = math.sqrt(var)
        win = float(ndtr((mean - 0.5) / sd))
        loss = float(ndtr((-0.5 - mean) / sd))
        return Forecast(mean, sd, win / (win + loss))

    def evidence(self, r: RatedRound) -> tuple[np.ndarray, np.ndarray]:
        """The round's Gaussian likelihood over its four seats: precision J (4×4) and vector b."""
        p = self.p
        w_deal = 1.0 / p.deal_sd**2
        j = (w_deal * len(r.deals)) * _SIGN_OUTER
        b = (w_deal * sum(d.margin for d in r.deals)) * _SIGN
        if p.within_weight == 0:
            return j, b
        w_within = p.within_weight**2 / p.within_sd**2
        for a, c, h in _PARTNERS:
            gaps = [d.places[c] - d.places[a] for d in r.deals if a in d.places and c in d.places]
            if gaps:
                j = j + (w_within * len(gaps)) * np.outer(h, h)
                b = b + (p.within_weight / p.within_sd**2) * sum(gaps) * h
        return j, b

    def update(self, r: RatedRound, raw: Forecast | None = None) -> None:
        """Condition the posterior on the round's deals (exact Gaussian update, rank ≤ 4), after
        adding its forecast from the posterior before it to the win calibration.

        ``raw``: that forecast (:meth:`raw_forecast`) when the caller already has it.
        """
        assert self.calibration is not None
        self.calibration.learn((raw or self.raw_forecast(r)).p_ew, r.result["EW"])
        idx = self._seats(r)
        if self.p.tau:
            self.cov[idx, idx] += self.p.tau**2
        j, b = self.evidence(r)
        cov_s = self.cov[:, idx]
        gain = np.linalg.solve((np.eye(4) + j @ cov_s[idx, :]).T, cov_s.T).T
        self.mu = self.mu + gain @ (b - j @ self.mu[idx])
        # cov −= gain · (J covₛᵀ) as one BLAS rank-4 update, in place when cov is C-ordered (its
        # transpose is then the Fortran-ordered matrix BLAS writes), not two N×N temporaries.
        self.cov = dgemm(-1.0, (j @ cov_s.T).T, gain.T, 1.0, self.cov.T, overwrite_c=True).T

    def sigma(self, pid: str) -> float:
        """Posterior standard deviation of a player's skill (levels per deal)."""
        i = self.index[pid]
        return math.sqrt(max(float(self.cov[i, i]), 0.0))


def history(
    rounds: Sequence[RatedRound], p: RatingParams
) -> Iterator[tuple[RatedRound, Forecast, dict[str, tuple[float, float]], GaussianRatings]]:
    """Each round with its forecast, the players' (mu, sigma) before it, and the posterior after it."""
    model = GaussianRatings(p)
    model.reserve([r.players[s] for r in rounds for s in SEATS])
    for r in rounds:
        raw = model.raw_forecast(r)
        fc = model.forecast(r, raw)
        before = {pid: (float(model.mu[model.index[pid]]), model.sigma(pid)) for pid in r.players.values()}
        model.update(r, raw)
        yield r, fc, before, model


def rate(
    scores: pl.DataFrame, deals: pl.DataFrame | None = None, p: RatingParams | None = None
) -> tuple[pl.DataFrame, pl.DataFrame]:
    """The ``ratings`` and ``rating_history`` tables from ``match_scores`` and ``deals``."""
    p = p or RatingParams()
    k = p.display_deals
    rows = []
    counts: dict[str, list[int]] = {}
    last: dict[str, Any] = {}
    model = GaussianRatings(p)
    for r, fc, before, model in history(rated_rounds(scores, deals), p):
        lo, hi = fc.interval(p.interval)
        for seat, pid in r.players.items():
            team = "EW" if seat in ("E", "W") else "NS"
            sign = 1.0 if team == "EW" else -1.0
            mu_after, sigma_after = float(model.mu[model.index[pid]]), model.sigma(pid)
            c = counts.setdefault(pid, [0, 0])
            c[0] += 1
            c[1] += len(r.deals)
            last[pid] = r.started_at
            rows.append(
                {
                    "player_id": pid,
                    "match_id": r.match_id,
                    "event_id": r.event_id,
                    "round": r.round,
                    "started_at": r.started_at,
                    "partner_id": r.players[_PARTNER[seat]],
                    "result": r.result[team],
                    "win_probability": fc.p_ew if team == "EW" else 1 - fc.p_ew,
                    "expected_level_diff": sign * fc.level_diff,
                    "level_diff_sd": fc.sd,
                    "level_diff_low": min(sign * lo, sign * hi),
                    "level_diff_high": max(sign * lo, sign * hi),
                    "level_diff": sign * r.level_diff,
                    "mu_before": k * before[pid][0],
                    "sigma_before": k * before[pid][1],
                    "mu_after": k * mu_after,
                    "sigma_after": k * sigma_after,
                    "rating_after": k * (mu_after - p.display_k * sigma_after),
                }
            )
    meta = {
        "model": p.model,
        "model_params": json.dumps(asdict(p), sort_keys=True),
        "update_unit": "deal",
        "library": f"numpy=={version('numpy')}",
    }
    current = []
    for pid in sorted(counts):
        mu, sigma = k * float(model.mu[model.index[pid]]), k * model.sigma(pid)
        current.append(
            {
                "player_id": pid,
                "mu": mu,
                "sigma": sigma,
                "rating": mu - p.display_k * sigma,
                "provisional": sigma >= p.provisional_sigma,
                "rounds": counts[pid][0],
                "deals": counts[pid][1],
                "last_played": last.get(pid),
                **meta,
            }
        )
    return frame(current, RATINGS), frame(rows, RATING_HISTORY)
