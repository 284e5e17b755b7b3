"""Which cards may be returned (還貢) under a ruleset's ReturnRule (rules.md §6 table, §10)."""

from __future__ import annotations

from replay.rulesets import ReturnRule
from simulator.cards import BIG_JOKER, NATURAL, SMALL_JOKER, single_order


def legal_returns(
    hand: list[str], level: str, rule: ReturnRule, to_partner: bool, received: str
) -> list[str]:
    """The cards of `hand` the receiver may return to the tributer.

    `hand` already holds the received tribute card. The constraint binds every return unless the
    rule applies to partners only (``huaian``). When nothing satisfies it, the lowest card is the
    fallback (also used when the ruleset has no fallback, so that a deal can always go on).
    """
    if rule.applies_to == "partner_only" and not to_partner:
        return list(hand)
    limit = NATURAL[rule.max_rank]
    ok = [
        c
        for c in hand
        if c not in (SMALL_JOKER, BIG_JOKER)
        and NATURAL[c[1]] <= limit
        and not (rule.exclude_level_cards and c[1] == level)
        and not (rule.not_tribute_card and c == received)
    ]
    if ok:
        return ok
    pool = [c for c in hand if not (rule.not_tribute_card and c == received)] or list(hand)
    low = min(single_order(c, level) for c in pool)
    return [c for c in pool if single_order(c, level) == low]
