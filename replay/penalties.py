"""Referee rulings and what they cost (events.md ``ruling``, rules.md §8, the rulesets' card and foul
parameters): which rulings are well-formed, and the penalty a foul, a card or a forfeit brings.

:class:`Penalties` counts the cards and fouls of one match and answers with a :class:`Penalty`; the
replayer applies it to the deal or match (a forfeited deal, a lost round). Nothing here changes
the deal or match state itself.
"""

from __future__ import annotations

from typing import Any, Literal, NamedTuple

from replay.events import RULING_KINDS, one_of
from replay.rulesets import Ruleset
from schemas.vocabulary import SEATS, TEAM, TEAMS


class Penalty(NamedTuple):
    """What a ruling costs the side it is against: nothing more, the deal in play, or the round."""

    effect: Literal["none", "forfeit_deal", "lose_round"]
    reason: str = ""
    """What a forfeited deal is for, as error messages name it (``a foul ruling``, ``a red card``)."""


NO_PENALTY = Penalty("none")
LOSE_ROUND = Penalty("lose_round")

SIDED_KINDS = frozenset({"foul", "red_card", "forfeit_match", "deduction", "yellow_card", "rank_last"})
"""Ruling kinds that must name the seat or team they are against (``rank_last``: the seat)."""


def ruling_fault(ev: dict[str, Any]) -> str | None:
    """Why a ruling event cannot be applied (``bad_ruling``): an unknown kind, a seat or team that
    does not exist, a missing side or missing levels; None when it can."""
    kind = ev["kind"]
    if not one_of(kind, RULING_KINDS):
        return f"unknown ruling kind {kind!r}; expected one of {', '.join(sorted(RULING_KINDS))}"
    seat, team = ev.get("seat"), ev.get("team")
    if seat is not None and seat not in SEATS:
        return f"ruling seat {seat!r} is not E, N, W or S"
    if team is not None and team not in TEAMS:
        return f"ruling team {team!r} is not EW or NS"
    if kind == "rank_last":
        if seat is None:
            return "a rank_last ruling needs `seat`: the offender it ranks last (docs/event-extensions.md)"
        if team is not None and team != TEAM[seat]:
            return f"a rank_last ruling against {seat} names team {team}, not {seat}'s team {TEAM[seat]}"
    if ruled_side(ev) is None and kind in SIDED_KINDS:
        return f"a {kind} ruling needs `seat` or `team`"
    if kind == "level_adjust" and not ev.get("levels"):
        return "a level_adjust ruling needs `levels`"
    return None


def ruled_side(ev: dict[str, Any]) -> str | None:
    """The team a (well-formed) ruling is against: its ``team``, else the team of its ``seat``."""
    team: str | None = ev.get("team")
    seat: str | None = ev.get("seat")
    return team or (TEAM[seat] if seat else None)


class Penalties:
    """Yellow and red cards per player and fouls per team in one match, and the :class:`Penalty` of
    each new card or foul under the ruleset (a "player" is the seat ruled against, else its team)."""

    def __init__(self, ruleset: Ruleset) -> None:
        self.ruleset = ruleset
        self.yellow: dict[str, int] = {}
        """Yellow cards per player in the current deal."""
        self.reds: dict[str, int] = {}
        """Red cards per player in the round."""
        self.fouls: dict[str, int] = {}
        """Fouls per team in the round."""

    def new_deal(self) -> None:
        """Yellow cards count within a deal: a new deal starts from none."""
        self.yellow = {}

    def judge(self, kind: str, player: str, team: str, in_deal: bool) -> Penalty:
        """The penalty of a ``kind`` ruling against ``player`` of ``team``, counting the foul or card;
        ``in_deal``: a deal is in play (tribute or play phase)."""
        if kind == "foul":
            self.fouls[team] = self.fouls.get(team, 0) + 1
            limit = self.ruleset.fouls_per_round_loss
            if limit is not None and self.fouls[team] >= limit:
                return LOSE_ROUND
            return Penalty("forfeit_deal", "a foul ruling")
        if kind == "forfeit_match":
            return LOSE_ROUND
        if kind == "red_card" or (kind == "yellow_card" and self._yellow_makes_red(player, in_deal)):
            return self._red_card(player)
        return NO_PENALTY

    def _yellow_makes_red(self, player: str, in_deal: bool) -> bool:
        """Whether this yellow card is the player's ``yellows_per_red``-th of the deal (BCTA rule book).

        Yellows count per player within a deal in play (reset at each ``deal_start``); one shown
        outside a deal is recorded but makes no red card.
        """
        limit = self.ruleset.card_penalty.yellows_per_red
        if limit is None or not in_deal:
            return False
        self.yellow[player] = self.yellow.get(player, 0) + 1
        return self.yellow[player] >= limit

    def _red_card(self, player: str) -> Penalty:
        """A red card (shown, or made of yellows): the ruleset's ``card_penalty`` says what it costs."""
        rule = self.ruleset.card_penalty
        self.reds[player] = self.reds.get(player, 0) + 1
        limit = rule.reds_per_round_loss
        if rule.red_effect == "lose_round" or (limit is not None and self.reds[player] >= limit):
            return LOSE_ROUND
        return Penalty("forfeit_deal", "a red card")
