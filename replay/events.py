"""Event format v1 (events.md): the vocabulary of the log and the field checks of every event type.

``check_event`` validates the envelope and the field types of one parsed event, without any game
state, and returns the first fault as a :class:`ReplayError`. The JSON Schema
``schemas/events.schema.json`` states the same contract for other tools; ``tests/test_schemas.py``
keeps the two in step through :data:`REQUIRED` and :data:`OPTIONAL`. ``match_start.start_state``
is an extension to v1 (docs/event-extensions.md): a match that starts mid-match; so is
``match_start.revision``: a correction, a complete re-submission of a match's log.
"""

from __future__ import annotations

from collections.abc import Collection
from datetime import datetime
from itertools import repeat
from typing import Any

from replay.errors import ErrorCode, ReplayError
from schemas.vocabulary import LEVEL_ORDER, RANKS, SEATS, TEAM, TEAMS

FORMAT_VERSION = 1

LEVELS: tuple[str, ...] = RANKS
"""The levels a team climbs, 2 … A: the natural ranks (rules.md §2)."""
LEVEL_INDEX: dict[str, int] = LEVEL_ORDER
"""Levels 2 … A as 0 … 12."""

FORMAT_KINDS = frozenset({"until_a", "deals", "timed", "timed_deals"})
END_REASONS = frozenset({"passed_a", "deals", "time", "a_failures", "forfeit", "abandoned"})
RULING_KINDS = frozenset(
    {
        "warning",
        "violation",
        "foul",
        "yellow_card",
        "red_card",
        "deduction",
        "level_adjust",
        "forfeit_match",
        "rank_last",
    }
)
"""Ruling kinds (events.md ``ruling``); ``rank_last`` is an extension (docs/event-extensions.md)."""

REQUIRED: dict[str, tuple[str, ...]] = {
    "match_start": ("rules", "seats"),
    "deal_start": ("deal", "level", "declarers"),
    "tribute": ("from", "to", "card"),
    "anti_tribute": ("seats",),
    "return": ("from", "to", "card"),
    "play": ("seat", "cards"),
    "pass": ("seat",),
    "report": ("seat", "left"),
    "ruling": ("kind",),
    "deal_end": ("order",),
    "match_end": ("reason",),
}
"""Payload fields each event type must carry (besides the envelope ``v``, ``match``, ``seq``, ``type``)."""

OPTIONAL: dict[str, tuple[str, ...]] = {
    "match_start": (
        "format", "event", "players", "start_levels", "duplicate", "start_state", "revision", "entry"
    ),
    "deal_start": ("hands", "leader"),
    "tribute": (),
    "anti_tribute": (),
    "return": (),
    "play": ("combo",),
    "pass": (),
    "report": (),
    "ruling": ("seat", "team", "points", "levels", "note"),
    "deal_end": ("levels",),
    "match_end": ("levels", "winner"),
}
"""Payload fields an event type may carry; ``format`` of ``match_start`` defaults to the ruleset's."""

EVENT_TYPES: frozenset[str] = frozenset(REQUIRED)


def normalise_level(value: Any) -> str | None:
    """A level string (``2``…``9``, ``T``, ``J``, ``Q``, ``K``, ``A``; ``10`` accepted for ``T``) or None."""
    if value == "10":
        return "T"
    return value if one_of(value, LEVEL_INDEX) else None


def parse_time(value: Any) -> datetime | None:
    """An RFC 3339 timestamp as an aware datetime; ``ValueError`` when it is not one."""
    if value is None:
        return None
    if not isinstance(value, str):
        raise ValueError("not a string")
    t = datetime.fromisoformat(value)
    if t.tzinfo is None:
        raise ValueError("no UTC offset")
    return t


def _err(ev: dict[str, Any], code: ErrorCode, message: str) -> ReplayError:
    seq = ev.get("seq")
    return ReplayError(seq if isinstance(seq, int) else None, code, message)


def _all_str(items: list[Any]) -> bool:
    """Whether every item is a string (``map`` keeps the loop in C: cards are checked per event)."""
    return all(map(isinstance, items, repeat(str)))


def one_of(value: Any, names: Collection[str]) -> bool:
    """Whether ``value`` is one of the strings ``names`` (a list or object is not, rather than a
    ``TypeError`` for being unhashable)."""
    return isinstance(value, str) and value in names


def _is_int(x: Any) -> bool:
    return isinstance(x, int) and not isinstance(x, bool)


def is_revision(x: Any) -> bool:
    """Whether ``x`` is a valid ``match_start.revision``: an integer ≥ 1 (docs/event-extensions.md)."""
    return _is_int(x) and x >= 1


def _seat_field(ev: dict[str, Any], name: str) -> str | None:
    return None if ev.get(name) in SEATS else f"`{name}` must be a seat E, N, W or S, got {ev.get(name)!r}"


def _card_field(ev: dict[str, Any], name: str) -> str | None:
    v = ev.get(name)
    return None if isinstance(v, str) else f"`{name}` must be a card string, got {v!r}"


def _levels_field(v: Any, name: str) -> str | None:
    if (
        not isinstance(v, dict)
        or not v
        or any(k not in TEAMS or normalise_level(x) is None for k, x in v.items())
    ):
        return f"`{name}` must map teams EW/NS to levels 2…A, got {v!r}"
    return None


def _check_match_start(ev: dict[str, Any]) -> str | None:
    if not isinstance(ev["rules"], str):
        return f"`rules` must be a ruleset id string, got {ev['rules']!r}"
    seats = ev["seats"]
    if (
        not isinstance(seats, dict)
        or set(seats) != set(SEATS)
        or not all(isinstance(p, str) for p in seats.values())
    ):
        return f"`seats` must map each of E, N, W, S to a player id string, got {seats!r}"
    fmt = ev.get("format")
    if fmt is not None:
        if not isinstance(fmt, dict) or not one_of(fmt.get("kind"), FORMAT_KINDS):
            return f"`format.kind` must be one of {sorted(FORMAT_KINDS)}, got {fmt!r}"
        for key in ("deals", "minutes"):
            x = fmt.get(key)
            if x is not None and not (_is_int(x) and x > 0):
                return f"`format.{key}` must be a positive integer, got {x!r}"
    for key in ("event", "players", "duplicate"):
        if ev.get(key) is not None and not isinstance(ev[key], dict):
            return f"`{key}` must be an object, got {ev[key]!r}"
    last_round = (ev.get("event") or {}).get("last_round")
    if last_round is not None and not isinstance(last_round, bool):
        return f"`event.last_round` must be true or false, got {last_round!r} (docs/event-extensions.md)"
    if "revision" in ev and not is_revision(ev["revision"]):
        return f"`revision` must be an integer ≥ 1 (a correction's number), got {ev['revision']!r}"
    if ev.get("start_levels") is not None:
        bad = _levels_field(ev["start_levels"], "start_levels")
        if bad:
            return bad
    if ev.get("start_state") is not None:
        if ev.get("start_levels") is not None:
            return "give the levels in `start_state.levels` only, not also in `start_levels`"
        return _check_start_state(ev["start_state"])
    return None


START_STATE_KEYS = frozenset({"levels", "declarers", "previous_order"})
"""Fields of ``match_start.start_state`` (docs/event-extensions.md)."""


def _check_start_state(state: Any) -> str | None:
    """``start_state``: the match as it stands before deal 1 (docs/event-extensions.md).

    ``levels`` (both teams) is required; ``declarers`` and ``previous_order`` (the previous deal's
    finishing order, 2–4 distinct seats as in ``deal_end.order``) are optional, and when both are
    given the declarers must be the previous 1st's team (rules.md §2).
    """
    if not isinstance(state, dict):
        return f"`start_state` must be an object, got {state!r}"
    unknown = sorted(set(state) - START_STATE_KEYS)
    if unknown:
        return f"`start_state` has unknown field(s) {', '.join(unknown)}; expected {sorted(START_STATE_KEYS)}"
    levels: Any = state.get("levels")
    bad = _levels_field(levels, "start_state.levels")
    if bad or set(levels) != set(TEAMS):
        return bad or f"`start_state.levels` must give the levels of both teams EW and NS, got {levels!r}"
    declarers = state.get("declarers")
    if declarers is not None and declarers not in TEAMS:
        return f"`start_state.declarers` must be EW, NS or null, got {declarers!r}"
    order = state.get("previous_order")
    if order is None:
        return None
    if (
        not isinstance(order, list)
        or not 2 <= len(order) <= 4
        or not all(s in SEATS for s in order)
        or len(set(order)) != len(order)
    ):
        return f"`start_state.previous_order` must be a list of 2 to 4 distinct seats, got {order!r}"
    if len(order) == 2 and TEAM[order[0]] != TEAM[order[1]]:
        return f"`start_state.previous_order` {order}: two seats only after a double win (rules.md §5.7)"
    if declarers is not None and TEAM[order[0]] != declarers:
        return (
            f"`start_state.declarers` {declarers} but the previous 1st is {order[0]} "
            f"of {TEAM[order[0]]}: the declarers are the previous 1st's team (rules.md §2)"
        )
    return None


def _check_deal_start(ev: dict[str, Any]) -> str | None:
    if not (_is_int(ev["deal"]) and ev["deal"] >= 1):
        return f"`deal` must be a deal number 1, 2, …, got {ev['deal']!r}"
    if normalise_level(ev["level"]) is None:
        return f"`level` must be a level 2…A, got {ev['level']!r}"
    if ev["declarers"] is not None and ev["declarers"] not in TEAMS:
        return f"`declarers` must be EW, NS or null, got {ev['declarers']!r}"
    hands = ev.get("hands", {})  # absent: a results-only deal (docs/event-extensions.md)
    if not isinstance(hands, dict) or not set(hands) <= set(SEATS):
        got = list(hands) if isinstance(hands, dict) else hands
        return f"`hands` must map seats E, N, W, S to card lists, got {got!r}"
    for seat, cards in hands.items():
        if not isinstance(cards, list) or not _all_str(cards):
            return f"`hands.{seat}` must be a list of card strings"
    if ev.get("leader") is not None:
        return _seat_field(ev, "leader")
    return None


def _check_transfer(ev: dict[str, Any]) -> str | None:
    return _seat_field(ev, "from") or _seat_field(ev, "to") or _card_field(ev, "card")


def _check_anti(ev: dict[str, Any]) -> str | None:
    seats = ev["seats"]
    if (
        not isinstance(seats, list)
        or not seats
        or not all(s in SEATS for s in seats)
        or len(set(seats)) != len(seats)
    ):
        return f"`seats` must be a non-empty list of distinct seats, got {seats!r}"
    return None


def _check_play(ev: dict[str, Any]) -> str | None:
    if ev["seat"] not in SEATS:
        return _seat_field(ev, "seat")
    cards = ev["cards"]
    if not isinstance(cards, list) or not cards or not _all_str(cards):
        return f"`cards` must be a non-empty list of card strings, got {cards!r}"
    combo = ev.get("combo")
    if combo is not None and not (
        isinstance(combo, dict) and isinstance(combo.get("type"), str) and isinstance(combo.get("rank"), str)
    ):
        return f"`combo` must be an object with string `type` and `rank`, got {combo!r}"
    return None


def _check_pass(ev: dict[str, Any]) -> str | None:
    return None if ev["seat"] in SEATS else _seat_field(ev, "seat")


def _check_report(ev: dict[str, Any]) -> str | None:
    bad = _seat_field(ev, "seat")
    if bad:
        return bad
    return (
        None
        if _is_int(ev["left"]) and ev["left"] >= 0
        else f"`left` must be a card count, got {ev['left']!r}"
    )


def _check_ruling(ev: dict[str, Any]) -> str | None:
    points = ev.get("points")
    if points is not None and not (
        isinstance(points, dict)
        and all(isinstance(v, int | float) and not isinstance(v, bool) for v in points.values())
    ):
        return f"`points` must map point kinds to numbers, got {points!r}"
    if ev.get("levels") is not None:
        return _levels_field(ev["levels"], "levels")
    if ev.get("note") is not None and not isinstance(ev["note"], str):
        return f"`note` must be a string, got {ev['note']!r}"
    return None


def _check_deal_end(ev: dict[str, Any]) -> str | None:
    order = ev["order"]
    if not isinstance(order, list) or not all(s in SEATS for s in order) or len(set(order)) != len(order):
        return f"`order` must be a list of distinct seats, got {order!r}"
    if ev.get("levels") is not None:
        return _levels_field(ev["levels"], "levels")
    return None


def _check_match_end(ev: dict[str, Any]) -> str | None:
    if not one_of(ev["reason"], END_REASONS):
        return f"`reason` must be one of {sorted(END_REASONS)}, got {ev['reason']!r}"
    if ev.get("winner") is not None and ev["winner"] not in TEAMS:
        return f"`winner` must be EW, NS or null, got {ev['winner']!r}"
    if ev.get("levels") is not None:
        return _levels_field(ev["levels"], "levels")
    return None


_CHECKS = {
    "match_start": _check_match_start,
    "deal_start": _check_deal_start,
    "tribute": _check_transfer,
    "return": _check_transfer,
    "anti_tribute": _check_anti,
    "play": _check_play,
    "pass": _check_pass,
    "report": _check_report,
    "ruling": _check_ruling,
    "deal_end": _check_deal_end,
    "match_end": _check_match_end,
}


def check_event(ev: dict[str, Any], *, check_time: bool = True) -> ReplayError | None:
    """The first envelope or field fault of one event (events.md), or None when well-formed.

    Ruling kinds and seats are checked by the replayer (``bad_ruling``), card validity too
    (``bad_deck`` in hands), because they have codes of their own. ``check_time=False`` skips
    parsing ``t`` for a caller that parses it anyway.
    """
    v = ev.get("v")
    if v != FORMAT_VERSION or v is True:
        return _err(ev, ErrorCode.UNSUPPORTED_VERSION, f"`v` must be {FORMAT_VERSION}, got {v!r}")
    kind = ev.get("type")
    if not isinstance(kind, str) or kind not in REQUIRED:
        return _err(
            ev, ErrorCode.UNKNOWN_TYPE, f"unknown event type {kind!r}; expected one of {sorted(REQUIRED)}"
        )
    required = REQUIRED[kind]
    for key in required:
        if key not in ev:
            missing = [k for k in required if k not in ev]
            return _err(ev, ErrorCode.MALFORMED_FIELD, f"{kind} lacks required field(s) {', '.join(missing)}")
    try:
        if check_time:
            parse_time(ev.get("t"))
    except ValueError:
        return _err(
            ev, ErrorCode.MALFORMED_FIELD, f"`t` must be an RFC 3339 time with offset, got {ev.get('t')!r}"
        )
    bad = _CHECKS[kind](ev)
    return None if bad is None else _err(ev, ErrorCode.MALFORMED_FIELD, f"{kind}: {bad}")
