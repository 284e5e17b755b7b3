"""What a deal's result does to the match (rules.md §5.8, §7, §10): the levels after it, the
declarers' attempt at A passed or failed, and when the levels end the match and who wins it.

These rules are written here once: the replayer checks a log's ``deal_end`` and ``match_end``
against them, and the simulator's referee and the score-sheet importer write those events by
them, so the three cannot disagree. Every choice comes from the ruleset's parameters
(``Ruleset.a``, ``extra_deal``, ``max_level``, ``draw_breaker``), never from its id.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from replay.events import LEVEL_INDEX, LEVELS
from replay.rulesets import Ruleset
from schemas.vocabulary import OTHER_TEAM, PARTNER, TEAM

_GAIN_BY_PARTNER_PLACE: dict[int, int] = {2: 3, 3: 2, 4: 1}
"""Levels the 1st-place team goes up by its partner's place (rules.md §5.8)."""


def level_up(level: str, gain: int, max_level: str = "A") -> str:
    """The level ``gain`` steps above ``level``, capped at ``max_level`` (rules.md §5.8, §7)."""
    return LEVELS[min(LEVEL_INDEX[level] + gain, LEVEL_INDEX[max_level])]


def partner_place(order: Sequence[str], double: bool = False) -> int:
    """The place (2, 3 or 4) of the 1st-place player's partner in a finishing order that names at
    least the 1st (rules.md §5.5–§5.7): 2 after a double win, 4 when the partner is not listed."""
    if double:
        return 2
    partner = PARTNER[order[0]]
    return order.index(partner) + 1 if partner in order else 4


def finish_gain(order: Sequence[str]) -> int:
    """Levels the 1st-place team goes up (rules.md §5.8): partner 2nd → 3, 3rd → 2, 4th → 1."""
    return _GAIN_BY_PARTNER_PLACE[partner_place(order)]


@dataclass(frozen=True, slots=True)
class LevelOutcome:
    """The result of one deal for the match (:func:`level_outcome`)."""

    winner: str
    """The 1st-place team, the only one that goes up (rules.md §5.8)."""
    double: bool
    """A double win (rules.md §5.7), or a deal forfeited to the winner (§8)."""
    gain: int
    """Levels the finish earns: 3, 2 or 1 (§5.8), or the extra deal's own gain (§7)."""
    raised: int
    """Levels the winner really went up: ``gain`` capped at the ruleset's top level."""
    levels: dict[str, str]
    """Both teams' levels after the deal (a team sent back to 2 included)."""
    a_attempt: bool
    """The declarers played the deal at the top level (rules.md §7)."""
    a_passed: bool
    failures: dict[str, int]
    """Failures at A per team after the deal, as the ruleset counts them (§7, §10)."""
    end: str | None
    """``passed_a`` or ``a_failures`` when the deal ends the match, else None."""
    match_winner: str | None
    """The team that wins the match when ``end`` is set."""

    @property
    def a_failed(self) -> bool:
        """An attempt at A not passed (counted as a failure or not, by the ruleset)."""
        return self.a_attempt and not self.a_passed


def level_outcome(
    ruleset: Ruleset,
    levels: Mapping[str, str],
    declarers: str | None,
    deal_level: str,
    order: Sequence[str],
    failures: Mapping[str, int],
    *,
    forfeit: bool = False,
    extra_deal: bool = False,
) -> LevelOutcome:
    """The levels, A attempt and match end after a deal played at ``deal_level`` by
    ``declarers`` (None: a deal without declarers) that finished in ``order`` (the 1st place at
    least; rules.md §5.5–§5.7), from the teams' ``levels`` and A ``failures`` before its result.

    ``forfeit``: the deal was forfeited to the team of ``order[0]`` (a foul or red card, §8), a
    double win whatever the order. ``extra_deal``: the deal breaking a level round, which goes up
    by ``ruleset.extra_deal.gain`` when the ruleset sets one (§7).
    """
    winner = TEAM[order[0]]
    double = forfeit or (len(order) > 1 and TEAM[order[1]] == winner)
    place = partner_place(order, double)
    gain = _GAIN_BY_PARTNER_PLACE[place]
    if extra_deal and ruleset.extra_deal.gain is not None:
        gain = ruleset.extra_deal.gain
    top = ruleset.max_level
    after = dict(levels)
    after[winner] = level_up(levels[winner], gain, top)
    raised = LEVEL_INDEX[after[winner]] - LEVEL_INDEX[levels[winner]]
    counted = dict(failures)
    if declarers is None or deal_level != top:
        return LevelOutcome(winner, double, gain, raised, after, False, False, counted, None, None)
    rule = ruleset.a
    first = winner == declarers
    if first and (place == 2 if rule.pass_rule == "first_and_second" else place != 4):
        return LevelOutcome(winner, double, gain, raised, after, True, True, counted, "passed_a", declarers)
    end: str | None = None
    if rule.failure_counts == "any_unpassed" or (first and place == 4):
        counted[declarers] += 1
        if rule.failure_limit is not None and counted[declarers] >= rule.failure_limit:
            if rule.failure_action == "lose_round":
                end = "a_failures"
            elif rule.failure_action == "back_to_two":
                after[declarers] = LEVELS[0]
                counted[declarers] = 0
    match_winner = OTHER_TEAM[declarers] if end else None
    return LevelOutcome(winner, double, gain, raised, after, True, False, counted, end, match_winner)


def level_winner(levels: Mapping[str, str]) -> str | None:
    """The team with the higher level, or None when level (rules.md §7)."""
    ew, ns = LEVEL_INDEX[levels["EW"]], LEVEL_INDEX[levels["NS"]]
    return None if ew == ns else "EW" if ew > ns else "NS"


def extra_deal_due(ruleset: Ruleset, breaks: bool, played: bool, levels: Mapping[str, str]) -> bool:
    """Whether the format's end at ``levels`` calls for an extra deal (rules.md §7): the levels are
    equal in a round the ruleset breaks (``breaks``: ``Ruleset.extra_deal_breaks`` of the match's
    event), and no extra deal was ``played`` yet or the ruleset plays on until one team is ahead."""
    return breaks and ruleset.extra_deal.may_follow(played) and level_winner(levels) is None


def round_winner(
    ruleset: Ruleset,
    levels: Mapping[str, str],
    last_declarers: str | None,
    last_winner: str | None,
    extra_deal_played: bool,
) -> str | None:
    """The winner of a round the format ends (rules.md §7): the team with the higher level; at
    equal levels the 1st-place team of the extra deal that was played, else the ruleset's
    ``draw_breaker``: the last deal's declarers (its winner when it had none), or a draw (None)."""
    winner = level_winner(levels)
    if winner is not None:
        return winner
    if extra_deal_played:
        return last_winner
    if ruleset.draw_breaker == "declarers":
        return last_declarers or last_winner
    return None
