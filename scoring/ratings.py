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

import hashlib
import json
import math
from collections.abc import Iterator, Sequence
from dataclasses import asdict, dataclass, field, replace
from importlib.metadata import version
from typing import Any

import numpy as np
import polars as pl
from scipy.linalg.blas import dgemm
from scipy.special import log_ndtr, ndtr, ndtri

from schemas.scoring import RATING_HISTORY, RATINGS
from scoring.frames import frame
from scoring.params import RatingParams

SEATS = ("E", "W", "N", "S")
"""Seat order of a round's four players in the model: the EW partnership, then NS."""
_SIGN = np.array([1.0, 1.0, -1.0, -1.0])
_SIGN_OUTER = np.outer(_SIGN, _SIGN)
_PARTNERS = tuple(
    (a, c, h, np.outer(h, h))
    for a, c, h in (("E", "W", np.array([1.0, -1.0, 0.0, 0.0])), ("N", "S", np.array([0.0, 0.0, 1.0, -1.0])))
)
"""Each partnership's seats, the design row of their place difference over the four seats, and
its outer product (the precision one such observation adds)."""
_EYE = np.eye(4)
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
        places = dict(zip(order[:2] if double_win else order[:3], _PLACES, strict=False))
        if len(places) == 3:
            places.update({s: 4 for s in SEATS if s not in places})
    return Deal(sign * gain, places)


_PLACES = (1, 2, 3)


ROUND_COLUMNS = ("match_id", "event_id", "round", "started_at", "E", "W", "N", "S", "level_diff",
                 "result_ew", "result_ns")
"""The columns of :func:`round_frame`: what a rated round is, besides its deals."""
DEAL_COLUMNS = ("match_id", "deal_no", "finish_order", "double_win", "foul")
"""The columns of ``deals`` the ratings read."""


def round_frame(scores: pl.DataFrame) -> pl.DataFrame:
    """Played rounds with four known, distinct players, in time order (``match_scores``).

    One row per round (:data:`ROUND_COLUMNS`): a match with exactly one EW and one NS row, its
    seats, the final level difference EW − NS and each side's result, ordered by start time
    (unknown last), then match id.
    """
    played = (
        scores.filter(
            (pl.col("outcome") == "played")
            & pl.col("player_1").is_not_null()
            & pl.col("player_2").is_not_null()
            & pl.col("match_id").is_not_null()
        )
        .sort("started_at", "match_id", "side", nulls_last=True)
        .with_row_index("_pos")
    )
    sides = played.group_by("match_id").agg(
        _first=pl.col("_pos").min(), _rows=pl.len(),
        _ew=(pl.col("side") == "EW").sum(), _ns=(pl.col("side") == "NS").sum(),
    ).filter((pl.col("_rows") == 2) & (pl.col("_ew") == 1) & (pl.col("_ns") == 1))
    ew = played.filter(pl.col("side") == "EW").select(
        "match_id", "event_id", "round", "started_at", E="player_1", W="player_2",
        level_diff=pl.col("level_diff").fill_null(0).cast(pl.Int64), result_ew="result",
    )
    ns = played.filter(pl.col("side") == "NS").select(
        "match_id", N="player_1", S="player_2", result_ns="result"
    )
    return (
        sides.join(ew, on="match_id").join(ns, on="match_id")
        .filter(pl.concat_list("E", "W", "N", "S").list.n_unique() == 4)
        .sort("_first")
        .select(ROUND_COLUMNS)
    )


def _deals_of(deals: pl.DataFrame | None, match_ids: pl.Series) -> dict[str, list[Deal]]:
    """The model's deals of each of ``match_ids`` in deal order (deals without a finishing order skipped)."""
    by_match: dict[str, list[Deal]] = {}
    if deals is None or deals.is_empty():
        return by_match
    cols = (
        deals.filter(pl.col("match_id").is_in(match_ids.implode()))
        .drop_nulls("finish_order")
        .sort("match_id", "deal_no")
        .select("match_id", "finish_order", pl.col("double_win").fill_null(False),
                pl.col("foul").fill_null(False))
    )
    for match_id, order, double, foul in cols.iter_rows():
        if order:
            by_match.setdefault(match_id, []).append(deal_margin(order, double, foul))
    return by_match


def _rounds_of(frame_rows: pl.DataFrame, deals: pl.DataFrame | None) -> list[RatedRound]:
    by_match = _deals_of(deals, frame_rows["match_id"])
    return [
        RatedRound(
            match_id=str(row["match_id"]),
            event_id=row["event_id"],
            round=row["round"],
            started_at=row["started_at"],
            players={s: row[s] for s in SEATS},
            deals=tuple(by_match.get(str(row["match_id"]), ())),
            level_diff=int(row["level_diff"]),
            result={"EW": row["result_ew"], "NS": row["result_ns"]},
        )
        for row in frame_rows.iter_rows(named=True)
    ]


def rated_rounds(scores: pl.DataFrame, deals: pl.DataFrame | None) -> list[RatedRound]:
    """Played rounds with four known players, in time order, with their deals (``match_scores``)."""
    return _rounds_of(round_frame(scores), deals)


def inputs_digest(rounds: pl.DataFrame, deals: pl.DataFrame | None) -> str:
    """A hash of everything the ratings of ``rounds`` (rows of :func:`round_frame`) depend on:
    the rounds in order, and each round's rows of ``deals``.

    Built from polars' row hashes, which are stable within one polars version: after an upgrade
    the hash differs once and the next run rates the whole history.
    """
    return HashedInputs.of(rounds, deals).digest(rounds.height)


@dataclass(frozen=True)
class HashedInputs:
    """The row hashes :func:`inputs_digest` is built from, computed once for every round, so the
    digests of the first n rounds for several n cost one hashing of the deals, not one each.

    A round's deals are hashed as a set, the sums of their row hashes' two 32-bit halves: each
    row names its match and deal number, so no order is needed, and sorting a store's deals by
    match was most of the hashing's time (0.58 of 0.78 s at 1M deals, docs/performance.md).
    """

    rounds: np.ndarray
    deals: np.ndarray | None
    """Per round (in the rounds' order), the two sums over its deals; None: no deals given."""

    @staticmethod
    def of(rounds: pl.DataFrame, deals: pl.DataFrame | None) -> HashedInputs:
        """The hashes of ``rounds`` and of their rows of ``deals``."""
        if deals is None or deals.is_empty():
            return HashedInputs(rounds.hash_rows().to_numpy(), None)
        mine = deals.filter(pl.col("match_id").is_in(rounds["match_id"].implode())).select(DEAL_COLUMNS)
        half = 1 << 32
        sums = (
            mine.select("match_id", _h=mine.hash_rows())
            .group_by("match_id")
            .agg(_low=(pl.col("_h") % half).sum(), _high=(pl.col("_h") // half).sum())
        )
        aligned = rounds.select("match_id").join(sums, on="match_id", how="left", maintain_order="left")
        per_round = aligned.select(pl.col("_low", "_high").fill_null(0).cast(pl.UInt64)).to_numpy()
        return HashedInputs(rounds.hash_rows().to_numpy(), np.ascontiguousarray(per_round))

    def digest(self, n: int) -> str:
        """:func:`inputs_digest` of the first ``n`` rounds."""
        digest = hashlib.sha256(self.rounds[:n].tobytes())
        if self.deals is not None:
            digest.update(self.deals[:n].tobytes())
        return digest.hexdigest()


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
    fitted_at: int = 0
    """How many forecasts the scale was last fitted on."""

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
        if n >= self.minimum and n >= self.refit * self.fitted_at:
            # Imported here: a run that adds a few rounds to a long history seldom refits, and
            # importing scipy.optimize costs ≈ 0.3 s (docs/performance.md).
            from scipy.optimize import minimize_scalar

            z, t = np.array(self.z), np.array(self.won)
            fit = minimize_scalar(
                lambda a: -float(np.sum(log_ndtr(t * a * z))), bounds=(0.2, 5.0), method="bounded"
            )
            self.scale = float(fit.x)
            self.fitted_at = n


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

    def copy(self) -> GaussianRatings:
        """An independent copy (``copy.deepcopy`` visits the calibration's forecasts one float at
        a time: ≈ 0.6 s for a 1M-deal history, against milliseconds for this)."""
        c = self.calibration
        assert c is not None
        calibration = replace(c, z=list(c.z), won=list(c.won))
        return GaussianRatings(self.p, dict(self.index), self.mu.copy(), self.cov.copy(), calibration)

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
        players = r.players
        index = self.index
        if not all(players[s] in index for s in SEATS):
            self.reserve([players[s] for s in SEATS])
        return [index[players[s]] for s in SEATS]

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
        var = self.p.round_sd**2 + n * n * float(_SIGN @ self.cov[idx][:, idx] @ _SIGN)
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
        for a, c, h, hh in _PARTNERS:
            gaps = [d.places[c] - d.places[a] for d in r.deals if a in d.places and c in d.places]
            if gaps:
                j = j + (w_within * len(gaps)) * hh
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
        gain = np.linalg.solve((_EYE + j @ cov_s[idx, :]).T, cov_s.T).T
        self.mu = self.mu + gain @ (b - j @ self.mu[idx])
        # cov −= gain · (J covₛᵀ) as one BLAS rank-4 update, in place when cov is C-ordered (its
        # transpose is then the Fortran-ordered matrix BLAS writes), not two N×N temporaries.
        self.cov = dgemm(-1.0, (j @ cov_s.T).T, gain.T, 1.0, self.cov.T, overwrite_c=True).T

    def sigma(self, pid: str) -> float:
        """Posterior standard deviation of a player's skill (levels per deal)."""
        i = self.index[pid]
        return math.sqrt(max(float(self.cov[i, i]), 0.0))


def history(
    rounds: Sequence[RatedRound], p: RatingParams, model: GaussianRatings | None = None
) -> Iterator[tuple[RatedRound, Forecast, dict[str, tuple[float, float]], GaussianRatings]]:
    """Each round with its forecast, the players' (mu, sigma) before it, and the posterior after it.

    ``model``: the posterior to go on from (default: the prior). Players join the model at their
    first round, so the matrices have the same shape at every round whether a history is rated
    whole or resumed (:func:`rate_from`), and the floats come out the same.
    """
    if model is None:
        model = GaussianRatings(p)
    for r in rounds:
        raw = model.raw_forecast(r)
        fc = model.forecast(r, raw)
        before = {pid: (float(model.mu[model.index[pid]]), model.sigma(pid)) for pid in r.players.values()}
        model.update(r, raw)
        yield r, fc, before, model


@dataclass
class RatingState:
    """Where a rated history stopped, to go on from it (:func:`rate_from`).

    The posterior after its last round (with the win calibration), each player's rounds, deals
    and last start, the model's parameters, and the digest of the rounds' inputs
    (:func:`inputs_digest`): a later run whose first ``rounds`` rounds still hash to ``digest``
    only rates the rounds after them.
    """

    params: str
    """``model_params`` JSON of the parameters the state was computed with."""
    rounds: int
    digest: str
    model: GaussianRatings
    counts: dict[str, list[int]] = field(default_factory=dict)
    """Player → [rounds, deals] rated."""
    last: dict[str, Any] = field(default_factory=dict)
    """Player → start time of the last rated round."""


@dataclass(frozen=True)
class RatingRun:
    """What :func:`rate_from` computed: the ``ratings`` table, the ``rating_history`` rows of the
    rounds it rated (after the first ``resumed_after``), and the state to go on from next time."""

    current: pl.DataFrame
    history: pl.DataFrame
    state: RatingState
    resumed_after: int
    """Rounds taken from the given state (0: the whole history was rated)."""
    round_ids: pl.Series
    """The match id of every rated round, in time order (the history has four rows a round)."""

    def continues(self, earlier: pl.DataFrame) -> bool:
        """Whether ``earlier`` is the history of the rounds taken from the state, row for row in order."""
        ids = self.round_ids.head(self.resumed_after)
        column = earlier["match_id"]
        return earlier.height == 4 * ids.len() and all(
            column.gather_every(4, offset=seat).equals(ids, check_names=False) for seat in range(4)
        )


def rate(
    scores: pl.DataFrame, deals: pl.DataFrame | None = None, p: RatingParams | None = None
) -> tuple[pl.DataFrame, pl.DataFrame]:
    """The ``ratings`` and ``rating_history`` tables from ``match_scores`` and ``deals``."""
    run = rate_from(scores, deals, p)
    return run.current, run.history


def _params_json(p: RatingParams) -> str:
    return json.dumps(asdict(p), sort_keys=True)


def rate_from(
    scores: pl.DataFrame,
    deals: pl.DataFrame | None = None,
    p: RatingParams | None = None,
    resume: RatingState | None = None,
) -> RatingRun:
    """Rate the rounds of ``match_scores`` and ``deals``, going on from ``resume`` where it holds.

    ``resume`` holds when it was computed with the same parameters and the first
    ``resume.rounds`` rounds (in time order) are still exactly the rounds it rated: then only
    the rounds after them are rated, from its posterior, and the history returned holds only
    their rows. A round inserted before them, a changed or removed one, or other parameters
    rate the whole history. Either way the floats are those of rating the whole history
    (:func:`history`). ``resume`` is not modified.
    """
    p = p or RatingParams()
    params = _params_json(p)
    rounds = round_frame(scores)
    start = 0
    model, counts, last = GaussianRatings(p), {}, {}
    hashed = HashedInputs.of(rounds, deals)
    if (
        resume is not None
        and resume.params == params
        and 0 < resume.rounds <= rounds.height
        and hashed.digest(resume.rounds) == resume.digest
    ):
        start = resume.rounds
        model = resume.model.copy()
        counts = {pid: list(c) for pid, c in resume.counts.items()}
        last = dict(resume.last)
    k = p.display_deals
    rows = []
    for r, fc, before, _ in history(_rounds_of(rounds.slice(start), deals), p, model):
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
        "model_params": params,
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
    state = RatingState(params, rounds.height, hashed.digest(rounds.height), model, counts, last)
    return RatingRun(frame(current, RATINGS), frame(rows, RATING_HISTORY), state, start, rounds["match_id"])
