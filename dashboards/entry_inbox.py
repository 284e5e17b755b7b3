"""Submitting entered results: one event file per match, put into the store's inbox atomically.

The entry page never writes tables: it appends v1 events to ``<store>/inbox/entry/`` (the path
from :class:`pipelines.storage.store.Store`), and the next ``gdan run`` ingests them like any log. A file
is written under a hidden temporary name (the ingest skips hidden files) and then linked to its
final name in one step, so the ingest never reads half a file, and an existing submission is
never overwritten (a correction is a new file with a new revision).

Nothing is written without a principal that may write that table (:func:`service.principals.may_write`,
checked against the accounts and tokens as stored at that moment), and every file carries the audit
record of :mod:`service.audit` on its ``match_start``: who, when, and the revision it replaces.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import orjson

from importers.jobs import file_name_problem
from pipelines.storage.store import Store
from service.audit import entry_record, stamped
from service.principals import Principal, Via, current, may_write
from service.tokens import consume

ENTRY_FOLDER = "entry"
"""The inbox sub-folder the entry page writes to."""


class AlreadySubmitted(FileExistsError):
    """The match (at this revision) was submitted before: its file is in the inbox."""


class NotAllowed(PermissionError):
    """The principal may not write this table's result (or nobody is logged in); says why."""


def submission_path(store: Path, match_id: str, revision: int = 1) -> Path:
    """Where the events of ``match_id`` at ``revision`` go: ``inbox/entry/<match>.jsonl``, a
    correction ``…<match>.rev<N>.jsonl``; ``ValueError`` for an id that is not a file name."""
    problem = file_name_problem(match_id)
    if problem is not None:
        raise ValueError(f"match id {match_id!r} cannot name a file: {problem}")
    suffix = "" if revision == 1 else f".rev{revision}"
    return Store(store).inbox / ENTRY_FOLDER / f"{match_id}{suffix}.jsonl"


def _refusal(store: Path, principal: Principal | None, start: dict[str, Any], now: datetime) -> str | None:
    """Why ``principal`` may not write the match that ``start`` opens, or None."""
    if principal is None:
        return "log in, or use the table's link or PIN, to submit results"
    live = current(store, principal, now)
    if live is None:
        return f"{principal.name} may no longer write results (account removed or token expired)"
    event = start.get("event") or {}
    where = (str(event.get("id")), event.get("stage"), event.get("round"), event.get("table"))
    if not may_write(live, *where):
        return f"{principal.name} may not write event {where[0]} round {where[2]} table {where[3]}"
    return None


def submit(
    store: Path,
    events: Sequence[dict[str, Any]],
    revision: int = 1,
    *,
    principal: Principal | None,
    now: datetime | None = None,
) -> Path:
    """Write one match's events, with the audit record of ``principal``, to the inbox; return the file.

    ``NotAllowed`` when ``principal`` is None or may not write that table; ``AlreadySubmitted``
    when that match and revision has a file already. A table token is spent by its submission."""
    now = now or datetime.now(UTC)
    refusal = _refusal(store, principal, events[0], now)
    if refusal is not None:
        raise NotAllowed(refusal)
    assert principal is not None
    match_id = str(events[0]["match"])
    target = submission_path(store, match_id, revision)
    previous = submission_path(store, match_id, revision - 1) if revision > 1 else None
    record = entry_record(
        principal, now, revision - 1 if revision > 1 else None,
        previous.name if previous is not None and previous.exists() else None,
    )
    events = stamped(events, record)
    target.parent.mkdir(parents=True, exist_ok=True)
    data = b"".join(orjson.dumps(ev) + b"\n" for ev in events)
    temp = target.with_name(f".{target.name}.{os.getpid()}.tmp")
    with open(temp, "wb") as out:
        out.write(data)
        out.flush()
        os.fsync(out.fileno())
    try:
        os.link(temp, target)
    except FileExistsError:
        raise AlreadySubmitted(f"{target.name} is in the inbox already") from None
    finally:
        temp.unlink()
    if principal.via is Via.TABLE_TOKEN and principal.grant is not None:
        consume(store, principal.grant.token_id, now)
    return target
