"""The rating methods ``bench_ratings.py`` compares, behind one interface (docs/ratings.md).

Every method sees the rated rounds (``scoring.ratings.RatedRound``) session by session: it
forecasts every round of a session from what it knew before the session, then learns the
session's results. The methods:

- ``openskill``: the earlier pipeline rating, PlackettLuce with beta 24, one update per round
  (a draw ranks both teams equal) or one per deal (its winners first);
- ``elo``: Elo with K = 32 per player, a team rated by its players' mean;
- ``bradley_terry``: a whole-history L2-regularised logistic fit on deal winners, refitted each
  session; a round's win chance is the deal logit scaled by a one-parameter logistic fit
  (Platt) on the training rounds;
- ``ridge``: a whole-history ridge fit on each round's final level difference, refitted each
  session; Gaussian forecasts with the residual and parameter variance;
- ``win_rate``: each player's share of rounds won (draws ½) so far; a round's win chance is the
  two teams' difference of summed win rates, scaled by a Platt slope fitted on the earlier rounds;
- ``gaussian``: ``scoring.ratings`` (the pipeline's model);
- ``true_skill``: the simulator's true skills, a team's win chance a logistic fit on its skill
  margin over the first half's rounds: the ceiling.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np
from openskill.models import PlackettLuce, PlackettLuceRating
from scipy.optimize import minimize, minimize_scalar
from scipy.special import expit, log_expit
from scipy.stats import norm

from scoring.params import RatingParams
from scoring.ratings import SEATS, Forecast, GaussianRatings, RatedRound

_SIGN = np.array([1.0, 1.0, -1.0, -1.0])


def gaussian_win_chance(mean: float, sd: float) -> float:
    """P(level difference > 0 | it is not 0) for a Gaussian forecast (continuity at ±0.5)."""
    win = float(norm.sf((0.5 - mean) / sd))
    loss = float(norm.cdf((-0.5 - mean) / sd))
    return win / (win + loss)


class Method:
    """A rating method: forecasts before each session, learns after it, reports final skills."""

    name: str = ""

    def forecast(self, r: RatedRound) -> Forecast | float:
        """P(EW wins) for the round, or a full Gaussian forecast of its level difference."""
        raise NotImplementedError

    def learn(self, session: Sequence[RatedRound]) -> None:
        """Take in the results of one session."""
        raise NotImplementedError

    def skills(self) -> dict[str, float]:
        """Final skill estimate per player (compared with true skill by rank)."""
        raise NotImplementedError


@dataclass
class OpenSkill(Method):
    """openskill PlackettLuce (beta 24, tau 25/300), per round or per deal."""

    per_deal: bool = False
    beta: float = 24.0
    model: PlackettLuce = field(init=False)
    ratings: dict[str, PlackettLuceRating] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self.model = PlackettLuce(mu=25.0, sigma=25.0 / 3.0, beta=self.beta, tau=25.0 / 300.0)
        self.name = f"openskill PL β{self.beta:g} per {'deal' if self.per_deal else 'round'}"

    def _teams(self, r: RatedRound) -> list[list[PlackettLuceRating]]:
        return [
            [self.ratings.setdefault(r.players[s], self.model.rating(name=r.players[s])) for s in pair]
            for pair in (("E", "W"), ("N", "S"))
        ]

    def forecast(self, r: RatedRound) -> float:
        return float(self.model.predict_win(self._teams(r))[0])

    def learn(self, session: Sequence[RatedRound]) -> None:
        for r in session:
            teams = self._teams(r)
            if self.per_deal:
                ranks: list[list[float]] = [[1, 2] if d.margin > 0 else [2, 1] for d in r.deals]
            else:
                ew, ns = r.result["EW"], r.result["NS"]
                ranks = [[1 if ew in ("win", "draw") else 2, 1 if ns in ("win", "draw") else 2]]
            for rk in ranks:
                teams = self.model.rate(teams, ranks=rk)
            for pair, team in zip((("E", "W"), ("N", "S")), teams, strict=True):
                for s, rating in zip(pair, team, strict=True):
                    self.ratings[r.players[s]] = rating

    def skills(self) -> dict[str, float]:
        return {pid: float(r.mu) for pid, r in self.ratings.items()}


@dataclass
class Elo(Method):
    """Elo per player (start 1500, K = 32); a team is its players' mean; draws score ½."""

    k: float = 32.0
    ratings: dict[str, float] = field(default_factory=dict)
    name: str = "Elo K=32"

    def _expected(self, r: RatedRound) -> float:
        get = [self.ratings.get(r.players[s], 1500.0) for s in SEATS]
        return 1.0 / (1.0 + 10 ** (((get[2] + get[3]) - (get[0] + get[1])) / 2 / 400))

    def forecast(self, r: RatedRound) -> float:
        return self._expected(r)

    def learn(self, session: Sequence[RatedRound]) -> None:
        for r in session:
            e = self._expected(r)
            score = {"win": 1.0, "draw": 0.5, "loss": 0.0}[r.result["EW"]]
            for s, sign in zip(SEATS, _SIGN, strict=True):
                pid = r.players[s]
                self.ratings[pid] = self.ratings.get(pid, 1500.0) + sign * self.k * (score - e)

    def skills(self) -> dict[str, float]:
        return dict(self.ratings)


class _WholeHistory(Method):
    """A method refitted on every round seen so far after each session."""

    def __init__(self) -> None:
        self.rounds: list[RatedRound] = []
        self.index: dict[str, int] = {}
        self.theta = np.zeros(0)

    def _design(self, rounds: Sequence[RatedRound]) -> np.ndarray:
        x = np.zeros((len(rounds), len(self.index)))
        for i, r in enumerate(rounds):
            for s, sign in zip(SEATS, _SIGN, strict=True):
                x[i, self.index[r.players[s]]] = sign
        return x

    def _row(self, r: RatedRound) -> np.ndarray:
        x = np.zeros(len(self.index))
        for s, sign in zip(SEATS, _SIGN, strict=True):
            i = self.index.get(r.players[s])
            if i is not None:
                x[i] = sign
        return x

    def learn(self, session: Sequence[RatedRound]) -> None:
        self.rounds.extend(session)
        for r in session:
            for s in SEATS:
                self.index.setdefault(r.players[s], len(self.index))
        self.fit()

    def fit(self) -> None:
        raise NotImplementedError

    def skills(self) -> dict[str, float]:
        return {pid: float(self.theta[i]) for pid, i in self.index.items()}


class Ridge(_WholeHistory):
    """Ridge regression of each round's final level difference on the four players (±1)."""

    def __init__(self, lam: float) -> None:
        super().__init__()
        self.lam = lam
        self.name = "ridge on final level difference"
        self.inv = np.zeros((0, 0))
        self.s2 = 1.0

    def fit(self) -> None:
        x = self._design(self.rounds)
        y = np.array([r.level_diff for r in self.rounds], dtype=float)
        self.inv = np.linalg.inv(x.T @ x + self.lam * np.eye(x.shape[1]))
        self.theta = self.inv @ x.T @ y
        resid = y - x @ self.theta
        self.s2 = float(resid @ resid) / max(len(y) - np.trace(x @ self.inv @ x.T), 1.0)

    def forecast(self, r: RatedRound) -> Forecast:
        x = self._row(r)
        if not len(self.theta):
            sd = math.sqrt(self.s2 * 40.0)
            return Forecast(0.0, sd, 0.5)
        unknown = sum(1 for s in SEATS if r.players[s] not in self.index)
        mean = float(x @ self.theta)
        var = self.s2 * (1.0 + float(x @ self.inv @ x) + unknown / self.lam)
        sd = math.sqrt(var)
        return Forecast(mean, sd, gaussian_win_chance(mean, sd))


class BradleyTerry(_WholeHistory):
    """L2-regularised logistic regression of deal winners; round chance by a Platt slope."""

    def __init__(self, lam: float) -> None:
        super().__init__()
        self.lam = lam
        self.slope = 1.0
        self.name = "Bradley–Terry fit on deals"

    def fit(self) -> None:
        rows, wins = [], []
        for i, r in enumerate(self.rounds):
            for d in r.deals:
                rows.append(i)
                wins.append(d.margin > 0)
        x_round = self._design(self.rounds)
        x = x_round[rows]
        y = np.where(np.array(wins), 1.0, -1.0)
        start = np.concatenate([self.theta, np.zeros(len(self.index) - len(self.theta))])

        def loss(theta: np.ndarray) -> tuple[float, np.ndarray]:
            z = y * (x @ theta)
            value = -float(log_expit(z).sum()) + 0.5 * self.lam * float(theta @ theta)
            grad = -(x.T @ (y * expit(-z))) + self.lam * theta
            return value, grad

        self.theta = minimize(loss, start, jac=True, method="L-BFGS-B").x
        eta = x_round @ self.theta
        decided = np.array([r.result["EW"] in ("win", "loss") for r in self.rounds])
        won = np.array([r.result["EW"] == "win" for r in self.rounds])
        target = np.where(won[decided], 1.0, -1.0)

        def platt(a: float) -> float:
            return -float(log_expit(target * a * eta[decided]).sum())

        self.slope = float(minimize_scalar(platt, bounds=(0.0, 50.0), method="bounded").x)

    def forecast(self, r: RatedRound) -> float:
        return float(expit(self.slope * float(self._row(r) @ self.theta))) if len(self.theta) else 0.5


class WinRate(Method):
    """Each player's share of rounds won (a draw ½); a round's chance is a Platt-scaled difference
    of the teams' summed shares (players not seen yet count ½), refitted after each session."""

    def __init__(self) -> None:
        self.score: dict[str, float] = {}
        self.played: dict[str, int] = {}
        self.rounds: list[RatedRound] = []
        self.slope = 0.0
        self.name = "win rate"

    def _rate(self, player: str) -> float:
        n = self.played.get(player, 0)
        return self.score.get(player, 0.0) / n if n else 0.5

    def _margin(self, r: RatedRound) -> float:
        return float(sum(sign * self._rate(r.players[s]) for s, sign in zip(SEATS, _SIGN, strict=True)))

    def forecast(self, r: RatedRound) -> float:
        return float(expit(self.slope * self._margin(r)))

    def learn(self, session: Sequence[RatedRound]) -> None:
        for r in session:
            for s, sign in zip(SEATS, _SIGN, strict=True):
                pid = r.players[s]
                ew = {"win": 1.0, "draw": 0.5, "loss": 0.0}[r.result["EW"]]
                self.score[pid] = self.score.get(pid, 0.0) + (ew if sign > 0 else 1.0 - ew)
                self.played[pid] = self.played.get(pid, 0) + 1
        self.rounds.extend(session)
        decided = [r for r in self.rounds if r.result["EW"] in ("win", "loss")]
        eta = np.array([self._margin(r) for r in decided])
        target = np.array([1.0 if r.result["EW"] == "win" else -1.0 for r in decided])

        def platt(a: float) -> float:
            return -float(log_expit(target * a * eta).sum())

        fitted = minimize_scalar(platt, bounds=(0.0, 50.0), method="bounded").x if len(eta) else 0.0
        self.slope = float(fitted)

    def skills(self) -> dict[str, float]:
        return {pid: self._rate(pid) for pid in self.played}


class Gaussian(Method):
    """``scoring.ratings.GaussianRatings``: exact online posterior, forecasts before each session."""

    def __init__(self, p: RatingParams, name: str = "Gaussian deal margins + partner places (new)") -> None:
        self.model = GaussianRatings(p)
        self.name = name

    def forecast(self, r: RatedRound) -> Forecast:
        return self.model.forecast(r)

    def learn(self, session: Sequence[RatedRound]) -> None:
        for r in session:
            self.model.update(r)

    def skills(self) -> dict[str, float]:
        return {pid: float(self.model.mu[i]) for pid, i in self.model.index.items()}


class TrueSkill(Method):
    """The simulator's skills; a team's win chance is logistic in its skill margin (first half fit)."""

    name = "true skill (ceiling)"

    def __init__(self, true: Mapping[str, float], training: Sequence[RatedRound]) -> None:
        self.true = dict(true)
        decided = [r for r in training if r.result["EW"] in ("win", "loss")]
        margin = np.array([self._margin(r) for r in decided])
        target = np.array([1.0 if r.result["EW"] == "win" else -1.0 for r in decided])
        self.slope = float(
            minimize_scalar(
                lambda a: -float(log_expit(target * a * margin).sum()), bounds=(0.0, 100.0), method="bounded"
            ).x
        )

    def _margin(self, r: RatedRound) -> float:
        return float(sum(sign * self.true[r.players[s]] for s, sign in zip(SEATS, _SIGN, strict=True)))

    def forecast(self, r: RatedRound) -> float:
        return float(expit(self.slope * self._margin(r)))

    def learn(self, session: Sequence[RatedRound]) -> None:
        return None

    def skills(self) -> dict[str, float]:
        return dict(self.true)
