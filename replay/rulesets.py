"""Rulesets as data: every rule parameter that differs between rule books (rules.md §6–§8, §10).

A ruleset is a frozen dataclass; the engine reads its fields and never branches on its id.
The four built-in rulesets restate the rule books; a club or platform variant is a TOML or
JSON file whose keys override a base ruleset (``base = "national"``).
"""

from __future__ import annotations

import json
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

from replay.overrides import override
from schemas.vocabulary import is_knockout

FormatKind = Literal["until_a", "deals", "timed", "timed_deals"]
ReturnTarget = Literal["all", "partner_only"]
DoubleTributeRouting = Literal["higher_to_first", "always_to_shangjia"]
DoubleTributeLeader = Literal["giver_to_first", "giver_of_higher"]
EqualTributeLeader = Literal["first_xiajia", "previous_fourth"]
PassARule = Literal["first_and_partner_not_last", "first_and_second"]
AFailureCounts = Literal["any_unpassed", "one_four_only"]
AFailureAction = Literal["none", "lose_round", "back_to_two"]
DrawBreaker = Literal["none", "declarers", "extra_deal"]
EqualLevels = Literal["draw", "declarers"]
ExtraDealRounds = Literal["any", "last", "knockout"]
RedCardEffect = Literal["lose_deal", "lose_round"]


@dataclass(frozen=True, slots=True)
class RoundFormat:
    """How a round ends (rules.md §7): ``deals`` and ``minutes`` apply to the kinds that use them."""

    kind: FormatKind = "until_a"
    deals: int | None = None
    minutes: int | None = None


ROUND_FORMAT_HELP = "until_a | deals:N | timed:MINUTES | timed_deals:MINUTES:N"


def parse_round_format(text: str) -> RoundFormat:
    """The round format a CLI option, API argument or score-sheet cell names (rules.md §7).

    One parser for the simulator, the score-sheet importer and the entry page, so a format one of
    them accepts is accepted by all; ``ValueError`` names what was expected.

    >>> parse_round_format("timed_deals:60:11")
    RoundFormat(kind='timed_deals', deals=11, minutes=60)
    """
    kind, *args = text.strip().lower().split(":")
    try:
        numbers = [int(a) for a in args]
    except ValueError:
        expected = f"numbers expected after ':' ({ROUND_FORMAT_HELP})"
        raise ValueError(f"bad round format {text!r}: {expected}") from None
    if any(n <= 0 for n in numbers):
        raise ValueError(f"bad round format {text!r}: numbers must be positive ({ROUND_FORMAT_HELP})")
    if kind == "until_a" and not numbers:
        return RoundFormat("until_a")
    if kind == "deals" and len(numbers) == 1:
        return RoundFormat("deals", deals=numbers[0])
    if kind == "timed" and len(numbers) == 1:
        return RoundFormat("timed", minutes=numbers[0])
    if kind == "timed_deals" and len(numbers) == 2:
        return RoundFormat("timed_deals", deals=numbers[1], minutes=numbers[0])
    raise ValueError(f"bad round format {text!r}: expected {ROUND_FORMAT_HELP}")


@dataclass(frozen=True, slots=True)
class ReturnRule:
    """Constraint on the return card (還貢), rules.md §6 table and §10."""

    max_rank: str = "T"
    """Highest natural rank a returned card may have (``T`` = rank ≤ 10)."""
    fallback_lowest: bool = True
    """When every card is above ``max_rank``, the lowest card may be returned."""
    exclude_level_cards: bool = False
    """Level cards may not be returned at all (``bcta``, NJUPT platform)."""
    not_tribute_card: bool = False
    """The return may not be the very card received (same rank and suit; ``jiangsu``)."""
    applies_to: ReturnTarget = "all"
    """``partner_only``: the constraint binds only a return to one's partner (``huaian``)."""


@dataclass(frozen=True, slots=True)
class ARule:
    """Passing A and failures at A (rules.md §7, §10)."""

    pass_rule: PassARule = "first_and_partner_not_last"
    failure_counts: AFailureCounts = "any_unpassed"
    failure_limit: int | None = None
    """Number of failures that triggers ``failure_action`` (``None``: no limit)."""
    failure_action: AFailureAction = "none"


@dataclass(frozen=True, slots=True)
class ExtraDeal:
    """The deal that breaks a round the format ends level, under ``draw_breaker = "extra_deal"``
    (rules.md §7). The defaults are a plain deal after the format's end whose 1st-place team wins
    the round; ``jiangsu`` sets every field (seed 003, see :data:`JIANGSU`)."""

    rounds: ExtraDealRounds = "any"
    """``any``: every round; ``last``: only the event's last round, which ``match_start`` marks
    with ``event.last_round: true`` (docs/event-extensions.md); ``knockout``: only the rounds of a
    knockout stage (``event.stage`` named as :func:`schemas.vocabulary.is_knockout` says). Other
    rounds may end level."""
    until_decided: bool = False
    """Another extra deal follows while the levels stay equal (a deal at A that nobody passes
    leaves them so); otherwise one extra deal ends the round whatever the levels."""
    first_deal_rules: bool = False
    """Played by a match's first-deal rules: no tribute, no declarers (the levels are equal) and
    the leader drawn as for deal 1 (``deal_start.leader``). Otherwise it follows the last deal."""
    first_out_ends: bool = False
    """The deal ends as soon as one player goes out (头游); ``deal_end.order`` is that one seat."""
    gain: int | None = None
    """Levels the winning team goes up (capped at ``max_level``); ``None``: the finish gain (§5.8)."""


    def may_follow(self, played: bool) -> bool:
        """Whether an extra deal may be due after ``played`` (whether one was played already)."""
        return not played or self.until_decided

    def breaks(self, event: Mapping[str, Any] | None) -> bool:
        """Whether a level round of the match whose ``match_start.event`` is ``event`` gets an extra
        deal under :attr:`rounds` (any JSON value where an object is expected counts as absent)."""
        info = event if isinstance(event, Mapping) else {}
        if self.rounds == "last":
            return info.get("last_round") is True
        if self.rounds == "knockout":
            return is_knockout(info.get("stage"))
        return True


@dataclass(frozen=True, slots=True)
class CardPenalty:
    """Referee yellow and red cards (rules.md §8; BCTA rule book, 裁判員紅黃牌的使用規則).

    The BCTA rule book: three yellow cards for one player in one deal (一局) make a red card, which
    ends that deal and loses it (當局判負); the side of a player shown two red cards in one round
    (一輪) loses the round (判本輪次為負). rules.md §8 says "three yellow cards in a round → the
    round is lost"; the rule book wins. The national, Huai'an and Jiangsu rule books have no card
    system: their rulesets take these defaults, which read a logged card the BCTA way for one deal
    (three yellows make a red, a red loses the deal) but never lose the round for reds.
    """

    yellows_per_red: int | None = 3
    """Yellow cards for one player within one deal that make a red card (``None``: never)."""
    red_effect: RedCardEffect = "lose_deal"
    """``lose_deal``: scored like a foul, the deal forfeited as a double win for the other team and
    the next deal without tribute; ``lose_round``: the player's side loses the round at once."""
    reds_per_round_loss: int | None = None
    """Red cards for one player within the round that lose it for the player's side (``None``: never)."""


@dataclass(frozen=True, slots=True)
class Ruleset:
    """All parameters of one ruleset. Build variants with :func:`parse_ruleset` or ``replace``."""

    id: str
    name: str
    returns: ReturnRule = field(default_factory=ReturnRule)
    double_tribute_routing: DoubleTributeRouting = "higher_to_first"
    """Rule books: 1st takes the higher card, equal ranks go each to the giver's 上家."""
    double_tribute_leader: DoubleTributeLeader = "giver_to_first"
    equal_tribute_leader: EqualTributeLeader = "first_xiajia"
    a: ARule = field(default_factory=ARule)
    default_format: RoundFormat = field(default_factory=RoundFormat)
    draw_breaker: DrawBreaker = "none"
    """Who wins a round that ends level (§7): ``declarers`` (``bcta``), one ``extra_deal``.

    This is the match result the replay records (``matches.winner``, checked against
    ``match_end.winner``); where a winner is required (a knockout) it decides. How the round is
    *scored* is :attr:`equal_levels`."""
    equal_levels: EqualLevels = "draw"
    """How scoring counts a round that ends by deals or time at equal levels (rules.md §7 policy).

    ``draw``: a draw for every score and point (match points, level points, BCTA round score and
    dan points, win rates, ratings), whatever ``draw_breaker`` named as the match winner. For
    ``bcta`` this follows seed 001's scoring text, 記分規則 "級數相同為平局，各記100分" and
    Appendix A "級數相同為平局，各記200分". ``declarers``: scored as a win for the team the replay
    gave the round to, following the play rule 單輪勝出 "如進攻主牌一致，則比賽結束時進攻一方勝出".
    A round an extra deal decided is always scored by its winner: that deal is the tie-break."""
    extra_deal: ExtraDeal = field(default_factory=ExtraDeal)
    """Which rounds ``draw_breaker = "extra_deal"`` breaks and how its deal is played."""
    full_house_joker_pair: bool = True
    """A full house may carry a pair of jokers (rule books: allowed)."""
    max_level: str = "A"
    card_penalty: CardPenalty = field(default_factory=CardPenalty)
    """Yellow and red cards (rules.md §8); defaults documented on :class:`CardPenalty`."""
    fouls_per_round_loss: int | None = None
    """Fouls against one side within a round that lose it for that side (``None``: never).

    Huai'an Art. 15 三.4 (一局比賽判負): a side with three fouls in a round (一局比賽) loses it,
    scored as a forfeit (2:0, 18:0); rules.md §8 does not mention it, the rule book wins. The other
    rule books set no limit."""

    def extra_deal_breaks(self, event: Mapping[str, Any] | None) -> bool:
        """Whether a round that the format ends level, in the match whose ``match_start.event`` is
        ``event``, gets an extra deal (``draw_breaker = "extra_deal"`` and :meth:`ExtraDeal.breaks`)."""
        return self.draw_breaker == "extra_deal" and self.extra_deal.breaks(event)


KNOCKOUT_PLAY_OFF = ExtraDeal(rounds="knockout", until_decided=True)
"""A knockout round the format ends level is played on, deal after deal, until one team is ahead:
`national` Art. 49 二 "兩隊之間在規定的時間或副數打平時，加賽一副，至決出勝負"; `huaian` Art. 14 五
"若采用淘汰賽賽制時，…每輪比賽的雙方都必須分出勝負" and Art. 29 三.2 "繼續在原有牌局基礎上加打一副牌決出勝負"
(a deal like the others: tribute and declarers follow the last deal). Other rounds may end level."""

NATIONAL = Ruleset(
    id="national",
    name="National Competitive Guandan (trial, 2022)",
    returns=ReturnRule(max_rank="T", fallback_lowest=True),
    double_tribute_leader="giver_to_first",
    equal_tribute_leader="first_xiajia",
    default_format=RoundFormat(kind="until_a"),
    draw_breaker="extra_deal",
    extra_deal=KNOCKOUT_PLAY_OFF,
)

HUAIAN = Ruleset(
    id="huaian",
    name="Huai'an Guandan rules",
    returns=ReturnRule(max_rank="T", fallback_lowest=True, applies_to="partner_only"),
    double_tribute_leader="giver_of_higher",
    equal_tribute_leader="first_xiajia",
    default_format=RoundFormat(kind="until_a"),
    draw_breaker="extra_deal",
    extra_deal=KNOCKOUT_PLAY_OFF,
    fouls_per_round_loss=3,
)

BCTA = Ruleset(
    id="bcta",
    name="BCTA Guandan competition rules",
    returns=ReturnRule(max_rank="T", fallback_lowest=False, exclude_level_cards=True),
    double_tribute_leader="giver_of_higher",
    equal_tribute_leader="first_xiajia",
    a=ARule(failure_limit=3, failure_action="lose_round"),
    default_format=RoundFormat(kind="timed_deals", deals=11, minutes=60),
    draw_breaker="declarers",
    equal_levels="draw",
    card_penalty=CardPenalty(yellows_per_red=3, red_effect="lose_deal", reds_per_round_loss=2),
)
"""Seed 001. A round that ends at equal levels: the replay gives the match to the declarers
(``draw_breaker``, the play rule 單輪勝出 "如進攻主牌一致，則比賽結束時進攻一方勝出"), which decides
where a winner is required; it is scored as a draw (``equal_levels = "draw"``, the scoring text
記分規則 "級數相同為平局，各記100分" and Appendix A "級數相同為平局，各記200分"). rules.md §7 states the
same policy; ``equal_levels = "declarers"`` scores the play rule instead."""

JIANGSU = Ruleset(
    id="jiangsu",
    name="Jiangsu simple rules (2017) with 2023 supplement",
    returns=ReturnRule(max_rank="T", fallback_lowest=True, not_tribute_card=True),
    double_tribute_leader="giver_to_first",
    equal_tribute_leader="first_xiajia",
    default_format=RoundFormat(kind="timed_deals", deals=9, minutes=50),
    draw_breaker="extra_deal",
    extra_deal=ExtraDeal(rounds="last", first_deal_rules=True, first_out_ends=True, gain=1),
)
"""Seed 003. Its supplement: "最后一轮不能平局,需加赛一把决定胜负,按比赛首副牌规则加赛,打出头游比赛即结束,
获胜方升一级" — the event's last round may not end level: one extra deal, played by the first-deal
rules (no tribute, the leader drawn as for deal 1), ends when the first player goes out (头游), whose
team goes up one level and wins. Earlier rounds may end level (a draw)."""

NJUPT = Ruleset(
    id="njupt",
    name="NJUPT Guandan AI competition platform",
    returns=ReturnRule(max_rank="T", fallback_lowest=False, exclude_level_cards=True),
    double_tribute_routing="always_to_shangjia",
    double_tribute_leader="giver_of_higher",
    equal_tribute_leader="previous_fourth",
    a=ARule(failure_counts="one_four_only", failure_limit=4, failure_action="back_to_two"),
    default_format=RoundFormat(kind="until_a"),
)

BUILTIN: dict[str, Ruleset] = {r.id: r for r in (NATIONAL, HUAIAN, BCTA, JIANGSU, NJUPT)}


def get_ruleset(ruleset_id: str) -> Ruleset:
    """The built-in ruleset with this id; ``KeyError`` names the known ids."""
    try:
        return BUILTIN[ruleset_id]
    except KeyError:
        known = ", ".join(sorted(BUILTIN))
        raise KeyError(f"unknown ruleset {ruleset_id!r}; known: {known}") from None


def ruleset_from_mapping(data: dict[str, Any]) -> Ruleset:
    """A ruleset from a mapping: ``base`` (default ``national``) overridden by the other keys.

    Unknown keys raise ``ValueError`` so that a typo in a ruleset file is never ignored.
    """
    data = dict(data)
    base = get_ruleset(data.pop("base", "national"))
    if "id" not in data:
        raise ValueError("a ruleset file must set 'id'")
    data.setdefault("name", data["id"])
    return override(base, data, "ruleset")


RULESET_SUFFIXES: tuple[str, ...] = (".toml", ".json")
"""File suffixes of custom ruleset files."""


def parse_ruleset(text: str, suffix: str) -> Ruleset:
    """A custom ruleset from the text of a ``.toml`` or ``.json`` file (see ``ruleset_from_mapping``).

    The engine does no I/O: the caller reads the file and passes its text and suffix.
    """
    if suffix not in RULESET_SUFFIXES:
        raise ValueError(f"a ruleset file must be .toml or .json, got {suffix or 'no suffix'!r}")
    data = tomllib.loads(text) if suffix == ".toml" else json.loads(text)
    return ruleset_from_mapping(data)
