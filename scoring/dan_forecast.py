"""Dan promotion forecast: the chance that a player reaches the next amateur dan before the window
resets, and the rounds it is expected to take (scoring.md §S5).

Only rounds against opponents of the player's own dan count (§S5), so the field a player meets in
a counted round is the players who hold their dan now. The chance of winning such a round is the
rating model's forecast from the current skills (``rating_history.mu_after``/``sigma_after``): the
player with one of their recent partners against two opponents drawn from that field
(:func:`field_win_chance`). The pre-match probabilities of past rounds would understate it: they
were made when the players were less known, and against a field the strongest have since left.
What a round earns (400 for a win, 200 for a draw, plus the per-deal points, §S5) is drawn from the
points counted rounds earned in the whole ledger, by result. A Monte-Carlo run of the window rules
of ``scoring.dan`` (promotion at the threshold, points cleared when the window is used up) gives:

- ``p_promote``: promoted within the rounds left in the current window;
- ``expected_rounds``: counted rounds until promotion, windows resets included, when more than half
  of the runs promote within ``HORIZON`` rounds (else null: not in sight).

The simulated share is still too low in the middle bands when backtested (docs/ratings.md).
``p_promote`` is therefore the share mapped through :data:`RECALIBRATION`, a Platt mapping fitted
on tuning leagues only (``benchmarks/bench_dan_forecast.py --fit``) and checked on other seeds;
``expected_rounds`` is the simulation's own.

Fewer than ``LOW_DATA_ROUNDS`` rated counted rounds is flagged ``low_data``. The naive baseline
``naive_promote`` extrapolates the points per round earned so far in the window.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass

import numpy as np
import polars as pl
from scipy.special import expit, logit, ndtr

from schemas.scoring import DAN_FORECAST
from scoring.frames import frame
from scoring.params import DanParams, RatingParams

SIMULATIONS = 2000
RECENT_ROUNDS = 20
LOW_DATA_ROUNDS = 10
HORIZON = 300
"""Counted rounds simulated at most when counting rounds to the next dan."""
RESULTS = ("win", "draw", "loss")
FIELD_DRAWS = 400
"""Partner and opponent pairs drawn to average a counted round's win chance over."""


@dataclass(frozen=True)
class Recalibration:
    """p = σ(``intercept`` + ``slope`` · logit(p₀)) of a simulated share p₀, the share first kept
    half a future away from 0 and 1 (2,000 futures cannot tell 0 from 1 in 4,000)."""

    intercept: float = 0.0
    slope: float = 1.0

    def __call__(self, share: float) -> float:
        edge = 0.5 / SIMULATIONS
        return float(expit(self.intercept + self.slope * logit(min(max(share, edge), 1 - edge))))


IDENTITY = Recalibration()
"""No mapping but the clipping: the simulation's share (what the benchmark fits on)."""

RECALIBRATION = Recalibration(intercept=0.624, slope=0.670)
"""Fitted by maximum likelihood on the raw backtest forecasts of the tuning leagues (96 × 80,
forecasts from sessions 5–40, seeds 1001–1008; ``benchmarks/bench_dan_forecast.py --fit``), never
on the seeds it is checked on."""


@dataclass(frozen=True)
class PointModel:
    """Points a counted round earns, by the round's result, as observed in the ledger."""

    points: dict[str, np.ndarray]
    draw_share: float


@dataclass(frozen=True)
class WindowState:
    """Where a player stands in the current dan window (the ``DanState`` fields that matter)."""

    dan: int
    total: int
    held_at_dan: int
    used: int


def rated_rounds(ledger: pl.DataFrame, history: pl.DataFrame) -> pl.DataFrame:
    """Counted ledger rows with the round's result, partner and pre-match win probability."""
    return ledger.filter(pl.col("counted")).join(
        history.select("player_id", "match_id", "result", "partner_id", "win_probability"),
        on=["player_id", "match_id"],
    )


def current_skills(history: pl.DataFrame) -> dict[str, tuple[float, float]]:
    """Each rated player's skill after their latest rated round: ``(mu, sigma)``."""
    latest = (
        history.drop_nulls("mu_after")
        .sort("started_at", "match_id")
        .group_by("player_id")
        .agg(pl.col("mu_after").last(), pl.col("sigma_after").last())
    )
    return {str(r[0]): (float(r[1]), float(r[2])) for r in latest.iter_rows()}


def field_win_chance(
    player: str,
    partners: list[str],
    field: list[str],
    skills: dict[str, tuple[float, float]],
    rng: np.random.Generator,
    params: RatingParams | None = None,
) -> float:
    """P(win | not drawn) of a counted round from the ratings' current skills: the player with one
    of their recent ``partners`` against two opponents drawn from ``field``, the players who hold
    the player's dan now (§S5: only they make a round count). Both are drawn ``FIELD_DRAWS``
    times; the round's forecast is the rating model's Gaussian (``GaussianRatings.raw_forecast``,
    players taken as independent). Players without a rating have the prior."""
    p = params or RatingParams()
    prior = (0.0, p.prior_sd)
    if len(field) < 2:
        return 0.5
    mates = np.array([skills.get(q, prior) for q in partners or field])
    opponents = np.array([skills.get(q, prior) for q in field])
    mu, sigma = skills.get(player, prior)
    mate = mates[rng.integers(len(mates), size=FIELD_DRAWS)]
    first = rng.integers(len(opponents), size=FIELD_DRAWS)
    second = (first + 1 + rng.integers(len(opponents) - 1, size=FIELD_DRAWS)) % len(opponents)
    a, b = opponents[first], opponents[second]
    n = p.deals_per_round
    mean = n * (mu + mate[:, 0] - a[:, 0] - b[:, 0])
    sd = np.sqrt(p.round_sd**2 + n * n * (sigma**2 + mate[:, 1] ** 2 + a[:, 1] ** 2 + b[:, 1] ** 2))
    win, loss = ndtr((mean - 0.5) / sd), ndtr((-0.5 - mean) / sd)
    return float((win / (win + loss)).mean())


def point_model(rounds: pl.DataFrame) -> PointModel:
    """The empirical points per counted round by result (§S5 fallbacks when a result never occurred)."""
    fallback = {"win": 400, "draw": 200, "loss": 0}
    points = {}
    for result in RESULTS:
        seen = rounds.filter(pl.col("result") == result)["round_points"].drop_nulls().to_numpy()
        points[result] = seen if len(seen) else np.array([fallback[result]])
    decided = rounds.filter(pl.col("result").is_in(RESULTS)).height
    draws = rounds.filter(pl.col("result") == "draw").height
    return PointModel(points, draws / decided if decided else 0.0)


def recent_partners(player_rounds: pl.DataFrame) -> tuple[list[str], int]:
    """The partners of the player's latest rated counted rounds, and how many such rounds there were."""
    recent = player_rounds.drop_nulls("win_probability").sort("seq").tail(RECENT_ROUNDS)
    return recent["partner_id"].drop_nulls().to_list(), recent.height


def simulate(
    state: WindowState, p_win: float, model: PointModel, params: DanParams, rng: np.random.Generator
) -> tuple[float, float | None]:
    """``(p_promote, expected_rounds)`` for one player by Monte-Carlo over the window rules."""
    if state.dan >= params.max_dan:
        return 0.0, None
    threshold, size = params.thresholds[state.dan], params.windows[state.dan]
    n = SIMULATIONS
    total = np.full(n, state.total, dtype=np.int64)
    used = np.full(n, state.used)
    done = np.zeros(n, dtype=bool)
    in_first_window = np.ones(n, dtype=bool)
    promoted_first = np.zeros(n, dtype=bool)
    rounds_taken = np.full(n, HORIZON)
    p_draw = model.draw_share * min(p_win, 1 - p_win) * 2
    for step in range(1, HORIZON + 1):
        u = rng.random(n)
        outcome = np.where(u < p_win - p_draw / 2, 0, np.where(u < p_win + p_draw / 2, 1, 2))
        gained = np.zeros(n, dtype=np.int64)
        for k, result in enumerate(RESULTS):
            pick = outcome == k
            gained[pick] = rng.choice(model.points[result], size=int(pick.sum()))
        live = ~done
        total[live] += gained[live]
        used[live] += 1
        promoted = live & (total >= threshold)
        promoted_first |= promoted & in_first_window
        rounds_taken[promoted] = step
        done |= promoted
        reset = live & ~promoted & (used >= size)
        total[reset] = state.held_at_dan
        used[reset] = 0
        in_first_window &= ~reset
        if done.all():
            break
    reached = done.mean()
    return float(promoted_first.mean()), float(rounds_taken[done].mean()) if reached > 0.5 else None


def naive_promote(state: WindowState, params: DanParams) -> float | None:
    """The baseline: this window's points per counted round so far, extrapolated to its end (1 or 0)."""
    if state.dan >= params.max_dan or state.used == 0:
        return None
    rate = (state.total - state.held_at_dan) / state.used
    left = params.windows[state.dan] - state.used
    return 1.0 if state.total + rate * left >= params.thresholds[state.dan] else 0.0


def window_states(ledger: pl.DataFrame) -> dict[str, WindowState]:
    """Each player's window state after their last ledger row."""
    out = {}
    for (player,), rows in ledger.sort("player_id", "seq").group_by("player_id", maintain_order=True):
        last = rows.row(rows.height - 1, named=True)
        promotions = rows.filter(pl.col("event") == "promoted")
        held = int(promotions["total_after"][-1]) if promotions.height else 0
        used = 0 if last["event"] in ("promoted", "window_reset") else int(last["window_rounds_used"] or 0)
        out[str(player)] = WindowState(int(last["dan_after"]), int(last["total_after"]), held, used)
    return out


def dan_forecast(
    ledger: pl.DataFrame,
    history: pl.DataFrame,
    params: DanParams | None = None,
    recalibration: Recalibration = RECALIBRATION,
) -> pl.DataFrame:
    """The ``dan_forecast`` table: one row per player below the top dan (``p_promote`` mapped
    through ``recalibration``)."""
    params = params or DanParams()
    rounds = rated_rounds(ledger, history)
    model = point_model(rounds)
    by_player = {str(k[0]): g for k, g in rounds.group_by("player_id")}
    skills = current_skills(history)
    states = window_states(ledger)
    by_dan: dict[int, list[str]] = {}
    for player, state in states.items():
        by_dan.setdefault(state.dan, []).append(player)
    rows = []
    for player, state in sorted(states.items()):
        if state.dan >= params.max_dan:
            continue
        partners, basis = recent_partners(by_player.get(player, rounds.clear()))
        field = [q for q in by_dan[state.dan] if q != player]
        rng = np.random.default_rng(int(hashlib.sha1(player.encode()).hexdigest()[:8], 16))
        p_win = field_win_chance(player, partners, field, skills, rng)
        p_promote, expected = simulate(state, p_win, model, params, rng)
        rows.append(
            {
                "player_id": player,
                "dan": state.dan,
                "next_dan": state.dan + 1,
                "points": state.total,
                "points_to_next": max(params.thresholds[state.dan] - state.total, 0),
                "rounds_left": params.windows[state.dan] - state.used,
                "win_chance": p_win,
                "rated_rounds": basis,
                "p_promote": recalibration(p_promote),
                "expected_rounds": expected,
                "naive_promote": naive_promote(state, params),
                "low_data": basis < LOW_DATA_ROUNDS,
            }
        )
    return frame(rows, DAN_FORECAST)
