"""A deal's result in match terms: the chance that a team wins the match (rules.md §7).

The exact solver values a decision in levels (rules.md §5.8); a coach needs what those levels
are worth in the match: a level gained at K that the cap at A swallows is worth nothing, a
finish that lets the other team pass A loses the match, and in the last deal of a ``deals``
format only the comparison of levels counts. :func:`win_chance` is the chance that a team wins
the match from the state after a deal, under a small documented model:

- every later deal is won by either team with chance ½, by a finish worth 3, 2 or 1 levels with
  the chances :data:`GAIN_SHARES` (the finishing gains of simulated matches);
- the winner of a deal declares the next one, played at its level (rules.md §5.8);
- what a deal does to the levels, A attempts and failures and whether it ends the match is
  :func:`replay.outcome.level_outcome`'s (the rules are written there once);
- a format with a deal count ends after it; a format without one (``until_a``, ``timed``) is
  valued as if it ended :data:`HORIZON` deals later; a format's end gives the match to the
  higher level, equal levels by the ruleset's ``draw_breaker`` (``round_winner``), a draw
  counting ½.

:func:`outcome_chance` applies one deal's value in levels (the solver's, for the deciding team)
to the state before the deal and returns the deciding team's chance to win the match after it.
Pure: no I/O; values are memoised per state.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Final

from replay.outcome import level_outcome, round_winner
from replay.rulesets import Ruleset
from schemas.vocabulary import OTHER_TEAM, SEATS, TEAM

GAIN_SHARES: Final = ((3, 0.44), (2, 0.20), (1, 0.36))
"""Chance that a deal's winner gains 3, 2 or 1 levels: the shares of 195 finishes of 24
simulated matches (all rulesets)."""

HORIZON: Final = 12
"""Deals a match without a deal count is assumed to last after the one reviewed."""

TEAMS: Final = ("EW", "NS")


@dataclass(frozen=True, slots=True)
class MatchState:
    """The match before a deal: both teams' levels, their failures at A, the deal's declarers
    (None on a first deal) and its level, and how many deals the format still allows after it
    (``None``: no deal count)."""

    levels: tuple[tuple[str, str], ...]
    failures: tuple[tuple[str, int], ...]
    declarers: str | None
    deal_level: str
    deals_after: int | None

    @classmethod
    def of(cls, levels: Mapping[str, str], failures: Mapping[str, int], declarers: str | None,
           deal_level: str, deals_after: int | None) -> MatchState:
        """A state from team → level and team → failures mappings."""
        return cls(tuple((t, levels[t]) for t in TEAMS), tuple((t, failures.get(t, 0)) for t in TEAMS),
                   declarers, deal_level, deals_after)


def finishing_order(team: str, value: int) -> tuple[str, ...]:
    """A finishing order worth ``value`` levels to ``team`` (rules.md §5.8): its player 1st and the
    partner 2nd / 3rd / 4th for +3 / +2 / +1; the other team's the same way for a negative value."""
    winner = team if value > 0 else OTHER_TEAM[team]
    ours = [s for s in SEATS if TEAM[s] == winner]
    theirs = [s for s in SEATS if TEAM[s] != winner]
    gain = abs(value)
    if gain == 3:
        return (ours[0], ours[1], theirs[0], theirs[1])
    if gain == 2:
        return (ours[0], theirs[0], ours[1], theirs[1])
    return (ours[0], theirs[0], theirs[1], ours[1])


def outcome_chance(ruleset: Ruleset, state: MatchState, team: str, value: int) -> float:
    """``team``'s chance to win the match after the deal of ``state`` ends worth ``value`` levels
    to it (±1, ±2, ±3)."""
    model = _model(ruleset)
    (_, ew), (_, ns) = state.levels
    (_, ew_failed), (_, ns_failed) = state.failures
    finishes = model.results(ew, ns, ew_failed, ns_failed, state.declarers, state.deal_level)
    ended, winner, ew, ns, ew_failed, ns_failed = finishes[_ORDER_INDEX[finishing_order(team, value)]]
    if ended is not None:
        return 1.0 if ended == team else 0.0
    if state.deals_after == 0:
        final = round_winner(ruleset, {"EW": ew, "NS": ns}, state.declarers, winner, False)
        return 0.5 if final is None else 1.0 if final == team else 0.0
    chance = model.chance(ew, ns, ew_failed, ns_failed, winner,
                          HORIZON if state.deals_after is None else state.deals_after)
    return chance if team == "EW" else 1.0 - chance


def win_chance(ruleset: Ruleset, team: str, levels: Mapping[str, str], failures: Mapping[str, int],
               declarers: str, deals_left: int | None) -> float:
    """``team``'s chance to win the match between deals: ``declarers`` declare the next deal and
    the format allows ``deals_left`` ≥ 1 more (``None``: no deal count, :data:`HORIZON` assumed)."""
    if deals_left is not None and deals_left < 1:
        raise ValueError(f"a next deal needs deals_left >= 1, got {deals_left}")
    chance = _model(ruleset).chance(levels["EW"], levels["NS"], failures.get("EW", 0), failures.get("NS", 0),
                                    declarers, HORIZON if deals_left is None else deals_left)
    return chance if team == "EW" else 1.0 - chance


_Result = tuple[str | None, str, str, str, int, int]
"""A deal's result as the model keeps it: the match winner when the deal ends the match, the
deal's winning team, then EW's and NS's levels and EW's and NS's failures at A after it."""

_ORDERS: Final = tuple((share, finishing_order(w, gain)) for w in TEAMS for gain, share in GAIN_SHARES)
"""Every kind of finish of a later deal and its chance given the winner: (share, order)."""
_ORDER_INDEX: Final = {order: i for i, (_, order) in enumerate(_ORDERS)}
"""The place of each finishing order in :data:`_ORDERS`."""


class _Model:
    """The model's values for one ruleset, memoised by match state (the ruleset is hashed once
    per question, not at every state the recursion visits). A state is keyed by flat tuples
    (EW's level, NS's level, EW's failures, NS's failures, ...): the recursion looks up tens of
    thousands of them, and a flat tuple hashes in one pass."""

    __slots__ = ("_chances", "_results", "ruleset")

    def __init__(self, ruleset: Ruleset) -> None:
        self.ruleset = ruleset
        self._results: dict[tuple[str, str, int, int, str | None, str], tuple[_Result, ...]] = {}
        self._chances: dict[tuple[str, str, int, int, str, int], float] = {}

    def results(self, ew: str, ns: str, ew_failed: int, ns_failed: int, declarers: str | None,
                deal_level: str) -> tuple[_Result, ...]:
        """:func:`level_outcome` of a deal at these levels and failures for each finish of
        :data:`_ORDERS`, in that order (one memo entry per state: the recursion asks for all six
        finishes of every state it visits)."""
        key = (ew, ns, ew_failed, ns_failed, declarers, deal_level)
        hit = self._results.get(key)
        if hit is None:
            levels, failures = {"EW": ew, "NS": ns}, {"EW": ew_failed, "NS": ns_failed}
            hit = self._results[key] = tuple(self._result(levels, failures, declarers, deal_level, order)
                                             for _, order in _ORDERS)
        return hit

    def _result(self, levels: dict[str, str], failures: dict[str, int], declarers: str | None,
                deal_level: str, order: tuple[str, ...]) -> _Result:
        outcome = level_outcome(self.ruleset, levels, declarers, deal_level, order, failures)
        after, counted = outcome.levels, outcome.failures
        return (outcome.match_winner if outcome.end is not None else None, outcome.winner,
                after["EW"], after["NS"], counted.get("EW", 0), counted.get("NS", 0))

    def chance(self, ew: str, ns: str, ew_failed: int, ns_failed: int, declarers: str,
               deals_left: int) -> float:
        """EW's chance to win the match before a deal declared by ``declarers``, ``deals_left`` ≥ 1
        deals allowed, this one included."""
        key = (ew, ns, ew_failed, ns_failed, declarers, deals_left)
        hit = self._chances.get(key)
        if hit is not None:
            return hit
        finishes = self.results(ew, ns, ew_failed, ns_failed, declarers, ew if declarers == "EW" else ns)
        total = 0.0
        for (share, _), (ended, winner, ew_after, ns_after, ew_count, ns_count) in zip(_ORDERS, finishes,
                                                                                        strict=True):
            if ended is not None:
                chance = 1.0 if ended == "EW" else 0.0
            elif deals_left == 1:
                final = round_winner(self.ruleset, {"EW": ew_after, "NS": ns_after}, declarers, winner, False)
                chance = 0.5 if final is None else 1.0 if final == "EW" else 0.0
            else:
                chance = self.chance(ew_after, ns_after, ew_count, ns_count, winner, deals_left - 1)
            total += 0.5 * share * chance
        self._chances[key] = total
        return total


_MODELS: dict[Ruleset, _Model] = {}
"""The model of each ruleset asked about (a process asks about a few)."""


def _model(ruleset: Ruleset) -> _Model:
    model = _MODELS.get(ruleset)
    if model is None:
        model = _MODELS[ruleset] = _Model(ruleset)
    return model
