"""Guandan rules engine: cards, combinations with wild cards, comparison and legal moves
(rules.md §1–§4), plus the rulesets as data (§6, §7, §10).

Everything other packages need is re-exported here; import from ``replay``. The hot modules
may run compiled (``replay.native``).
"""

from replay import native

native.select()

from replay.batch import MatchReplay, ReplayError, replay_batch, replay_batch_with_events, replay_match
from replay.cards import (
    CARDS,
    DECK,
    RANKS,
    SUITS,
    card_list,
    display_order,
    has_cards,
    highest_tribute_card,
    is_card,
    is_wild,
    missing_cards,
    parse_card,
    parse_cards,
    rank_of,
    remove_cards,
    single_order,
    single_value,
    sort_cards,
    to_counter,
    tribute_candidates,
    wilds_in,
)
from replay.combos import (
    TYPES,
    Combo,
    beats,
    bomb_class,
    make_combo,
    rank_value,
    readings,
    sort_key,
    strength_class,
)
from replay.moves import Move, can_beat, legal_moves
from replay.review import DecisionReview, position_before, review_deal
from replay.rulesets import BUILTIN, Ruleset, get_ruleset, parse_ruleset, ruleset_from_mapping
from replay.seats import NEXT, OTHER_TEAM, PARTNER, PREV, SEATS, TEAM, TEAM_SEATS
from replay.solver import Budget, DealEnd, Position, Solution, Solver, play_action, solve

__all__ = [
    "BUILTIN",
    "CARDS",
    "DECK",
    "NEXT",
    "OTHER_TEAM",
    "PARTNER",
    "PREV",
    "RANKS",
    "SEATS",
    "SUITS",
    "TEAM",
    "TEAM_SEATS",
    "TYPES",
    "Budget",
    "Combo",
    "DealEnd",
    "DecisionReview",
    "MatchReplay",
    "Move",
    "Position",
    "ReplayError",
    "Ruleset",
    "Solution",
    "Solver",
    "beats",
    "bomb_class",
    "can_beat",
    "card_list",
    "display_order",
    "get_ruleset",
    "has_cards",
    "highest_tribute_card",
    "is_card",
    "is_wild",
    "legal_moves",
    "make_combo",
    "missing_cards",
    "parse_card",
    "parse_cards",
    "parse_ruleset",
    "play_action",
    "position_before",
    "rank_of",
    "rank_value",
    "readings",
    "remove_cards",
    "replay_batch",
    "replay_batch_with_events",
    "replay_match",
    "review_deal",
    "ruleset_from_mapping",
    "single_order",
    "single_value",
    "solve",
    "sort_cards",
    "sort_key",
    "strength_class",
    "to_counter",
    "tribute_candidates",
    "wilds_in",
]
