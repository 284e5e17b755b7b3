"""Opponents' confirmation: a table's result waits until the other pair confirms it.

For an event whose registry says ``confirmation`` (:mod:`service.registry`), a submitted table is
held in ``<store>/service/pending/<match>[.rev<N>].json`` instead of the inbox. The other pair
confirms it on the tablet, and only then is it delivered (the caller's ``deliver``: the entry
page's inbox submit, unchanged), or disputes it, which puts it in the referee's queue; the
referee accepts it as entered or replaces it by a corrected entry. Whatever finally lands
carries the story in ``match_start.confirmation`` (docs/event-extensions.md): who entered it and
when, who confirmed or disputed and when, and who resolved a dispute.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, TypeVar

from service.files import read_json, service_dir, update_json
from service.registry import Stamp, now

PENDING_FOLDER = "pending"
ENTERING_SIDE, CONFIRMING_SIDE = "NS", "EW"
"""N–S enter a table's result and E–W confirm it (the convention of table scoring devices)."""

T = TypeVar("T")


class AlreadyPending(FileExistsError):
    """The match (at this revision) is waiting for confirmation already."""


class NotPending(LookupError):
    """No result of this match (at this revision) is waiting."""


@dataclass(frozen=True, slots=True)
class Pending:
    """A table's result waiting for the other pair, or (``disputed``) for the referee."""

    events: tuple[dict[str, Any], ...]
    revision: int
    entered: Stamp
    disputed: Stamp | None = None
    reason: str | None = None
    """Why the other pair disputes the result, as they typed it."""

    @property
    def match(self) -> str:
        """The match id."""
        return str(self.events[0]["match"])

    @property
    def event(self) -> str | None:
        """The event id of the match (None when it names none)."""
        info = self.events[0].get("event") or {}
        return info.get("id")


def pending_path(store: Path, match: str, revision: int = 1) -> Path:
    """Where a held result of ``match`` at ``revision`` waits."""
    suffix = "" if revision == 1 else f".rev{revision}"
    return service_dir(store, PENDING_FOLDER, f"{match}{suffix}.json")


def hold(store: Path, events: Sequence[dict[str, Any]], revision: int, by: str) -> Pending:
    """Hold a submitted table's events until the other pair confirms them; :class:`AlreadyPending`
    when that match and revision waits already."""
    held = Pending(tuple(events), revision, Stamp(by, now()))

    def add(current: Any) -> dict[str, Any]:
        if current is not None:
            raise AlreadyPending(f"{held.match} (revision {revision}) waits for confirmation already")
        return _json(held)

    return _pending(update_json(pending_path(store, held.match, revision), add))


def load(store: Path, match: str, revision: int = 1) -> Pending | None:
    """The held result of ``match`` at ``revision``, or None."""
    data = read_json(pending_path(store, match, revision))
    return None if data is None else _pending(data)


def waiting(store: Path, event: str | None = None, disputed: bool | None = None) -> list[Pending]:
    """Held results (of ``event``; only disputed ones, the referee's queue, with ``disputed``)."""
    folder = service_dir(store, PENDING_FOLDER)
    found = [_pending(read_json(p)) for p in sorted(folder.glob("*.json"))] if folder.is_dir() else []
    return [
        p
        for p in found
        if (event is None or p.event == event) and (disputed is None or (p.disputed is not None) == disputed)
    ]


def dispute(store: Path, match: str, revision: int, by: str, reason: str = "") -> Pending:
    """The other pair disputes the result: it goes to the referee's queue."""

    def mark(held: Pending) -> Pending:
        return replace(held, disputed=Stamp(by, now()), reason=reason.strip() or None)

    return _change(store, match, revision, mark)


def confirm(
    store: Path, match: str, revision: int, by: str, deliver: Callable[[list[dict[str, Any]]], T]
) -> T:
    """The other pair confirms: ``deliver`` the events with the confirmation recorded, then
    forget the held copy. A disputed result is the referee's (:func:`resolve`)."""
    held = _held(store, match, revision)
    if held.disputed is not None:
        raise NotPending(f"{match} is disputed: the referee decides it")
    record = {"entered": _stamp(held.entered), "confirmed": _stamp(Stamp(by, now()))}
    return _deliver(store, held, held.events, record, deliver)


def resolve(
    store: Path,
    match: str,
    revision: int,
    by: str,
    deliver: Callable[[list[dict[str, Any]]], T],
    corrected: Sequence[dict[str, Any]] | None = None,
) -> T:
    """The referee decides a held result: accepted as entered, or replaced by ``corrected`` (the
    same match re-entered); ``deliver`` the result with the whole story recorded."""
    held = _held(store, match, revision)
    if corrected is not None and str(corrected[0]["match"]) != held.match:
        got = corrected[0]["match"]
        raise ValueError(f"a correction of {held.match} must keep its match id, got {got!r}")
    record: dict[str, Any] = {"entered": _stamp(held.entered)}
    if held.disputed is not None:
        record["disputed"] = {**_stamp(held.disputed), "reason": held.reason}
    record["resolved"] = {**_stamp(Stamp(by, now())), "corrected": corrected is not None}
    return _deliver(store, held, corrected or held.events, record, deliver)


def _deliver(
    store: Path,
    held: Pending,
    events: Sequence[dict[str, Any]],
    record: dict[str, Any],
    deliver: Callable[[list[dict[str, Any]]], T],
) -> T:
    """Deliver the events with ``match_start.confirmation = record``; the held copy is removed
    only once delivered, so a failed delivery leaves it waiting."""
    start = {**events[0], "confirmation": record}
    result = deliver([start, *(dict(e) for e in events[1:])])
    pending_path(store, held.match, held.revision).unlink(missing_ok=True)
    return result


def _held(store: Path, match: str, revision: int) -> Pending:
    held = load(store, match, revision)
    if held is None:
        raise NotPending(f"no result of {match} (revision {revision}) waits for confirmation")
    return held


def _change(store: Path, match: str, revision: int, change: Callable[[Pending], Pending]) -> Pending:
    def apply(current: Any) -> dict[str, Any]:
        if current is None:
            raise NotPending(f"no result of {match} (revision {revision}) waits for confirmation")
        return _json(change(_pending(current)))

    return _pending(update_json(pending_path(store, match, revision), apply))


def _stamp(stamp: Stamp) -> dict[str, str]:
    return {"by": stamp.by, "at": stamp.at}


def _json(held: Pending) -> dict[str, Any]:
    return {
        "events": list(held.events),
        "revision": held.revision,
        "entered": _stamp(held.entered),
        "disputed": None if held.disputed is None else _stamp(held.disputed),
        "reason": held.reason,
    }


def _pending(data: dict[str, Any]) -> Pending:
    disputed = data.get("disputed")
    return Pending(
        tuple(data["events"]),
        int(data["revision"]),
        Stamp(**data["entered"]),
        None if disputed is None else Stamp(**disputed),
        data.get("reason"),
    )
