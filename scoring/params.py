"""Scoring parameters as data: every number and policy of scoring.md, per ruleset, overridable.

Tables of numbers (the 26-point level-difference table §S3, BCTA round points §S4, BCTA dan
points and thresholds §S5, professional-dan win rates §S6) live here as frozen dataclasses so
that an event can supply its own values with :func:`with_overrides` instead of code changes.
Where scoring.md marks a choice **(policy)**, the choice is a named field with the documented
default.
"""

from __future__ import annotations

import json
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Literal

from replay.overrides import override
from replay.rulesets import BUILTIN, EqualLevels

TieBreak = Literal[
    "level_points",
    "head_to_head",
    "wins",
    "draws",
    "raw_level_diff",
    "opponents_score",
    "previous_rank",
    "tied_level_points",
    "opponents_level_points",
    "levels_gained",
]
"""A tie-break step of §S7; each has its own column in the ``standings`` table."""

PrimaryKey = Literal["match_points", "bcta_round_score"]
DealGainReading = Literal["finishing_places", "levels_gained"]
"""How a won deal's "升一級/升兩級/升三級" is read for BCTA deal points (§S4, §S5)."""
SameDanPolicy = Literal["both", "either"]

# §S3: winner's share for level difference d = 0..13 (Jiangsu 13-level 26-point table; the
# loser gets 26 minus it).
JIANGSU_26 = tuple(13 + d for d in range(14))


@dataclass(frozen=True, slots=True)
class LevelPointsTable:
    """The 26-point conversion of a level difference (§S3): ``winner[d]``, loser ``total - winner[d]``."""

    name: str = "jiangsu_13_26"
    winner: tuple[int, ...] = JIANGSU_26
    total: int = 26

    def points(self, d: int) -> tuple[int, int]:
        """(winner, loser) points for level difference ``d``; d beyond the table uses its last row."""
        w = self.winner[min(max(d, 0), len(self.winner) - 1)]
        return w, self.total - w


@dataclass(frozen=True, slots=True)
class MatchPoints:
    """Match points (場分) of §S2, including byes and forfeits."""

    win: float = 2.0
    draw: float = 1.0
    loss: float = 0.0
    bye_match_points: float = 1.5
    bye_level_points: int = 17
    """`national` Art. 26 §6."""
    forfeit_match_points: float = 2.0
    forfeit_level_points: int = 17
    """Scores of the side that did not forfeit (`national` Art. 34–35; `huaian`: 2 and 18)."""
    forfeit_keep_actual_if_higher: bool = False
    """`huaian` (seed 000 Art. 15 三.4): the side's own actual level points where they exceed the
    forfeit's (a side ahead by 6 or more levels); a side behind keeps the forfeit's 18."""


@dataclass(frozen=True, slots=True)
class DealPoints:
    """Per-round result points plus per-deal and A-failure points (BCTA §S4 and §S5 share the shape)."""

    win: int
    draw: int
    loss: int
    per_deal_gain: tuple[int, int, int]
    """Points to the deal's winners for going up 1, 2 and 3 levels."""
    a_failure_points: tuple[int, ...]
    """Points to the opponents for the 1st, 2nd, … failure at A (later failures score nothing)."""
    shutout_bonus: int = 0
    """Extra points to the winner when the loser gained no level in the round (§S4 only)."""

    def failure_points(self, failures: int) -> int:
        """Total points the opponents receive for ``failures`` failed attempts at A."""
        return sum(self.a_failure_points[: max(failures, 0)])

    def gain_points(self, gain: int) -> int:
        """Points for one won deal that raised the winners ``gain`` levels (0 when no gain)."""
        if gain <= 0:
            return 0
        return self.per_deal_gain[min(gain, len(self.per_deal_gain)) - 1]


BCTA_ROUND = DealPoints(
    win=200, draw=100, loss=0, per_deal_gain=(5, 15, 25), a_failure_points=(20, 50), shutout_bonus=50
)
"""§S4 BCTA round score."""

BCTA_DAN = DealPoints(win=400, draw=200, loss=0, per_deal_gain=(10, 30, 50), a_failure_points=(40, 100))
"""§S5 BCTA amateur dan points per round."""


@dataclass(frozen=True, slots=True)
class DanParams:
    """Amateur dan thresholds, windows and policies (§S5)."""

    thresholds: tuple[int, ...] = (10_000, 25_000, 40_000, 60_000, 80_000, 110_000, 140_000)
    """Total points needed for dan 1 … 7."""
    windows: tuple[int, ...] = (30, 40, 40, 50, 50, 70, 70)
    """Rounds at the current dan within which dan 1 … 7 must be reached."""
    same_dan: SameDanPolicy = "both"
    """(policy) A round counts when ``both`` opponents (or ``either``) hold the player's dan."""
    rulesets: tuple[str, ...] = ("bcta",)
    """(policy) Rulesets whose rounds feed the ledger: dan points are the BCTA formula."""

    @property
    def max_dan(self) -> int:
        """The highest dan."""
        return len(self.thresholds)

    def dan_for(self, points: int) -> int:
        """The dan table of §S5 read directly (for display; promotion is windowed, see ``dan.py``)."""
        return sum(1 for t in self.thresholds if points >= t)


@dataclass(frozen=True, slots=True)
class ProDanParams:
    """Professional dan by win rate (§S6)."""

    min_win_rate: tuple[float, ...] = (0.40, 0.50, 0.60, 0.70, 0.80, 0.90, 0.92, 0.94, 0.96)
    """Win rate needed for dan 1 … 9."""
    last_n: int = 50
    """(policy) Win rate over the player's last N rounds."""
    min_rounds: int = 20
    """(policy) No professional dan with fewer rounds."""
    draw_value: float = 0.5
    """(policy) A draw counts as half a win."""
    sanctioned_events: frozenset[str] | None = None
    """(policy) Event ids that count; ``None``: every event."""


@dataclass(frozen=True, slots=True)
class StandingsParams:
    """Ranking of §S7: the primary key and the tie-break chains for two and for 3+ tied teams."""

    primary: PrimaryKey = "match_points"
    two_tied: tuple[TieBreak, ...] = (
        "level_points",
        "head_to_head",
        "wins",
        "raw_level_diff",
        "opponents_score",
        "previous_rank",
    )
    many_tied: tuple[TieBreak, ...] = (
        "level_points",
        "wins",
        "raw_level_diff",
        "opponents_score",
        "previous_rank",
    )
    """`national` Art. 49. Rounds drawn (step 4) is left out: the book excludes it under match-point
    scoring (場分制除外), which every ruleset here uses."""
    round_robin: bool | None = None
    """Opponents' score is skipped in round robins (`national` Art. 49 (6) "對手分…（循環賽除外）").
    ``None`` (policy): inferred per stage, see :func:`scoring.standings.is_round_robin`."""
    round_robin_names: tuple[str, ...] = ("round_robin", "round-robin", "round robin", "循環", "循环")
    """(policy) A stage whose name contains one of these (any case) is a round robin."""
    infer_byes: bool = True
    """(policy) A team of the stage with no match in a round it did not withdraw from has a bye."""


@dataclass(frozen=True, slots=True)
class ScoringParams:
    """Everything scoring.md needs for one ruleset (or one event's variant of it)."""

    ruleset: str = "national"
    level_points: LevelPointsTable = field(default_factory=LevelPointsTable)
    match_points: MatchPoints = field(default_factory=MatchPoints)
    bcta_round: DealPoints = BCTA_ROUND
    bcta_dan: DealPoints = BCTA_DAN
    standings: StandingsParams = field(default_factory=StandingsParams)
    equal_levels: EqualLevels = "draw"
    """A round ended by deals or time at equal levels is scored as a ``draw`` or as a win for the
    replay's winner (``declarers``); the built-in value is the ruleset's ``equal_levels``
    (replay/rulesets.py, rules.md §7), an event may override it."""
    deal_gain: DealGainReading = "finishing_places"
    """The levels a won deal "goes up" for its BCTA points. ``finishing_places`` (default): seed
    001's own definition, 單局勝出 "同隊選手為頭游和二游升三級；同隊選手為頭游和三游升二級；同隊選手為
    頭游和末游升一級" (1st+2nd = 3, 1st+3rd = 2, 1st+4th = 1; a foul counts as a double win), also
    at A where the level cannot rise. ``levels_gained``: the replay's ``deals.level_gain``, the
    levels actually gained after the cap at A (the deal that passes A then scores nothing)."""


_HUAIAN_CHAIN: tuple[TieBreak, ...] = ("level_points", "tied_level_points", "opponents_level_points")
_JIANGSU_CHAIN: tuple[TieBreak, ...] = ("level_points", "levels_gained")

BY_RULESET: dict[str, ScoringParams] = {
    "national": ScoringParams(ruleset="national"),
    "huaian": ScoringParams(
        ruleset="huaian",
        match_points=MatchPoints(forfeit_level_points=18, forfeit_keep_actual_if_higher=True),
        standings=StandingsParams(two_tied=_HUAIAN_CHAIN, many_tied=_HUAIAN_CHAIN),
    ),
    "jiangsu": ScoringParams(
        ruleset="jiangsu", standings=StandingsParams(two_tied=_JIANGSU_CHAIN, many_tied=_JIANGSU_CHAIN)
    ),
    "bcta": ScoringParams(
        ruleset="bcta",
        standings=StandingsParams(primary="bcta_round_score"),
        equal_levels=BUILTIN["bcta"].equal_levels,
    ),
}
"""Built-in parameters. ``bcta`` (policy): ranks by total BCTA round score (§S4), then the
national chain; rulesets not listed (e.g. ``njupt``) use ``national``."""


def params_for(
    ruleset: str, overrides: Mapping[str, ScoringParams] | None = None, event_id: str | None = None
) -> ScoringParams:
    """The parameters of an event: its override if given, else its ruleset's, else ``national``."""
    if overrides and event_id is not None and event_id in overrides:
        return overrides[event_id]
    return BY_RULESET.get(ruleset, replace(BY_RULESET["national"], ruleset=ruleset))


def with_overrides(base: ScoringParams, changes: Mapping[str, Any]) -> ScoringParams:
    """``base`` with nested keys replaced, e.g. ``{"level_points": {"winner": [...]}}``.

    Unknown keys raise ``ValueError`` naming the expected ones, so a typo in an event's
    configuration is never silently ignored. Lists become tuples (the dataclasses are frozen).
    """
    return override(base, changes, "scoring")


@dataclass(frozen=True, slots=True)
class RatingParams:
    """The Gaussian whole-history rating of per-deal level margins (``scoring/ratings.py``).

    Units are levels per deal; the defaults were fitted on a simulated tuning league that the
    benchmark does not score (docs/ratings.md, ``benchmarks/bench_ratings.py --tune``).
    """

    model: str = "gaussian_deal_margins"
    prior_sd: float = 0.3
    """Spread of skills in the population: prior sd of a new player's share of a deal's margin."""
    deal_sd: float = 2.2
    """Noise of one deal's level margin (±1 … ±3) around the team-skill margin: luck of the cards."""
    within_weight: float = 1.0
    """Place difference of two partners per unit of their skill difference."""
    within_sd: float = 1.8
    """Noise of the partners' place difference."""
    tau: float = 0.0
    """Skill drift: sd added to a player's skill before each round played (0: skills are constant)."""
    deals_per_round: float = 7.2
    """A round's final level difference per unit of per-deal team margin: the deals a round is
    forecast over. A BCTA round (11 deals or 60 minutes) has 7.8 deals on the tuning league;
    the fit is lower because A caps levels and ends rounds."""
    round_sd: float = 5.7
    """The luck of a round: sd of its final level difference around the forecast for known skills."""
    interval: float = 0.8
    """Central probability of the forecast interval of a round's level difference."""
    calibration_min: int = 50
    """Decided rounds seen before the win probability is recalibrated (below: the raw Gaussian)."""
    calibration_refit: float = 1.1
    """The probit scale of the win probability is refitted each time the decided rounds seen
    grow by this factor (O(n log n) over a history, instead of a refit per round)."""
    display_deals: float = 10.0
    """Skills are shown in levels per this many deals (about one round)."""
    provisional_sigma: float = 1.5
    """A rating is provisional while sigma (in display units) is at least this."""
    display_k: float = 2.0
    """Displayed rating = mu − k·sigma (a conservative estimate)."""


def load_event_overrides(path: str | Path) -> dict[str, ScoringParams]:
    """Per-event parameters from a ``.toml`` or ``.json`` file (`national` Art. 47 §2: an event may
    supply its own tables).

    Each top-level key is an event id; its table names a ``base`` ruleset (default ``national``)
    and the keys to change, e.g. ``[js-open.level_points] winner = [13, 15, 17, …]``.
    """
    path = Path(path)
    text = path.read_text(encoding="utf-8")
    data = tomllib.loads(text) if path.suffix == ".toml" else json.loads(text)
    out = {}
    for event_id, changes in data.items():
        changes = dict(changes)
        base = params_for(changes.pop("base", "national"))
        try:
            out[event_id] = with_overrides(base, changes)
        except ValueError as exc:
            raise ValueError(f"{path}: event {event_id!r}: {exc}") from None
    return out
