"""Throttling failed logins and PINs, per account and per client, kept in the store.

Each failure is recorded under keys such as ``account:alice`` and ``client:10.0.0.7``; a key with
:data:`MAX_FAILURES` failures within :data:`WINDOW` is blocked until the oldest of them leaves the
window. The counts live in ``<store>/service/throttle.json`` (not in a browser session), so a new
tab, another browser or a restarted server does not reset them. A success clears the account's key,
not the client's (a client that guessed one password keeps its other failures).
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import UTC, datetime, timedelta
from pathlib import Path

from service.files import locked, read_document, write_document

FILE = "throttle.json"
MAX_FAILURES = 5
"""Failures of one key within :data:`WINDOW` that block it."""
WINDOW = timedelta(minutes=15)


def account_key(name: str) -> str:
    return f"account:{name}"


def client_key(client: str) -> str:
    return f"client:{client}"


def _recent(stamps: Iterable[str], now: datetime) -> list[datetime]:
    return sorted(t for t in map(datetime.fromisoformat, stamps) if now - WINDOW < t <= now)


def blocked_until(store: Path, keys: Iterable[str], now: datetime) -> datetime | None:
    """Until when any of ``keys`` is blocked at ``now`` (UTC), or None when none is."""
    failures = read_document(store, FILE)
    ends = []
    for key in keys:
        recent = _recent(failures.get(key, ()), now)
        if len(recent) >= MAX_FAILURES:
            ends.append(recent[-MAX_FAILURES] + WINDOW)
    return max(ends, default=None)


def record_failure(store: Path, keys: Iterable[str], now: datetime) -> None:
    """Count one failure at ``now`` against each of ``keys`` (older failures are forgotten)."""
    with locked(store):
        failures = read_document(store, FILE)
        for key in keys:
            kept = _recent(failures.get(key, ()), now)[-MAX_FAILURES:]
            failures[key] = [t.isoformat() for t in [*kept, now.astimezone(UTC)]]
        for key in [k for k, v in failures.items() if not _recent(v, now)]:
            del failures[key]
        write_document(store, FILE, failures)


def clear(store: Path, keys: Iterable[str]) -> None:
    """Forget the failures of ``keys`` (after a success)."""
    with locked(store):
        failures = read_document(store, FILE)
        for key in keys:
            failures.pop(key, None)
        write_document(store, FILE, failures)
