"""The validation error vocabulary: one stable code per kind of fault (events.md "Validation").

Codes are part of the public contract (quarantine rows, ``gdan validate --json``, the
simulator's corruption manifest); never rename one. Add new codes at the end of a group.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum


class ErrorCode(StrEnum):
    """A kind of fault in an event stream, with its meaning as the docstring table below."""

    # framing
    MALFORMED_LINE = "malformed_line"
    MALFORMED_FIELD = "malformed_field"
    UNSUPPORTED_VERSION = "unsupported_version"
    UNKNOWN_TYPE = "unknown_type"
    DUPLICATE_SEQ = "duplicate_seq"
    MISSING_SEQ = "missing_seq"
    EVENT_OUT_OF_PLACE = "event_out_of_place"
    INCOMPLETE_MATCH = "incomplete_match"
    # match set-up
    UNKNOWN_RULESET = "unknown_ruleset"
    # deal set-up
    WRONG_HAND_SIZE = "wrong_hand_size"
    BAD_DECK = "bad_deck"
    WRONG_LEVEL = "wrong_level"
    WRONG_DECLARERS = "wrong_declarers"
    WRONG_LEADER = "wrong_leader"
    # tribute
    TRIBUTE_MISSING = "tribute_missing"
    UNEXPECTED_TRIBUTE = "unexpected_tribute"
    WRONG_TRIBUTE_ROUTE = "wrong_tribute_route"
    WRONG_TRIBUTE_CARD = "wrong_tribute_card"
    BAD_ANTI_TRIBUTE = "bad_anti_tribute"
    RETURN_MISSING = "return_missing"
    WRONG_RETURN_ROUTE = "wrong_return_route"
    WRONG_RETURN_CARD = "wrong_return_card"
    # play
    OUT_OF_TURN = "out_of_turn"
    CARD_NOT_IN_HAND = "card_not_in_hand"
    NOT_A_COMBINATION = "not_a_combination"
    BAD_READING = "bad_reading"
    DOES_NOT_BEAT = "does_not_beat"
    PASS_ON_LEAD = "pass_on_lead"
    # results
    DEAL_NOT_OVER = "deal_not_over"
    WRONG_FINISH_ORDER = "wrong_finish_order"
    WRONG_LEVELS = "wrong_levels"
    MATCH_NOT_OVER = "match_not_over"
    MATCH_ALREADY_OVER = "match_already_over"
    WRONG_MATCH_RESULT = "wrong_match_result"
    # rulings
    BAD_RULING = "bad_ruling"


ERROR_DOCS: dict[ErrorCode, str] = {
    ErrorCode.MALFORMED_LINE: "a line is not a JSON object with a string `match` (reported per line)",
    ErrorCode.MALFORMED_FIELD: "a field is missing or has the wrong type or value for its event type",
    ErrorCode.UNSUPPORTED_VERSION: "`v` is not 1",
    ErrorCode.UNKNOWN_TYPE: "`type` is not an event type of format v1",
    ErrorCode.DUPLICATE_SEQ: "a `seq` occurs twice in the match (error seq = the repeated seq)",
    ErrorCode.MISSING_SEQ: "a `seq` is skipped (error seq = the first missing number)",
    ErrorCode.EVENT_OUT_OF_PLACE: "an event the match state does not allow now (e.g. a play before "
    "deal_start, a second match_start)",
    ErrorCode.INCOMPLETE_MATCH: "the stream ends without match_end",
    ErrorCode.UNKNOWN_RULESET: "`rules` names no known ruleset",
    ErrorCode.WRONG_HAND_SIZE: "a dealt hand does not hold 27 cards",
    ErrorCode.BAD_DECK: "a card is not a valid card, or the hands are not two full decks",
    ErrorCode.WRONG_LEVEL: "deal_start `level` differs from the level derived from earlier deals",
    ErrorCode.WRONG_DECLARERS: "deal_start `declarers` differs from the previous deal's 1st team",
    ErrorCode.WRONG_LEADER: "the first play of a deal is not by the leader rules.md §5/§6 names",
    ErrorCode.TRIBUTE_MISSING: "play started before a due tribute (or anti-tribute) was recorded",
    ErrorCode.UNEXPECTED_TRIBUTE: "a tribute where none is due (first deal, after anti-tribute or "
    "a foul, or one too many)",
    ErrorCode.WRONG_TRIBUTE_ROUTE: "a tribute from or to the wrong seat",
    ErrorCode.WRONG_TRIBUTE_CARD: "the tribute card is not the giver's highest (heart level excluded)",
    ErrorCode.BAD_ANTI_TRIBUTE: "anti-tribute claimed without both big jokers, or not claimed when due",
    ErrorCode.RETURN_MISSING: "play started before every received tribute was returned",
    ErrorCode.WRONG_RETURN_ROUTE: "a return from or to the wrong seat, or not after its tribute",
    ErrorCode.WRONG_RETURN_CARD: "the return card breaks the ruleset's constraint (rules.md §6)",
    ErrorCode.OUT_OF_TURN: "a play or pass by a seat whose turn it is not",
    ErrorCode.CARD_NOT_IN_HAND: "a played, paid or returned card is not in the seat's hand",
    ErrorCode.NOT_A_COMBINATION: "the cards form no combination (rules.md §3)",
    ErrorCode.BAD_READING: "the declared `combo` is not a reading of the cards",
    ErrorCode.DOES_NOT_BEAT: "the play does not beat the last play of the trick (rules.md §4)",
    ErrorCode.PASS_ON_LEAD: "a pass by the player who must lead",
    ErrorCode.DEAL_NOT_OVER: "deal_end (or deal_start) while the deal is still being played",
    ErrorCode.WRONG_FINISH_ORDER: "deal_end `order` differs from the order derived from the play",
    ErrorCode.WRONG_LEVELS: "reported `levels` differ from the derived levels",
    ErrorCode.MATCH_NOT_OVER: "match_end while the round format says the match goes on",
    ErrorCode.MATCH_ALREADY_OVER: "a deal_start after the round format has ended the match",
    ErrorCode.WRONG_MATCH_RESULT: "match_end `reason` or `winner` differs from the derived result",
    ErrorCode.BAD_RULING: "a ruling with an unknown kind or a seat/team that does not exist",
}


@dataclass(frozen=True, slots=True)
class ReplayError:
    """The first offending event of an invalid match."""

    seq: int | None
    code: ErrorCode
    message: str
