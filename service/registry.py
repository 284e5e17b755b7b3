"""The event registry: the events of an event day before and while their results come in.

Per event: its id, name, ruleset and round format, whether the opponents confirm each table's
result (:mod:`service.confirmation`), whether it is a duplicate (複式) event, the registered
pairs (players with names and clubs) and their check-in, and per round the tables as drawn (a
duplicate round's with the board and room of each table); and per event (registered or only in the
store) the overrides of the missing-results rule: who paired a round anyway, when, and which
tables had no result.

Kept as one JSON file per event, ``<store>/service/events/<event id>.json`` (atomic, locked:
:mod:`service.files`), not as events in the inbox: registrations, check-in and draws are the
day's working state and change (a late pair, a check-in), while the hand logs record what was
played; the pipeline reads neither kind of change. What the results need reaches the log with
each submitted match (``match_start.players`` carries the registered names and clubs).
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from service.files import read_json, service_dir, update_json

EVENTS_FOLDER, OVERRIDES_FOLDER = "events", "overrides"


class EventExists(ValueError):
    """A new event whose id the registry or the store's matches already use."""


class UnknownEvent(LookupError):
    """An event id the registry does not hold."""


class RegistrationRefused(ValueError):
    """A pair that cannot be registered (a player already in another pair of the event)."""


@dataclass(frozen=True, slots=True)
class Player:
    """A registered player: id, and the name and club the results carry."""

    id: str
    name: str | None = None
    club: str | None = None


@dataclass(frozen=True, slots=True)
class Stamp:
    """Who did something (an account, a table token, a pair) and when (UTC, RFC 3339)."""

    by: str
    at: str


@dataclass(frozen=True, slots=True)
class Pair:
    """A registered pair and its check-in (None: not checked in)."""

    players: tuple[Player, Player]
    checked_in: Stamp | None = None

    @property
    def ids(self) -> tuple[str, str]:
        """Both players' ids."""
        return self.players[0].id, self.players[1].id


@dataclass(frozen=True, slots=True)
class Override:
    """A round paired although the round before had tables without a result."""

    round: int
    """The round paired."""
    stamp: Stamp
    missing_tables: tuple[str, ...]
    """The drawn tables of the round before with no result (empty when the draw is unknown)."""
    missing_teams: tuple[str, ...]
    """The teams of the round before with no result."""


@dataclass(frozen=True, slots=True)
class Draw:
    """The tables of a round as drawn: per table, the player at each seat; the pair with a bye;
    in a duplicate round, per table the board and room it plays (``board``, ``room``)."""

    tables: Mapping[str, Mapping[str, str]]
    bye: tuple[str, ...] | None = None
    rooms: Mapping[str, Mapping[str, str]] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class Event:
    """One registered event."""

    id: str
    name: str | None
    rules: str
    format: Mapping[str, Any]
    """The round format as a ``match_start.format`` (``kind``, ``deals``, ``minutes``)."""
    created: Stamp
    stage: str | None = None
    confirmation: bool = False
    """The other pair confirms each table's result before it counts."""
    duplicate: bool = False
    """A duplicate (複式) event (scoring.md §S9): each round's boards are played in two rooms."""
    pairs: tuple[Pair, ...] = ()
    rounds: Mapping[int, Draw] = field(default_factory=dict)

    @property
    def players(self) -> dict[str, Player]:
        """Every registered player by id."""
        return {p.id: p for pair in self.pairs for p in pair.players}

    @property
    def last_drawn(self) -> int:
        """The highest round with a draw (0: none)."""
        return max(self.rounds, default=0)


def now() -> str:
    """The current UTC time, RFC 3339, as the service stamps what it records."""
    return datetime.now(UTC).isoformat(timespec="seconds")


def event_path(store: Path, event_id: str) -> Path:
    """The registry file of ``event_id``; ``ValueError`` for an id that cannot name a file."""
    return service_dir(store, EVENTS_FOLDER, f"{event_id}.json")


def load(store: Path, event_id: str) -> Event | None:
    """The registered event ``event_id``, or None."""
    data = read_json(event_path(store, event_id))
    return None if data is None else _event(data)


def events(store: Path) -> list[Event]:
    """Every registered event, by id."""
    folder = service_dir(store, EVENTS_FOLDER)
    found = sorted(folder.glob("*.json")) if folder.is_dir() else []
    return [_event(read_json(p)) for p in found if not p.name.startswith(".")]


def create(store: Path, event: Event, in_store: Collection[str]) -> Event:
    """Register a new event; :class:`EventExists` when its id is registered already or names an
    event of the store's matches (``in_store``), so a new event never adds to another's results."""
    if event.id in in_store:
        raise EventExists(f"event id {event.id!r} is taken: the store has matches of that event")
    path = event_path(store, event.id)

    def add(current: Any) -> dict[str, Any]:
        if current is not None:
            raise EventExists(f"event id {event.id!r} is taken: it is registered already")
        return _json(event)

    return _event(update_json(path, add))


def register_pair(store: Path, event_id: str, players: tuple[Player, Player]) -> Event:
    """Add a pair to the event; :class:`RegistrationRefused` for a player in a registered pair."""

    def add(event: Event) -> Event:
        taken = [p.id for p in players if p.id in event.players]
        if taken or players[0].id == players[1].id:
            raise RegistrationRefused(
                f"player {(taken or [players[0].id])[0]!r} is in a registered pair of {event.id} already"
            )
        return replace(event, pairs=(*event.pairs, Pair(players)))

    return _change(store, event_id, add)


def check_in(store: Path, event_id: str, pair: int, by: str, checked_in: bool = True) -> Event:
    """Mark the event's pair number ``pair`` (0-based, registration order) checked in (or not)."""

    def mark(event: Event) -> Event:
        if not 0 <= pair < len(event.pairs):
            raise IndexError(f"event {event.id} has {len(event.pairs)} pairs, no pair {pair + 1}")
        pairs = list(event.pairs)
        pairs[pair] = replace(pairs[pair], checked_in=Stamp(by, now()) if checked_in else None)
        return replace(event, pairs=tuple(pairs))

    return _change(store, event_id, mark)


def set_confirmation(store: Path, event_id: str, on: bool) -> Event:
    """Whether the other pair confirms each table's result before it counts."""
    return _change(store, event_id, lambda event: replace(event, confirmation=on))


def record_draw(
    store: Path,
    event_id: str,
    round_no: int,
    tables: Mapping[str, Mapping[str, str]],
    bye: Sequence[str] | None,
    rooms: Mapping[str, Mapping[str, str]] | None = None,
) -> Draw:
    """Keep the tables of round ``round_no`` as drawn (``rooms``: a duplicate round's board and
    room per table), so that every table stays listed and enterable while others have results;
    a round drawn before keeps its first draw, which is returned."""

    def keep(event: Event) -> Event:
        if round_no in event.rounds:
            return event
        draw = Draw(
            {str(t): dict(s) for t, s in tables.items()},
            tuple(bye) if bye else None,
            {str(t): dict(r) for t, r in (rooms or {}).items()},
        )
        return replace(event, rounds={**event.rounds, round_no: draw})

    return _change(store, event_id, keep).rounds[round_no]


def record_override(
    store: Path,
    event_id: str,
    round_no: int,
    by: str,
    missing_tables: Sequence[str],
    missing_teams: Sequence[str],
) -> Override:
    """Record that round ``round_no`` was paired although the round before had no result for
    ``missing_tables`` / ``missing_teams``: who, when, which. Kept for registered events and for
    events only the store knows (``<store>/service/overrides/<event id>.json``), each override
    added to the ones before."""
    override = Override(round_no, Stamp(by, now()), tuple(missing_tables), tuple(missing_teams))
    entry = {
        "round": round_no,
        "stamp": {"by": by, "at": override.stamp.at},
        "missing_tables": list(missing_tables),
        "missing_teams": list(missing_teams),
    }
    update_json(_overrides_path(store, event_id), lambda current: [*(current or []), entry])
    return override


def overrides(store: Path, event_id: str) -> list[Override]:
    """The event's recorded pairing overrides, oldest first."""
    found = read_json(_overrides_path(store, event_id)) or []
    return [
        Override(o["round"], Stamp(**o["stamp"]), tuple(o["missing_tables"]), tuple(o["missing_teams"]))
        for o in found
    ]


def _overrides_path(store: Path, event_id: str) -> Path:
    return service_dir(store, OVERRIDES_FOLDER, f"{event_id}.json")


def _change(store: Path, event_id: str, change: Any) -> Event:
    """Apply ``change`` (Event → Event) to the registered event under its lock."""

    def apply(current: Any) -> dict[str, Any]:
        if current is None:
            raise UnknownEvent(f"event {event_id!r} is not registered")
        return _json(change(_event(current)))

    return _event(update_json(event_path(store, event_id), apply))


def _stamp(data: Any) -> Stamp | None:
    return None if data is None else Stamp(data["by"], data["at"])


def _event(data: dict[str, Any]) -> Event:
    rounds = {}
    for number, draw in data.get("rounds", {}).items():
        rounds[int(number)] = Draw(
            draw["tables"], tuple(draw["bye"]) if draw.get("bye") else None, draw.get("rooms") or {}
        )
    pairs = tuple(
        Pair(
            (Player(**p["players"][0]), Player(**p["players"][1])),
            _stamp(p.get("checked_in")),
        )
        for p in data.get("pairs", [])
    )
    return Event(
        data["id"],
        data.get("name"),
        data["rules"],
        data["format"],
        Stamp(**data["created"]),
        data.get("stage"),
        bool(data.get("confirmation", False)),
        bool(data.get("duplicate", False)),
        pairs,
        rounds,
    )


def _json(event: Event) -> dict[str, Any]:
    def stamp(s: Stamp | None) -> dict[str, str] | None:
        return None if s is None else {"by": s.by, "at": s.at}

    return {
        "id": event.id,
        "name": event.name,
        "rules": event.rules,
        "format": dict(event.format),
        "created": stamp(event.created),
        "stage": event.stage,
        "confirmation": event.confirmation,
        "duplicate": event.duplicate,
        "pairs": [
            {
                "players": [{"id": p.id, "name": p.name, "club": p.club} for p in pair.players],
                "checked_in": stamp(pair.checked_in),
            }
            for pair in event.pairs
        ],
        "rounds": {
            str(number): {
                "tables": {t: dict(s) for t, s in draw.tables.items()},
                "bye": list(draw.bye) if draw.bye else None,
                **({"rooms": {t: dict(r) for t, r in draw.rooms.items()}} if draw.rooms else {}),
            }
            for number, draw in sorted(event.rounds.items())
        },
    }
