"""The audit record of a submission, written into the match's own ``match_start`` event.

Every result entered in the browser says who entered it (an account's name or a table token's
public id, never a secret; ``anonymous`` where the server allows that), how (``account``,
``table_token`` or ``anonymous``), when (UTC) and what it replaces
(the revision, and the inbox file of that revision when the entry page wrote it): the field
``match_start.entry`` (docs/event-extensions.md). The log stays the single source of truth: the
record travels with the events into ``raw_events`` and is never rewritten.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime
from typing import Any

from service.principals import Principal

FIELD = "entry"
"""The ``match_start`` field of the audit record."""


def entry_record(principal: Principal, at: datetime, replaces: int | None,
                 replaces_file: str | None) -> dict[str, Any]:
    """The audit record: ``by``, ``via``, ``at`` (ISO 8601 UTC, ``Z``), ``replaces`` (the revision
    superseded, null for a first submission) and ``replaces_file`` (that revision's file, if known)."""
    return {
        "by": principal.name,
        "via": principal.via.value,
        "at": at.astimezone(UTC).isoformat(timespec="seconds").replace("+00:00", "Z"),
        "replaces": replaces,
        "replaces_file": replaces_file,
    }


def stamped(events: Sequence[dict[str, Any]], record: dict[str, Any]) -> list[dict[str, Any]]:
    """``events`` with ``record`` as the ``entry`` of their ``match_start`` (which must come first)."""
    if not events or events[0].get("type") != "match_start":
        raise ValueError("a submission starts with its match_start event")
    return [{**events[0], FIELD: record}, *events[1:]]
