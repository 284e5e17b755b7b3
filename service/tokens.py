"""Table tokens: a link and a PIN per table that may enter only that table's result for one round.

:func:`issue_round_tokens` makes one token per table of a round (a URL-safe secret for the table's
link or QR code, and a short numeric PIN to type on a tablet); both are shown once. The store keeps
only their HMAC-SHA256 under the store's secret key (:func:`service.files.store_key`): the secret
has 192 bits, so a keyed hash is enough; a PIN has few digits, so a PIN's redemption is throttled
by the caller (:mod:`service.throttle`) and PINs are unique among a store's live tokens.

A token expires with its round: at its expiry time, once its table's result was submitted with it
(:func:`consume`), or once every table of its round is entered (``entered``).
Records live in ``<store>/service/tokens.json``, never in a table.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any
from urllib.parse import quote

from service.files import locked, read_document, store_key, write_document

FILE = "tokens.json"
TOKEN_BYTES = 24
PIN_DIGITS = 6
DEFAULT_VALIDITY = timedelta(hours=6)
"""How long a round's tokens live at most (a round of Guandan rarely takes more than two hours)."""


@dataclass(frozen=True)
class TableToken:
    """A table's token as issued: ``token`` and ``pin`` are the secrets, shown once, never stored.

    ``stage`` is ``""`` for an event without stages."""

    event_id: str
    stage: str
    round_no: int
    table: int
    token: str
    pin: str
    expires_at: datetime
    token_id: str = ""
    """The token's public id: what the audit records as who entered the result."""


@dataclass(frozen=True)
class TableGrant:
    """What a redeemed token may write: this table's result of this round, until ``expires_at``."""

    token_id: str
    event_id: str
    stage: str
    round_no: int
    table: int
    expires_at: datetime


def _digest(store: Path, secret: str) -> str:
    return hmac.new(store_key(store), secret.encode(), hashlib.sha256).hexdigest()


def _grant(token_id: str, record: dict[str, Any]) -> TableGrant:
    return TableGrant(token_id, record["event_id"], record["stage"], int(record["round_no"]),
                      int(record["table"]), datetime.fromisoformat(record["expires_at"]))


def _live(record: dict[str, Any], now: datetime) -> bool:
    return record.get("used_at") is None and datetime.fromisoformat(record["expires_at"]) > now


def issue_round_tokens(
    store: Path,
    event_id: str,
    stage: str,
    round_no: int,
    tables: Sequence[int],
    issued_by: str,
    valid_for: timedelta = DEFAULT_VALIDITY,
    now: datetime | None = None,
) -> list[TableToken]:
    """One new token per table of ``tables`` for round ``round_no`` of ``event_id`` (``stage``:
    ``""`` when the event has none). A table's earlier live token of that round is revoked (a
    reprinted slip replaces the old one)."""
    if round_no < 1 or not tables or any(t < 1 for t in tables):
        raise ValueError(f"round {round_no}, tables {list(tables)}: need a round ≥ 1 and tables ≥ 1")
    now = now or datetime.now(UTC)
    expires = now + valid_for
    issued = []
    with locked(store):
        records = read_document(store, FILE)
        live_pins = {r["pin_hash"] for r in records.values() if _live(r, now)}
        for record in records.values():
            same = (record["event_id"], record["stage"], record["round_no"]) == (event_id, stage, round_no)
            if same and record["table"] in tables and _live(record, now):
                record["used_at"] = now.isoformat()
                record["revoked"] = True
        for table in tables:
            token_id = f"tok-{secrets.token_hex(4)}"
            while token_id in records:
                token_id = f"tok-{secrets.token_hex(4)}"
            token = secrets.token_urlsafe(TOKEN_BYTES)
            pin = f"{secrets.randbelow(10**PIN_DIGITS):0{PIN_DIGITS}d}"
            while _digest(store, pin) in live_pins:
                pin = f"{secrets.randbelow(10**PIN_DIGITS):0{PIN_DIGITS}d}"
            live_pins.add(_digest(store, pin))
            records[token_id] = {
                "event_id": event_id, "stage": stage, "round_no": round_no, "table": int(table),
                "token_hash": _digest(store, token), "pin_hash": _digest(store, pin),
                "issued_by": issued_by, "issued_at": now.isoformat(), "expires_at": expires.isoformat(),
                "used_at": None,
            }
            issued.append(TableToken(event_id, stage, round_no, int(table), token, pin, expires, token_id))
        write_document(store, FILE, records)
    return issued


def entry_link(base_url: str, token: TableToken) -> str:
    """The table's entry address: ``<base_url>/entry?token=<secret>`` (for the slip's QR code)."""
    return f"{base_url.rstrip('/')}/entry?token={quote(token.token, safe='')}"


def _round_complete(
    records: dict[str, Any], grant: TableGrant, entered: Callable[[TableGrant], bool] | None
) -> bool:
    """Whether every table of the grant's round is entered (by a token or, per ``entered``, anyhow)."""
    mates = [
        _grant(i, r) for i, r in records.items()
        if (r["event_id"], r["stage"], r["round_no"]) == (grant.event_id, grant.stage, grant.round_no)
        and not r.get("revoked")
    ]
    return all(
        records[m.token_id].get("used_at") is not None or (entered is not None and entered(m)) for m in mates
    )


def redeem(
    store: Path,
    token_or_pin: str,
    *,
    now: datetime,
    entered: Callable[[TableGrant], bool] | None = None,
) -> TableGrant | None:
    """The grant of the live token whose secret or PIN is ``token_or_pin``, or None.

    None as well when the token expired, was used (its table submitted), or its round is complete.
    ``entered(grant)`` says whether the grant's table is entered already by other means (a referee);
    such a table's token is spent too. Count a None against the client (:mod:`service.throttle`)."""
    digest = _digest(store, token_or_pin.strip())
    records = read_document(store, FILE)
    for token_id, record in records.items():
        hashes = (record["token_hash"], record["pin_hash"])
        if any(hmac.compare_digest(h, digest) for h in hashes):
            return grant_of(store, token_id, now=now, entered=entered, records=records)
    return None


def grant_of(
    store: Path,
    token_id: str,
    *,
    now: datetime,
    entered: Callable[[TableGrant], bool] | None = None,
    records: dict[str, Any] | None = None,
) -> TableGrant | None:
    """The grant of token ``token_id`` if it is still live at ``now`` (as :func:`redeem`), else None."""
    records = read_document(store, FILE) if records is None else records
    record = records.get(token_id)
    if record is None or not _live(record, now):
        return None
    grant = _grant(token_id, record)
    if (entered is not None and entered(grant)) or _round_complete(records, grant, entered):
        return None
    return grant


def consume(store: Path, token_id: str, now: datetime) -> None:
    """Mark token ``token_id`` used: its table's result was submitted; it may write nothing more."""
    with locked(store):
        records = read_document(store, FILE)
        if token_id in records and records[token_id].get("used_at") is None:
            records[token_id]["used_at"] = now.astimezone(UTC).isoformat()
            write_document(store, FILE, records)
