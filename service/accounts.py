"""Accounts of the results service: a name, a role, an argon2 password hash, assigned events.

Roles (least privilege first): a *viewer* reads the pages; a *referee* enters and corrects results
of the events assigned to them; an *admin* may do everything, including managing accounts. The
accounts are one private file, ``<store>/service/accounts.json`` (:mod:`service.files`), never a
table; a password is kept only as its argon2id hash (``argon2-cffi``), never in clear.

The file also holds the store's setting :func:`pages_public`: whether a visitor who is not logged
in may read the pages (the standings) at all.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path
from typing import Any

from argon2 import PasswordHasher
from argon2.exceptions import InvalidHashError, VerificationError

from service.files import locked, read_document, write_document

FILE = "accounts.json"
MIN_PASSWORD = 8
"""The shortest password an account may have."""

_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.@-]{0,63}$")
_HASHER = PasswordHasher()
_DUMMY_HASH = _HASHER.hash("not an account")
"""Verified against for an unknown name, so a wrong name costs as long as a wrong password."""


class Role(StrEnum):
    """What an account may do: read (viewer), enter its events' results (referee), everything (admin)."""

    VIEWER = "viewer"
    REFEREE = "referee"
    ADMIN = "admin"


class AccountError(ValueError):
    """A request the accounts refuse (unknown or existing name, short password…); says why."""


@dataclass(frozen=True)
class Account:
    """An account as the service sees it (without its hash)."""

    name: str
    role: Role
    events: frozenset[str] = frozenset()

    def may_write(self, event_id: str) -> bool:
        """Whether this account may enter and correct results of ``event_id``."""
        return self.role is Role.ADMIN or (self.role is Role.REFEREE and event_id in self.events)


def name_problem(name: str) -> str | None:
    """Why ``name`` cannot name an account, or None: 1–64 letters, digits, ``_ . @ -``."""
    if _NAME.match(name):
        return None
    return (f"account name {name!r}: use 1 to 64 letters, digits, '_', '.', '@' or '-' "
            "(starting with a letter or digit)")


def password_problem(password: str) -> str | None:
    """Why ``password`` is refused, or None: at least :data:`MIN_PASSWORD` characters."""
    if len(password) < MIN_PASSWORD:
        return f"a password needs at least {MIN_PASSWORD} characters"
    return None


def _records(store: Path) -> dict[str, dict[str, Any]]:
    return dict(read_document(store, FILE).get("accounts", {}))


def _account(name: str, record: dict[str, Any]) -> Account:
    return Account(name, Role(record["role"]), frozenset(record.get("events", ())))


def list_accounts(store: Path) -> list[Account]:
    """Every account, by name."""
    return [_account(n, r) for n, r in sorted(_records(store).items())]


def get_account(store: Path, name: str) -> Account | None:
    """The account ``name`` as stored now, or None (removed, never created)."""
    record = _records(store).get(name)
    return None if record is None else _account(name, record)


def has_admin(store: Path) -> bool:
    """Whether the store has an admin account (the dashboards may then be exposed)."""
    return any(a.role is Role.ADMIN for a in list_accounts(store))


def _update(store: Path, name: str, change: str, *, create: bool = False,
            **fields: Any) -> Account:
    """Apply ``fields`` to account ``name`` under the lock; ``change`` names what for errors."""
    with locked(store):
        document = read_document(store, FILE)
        records = document.setdefault("accounts", {})
        if create and name in records:
            raise AccountError(f"cannot {change}: account {name!r} exists already")
        if not create and name not in records:
            raise AccountError(f"cannot {change}: no account {name!r}")
        record = records.setdefault(name, {})
        for key, value in fields.items():
            if value is None:
                record.pop(key, None)
            else:
                record[key] = value
        write_document(store, FILE, document)
        return _account(name, record)


def add_account(store: Path, name: str, password: str, role: Role = Role.VIEWER) -> Account:
    """Create account ``name`` with ``role``; its password is stored as an argon2 hash only."""
    problem = name_problem(name) or password_problem(password)
    if problem:
        raise AccountError(problem)
    return _update(store, name, "add", create=True, role=role.value, hash=_HASHER.hash(password), events=[])


def remove_account(store: Path, name: str) -> None:
    """Delete account ``name`` (its open sessions can no longer write: writes re-check the account)."""
    with locked(store):
        document = read_document(store, FILE)
        if name not in document.get("accounts", {}):
            raise AccountError(f"cannot remove: no account {name!r}")
        del document["accounts"][name]
        write_document(store, FILE, document)


def set_password(store: Path, name: str, password: str) -> Account:
    """Replace the password of ``name``."""
    problem = password_problem(password)
    if problem:
        raise AccountError(problem)
    return _update(store, name, "change the password", hash=_HASHER.hash(password))


def set_role(store: Path, name: str, role: Role) -> Account:
    """Give ``name`` the role ``role`` (its assigned events are kept)."""
    return _update(store, name, "change the role", role=role.value)


def assign(store: Path, name: str, events: Iterable[str], assigned: bool = True) -> Account:
    """Assign (or with ``assigned=False`` unassign) ``events`` to the referee ``name``."""
    current = get_account(store, name)
    if current is None:
        raise AccountError(f"cannot assign events: no account {name!r}")
    if assigned and current.role is Role.VIEWER:
        raise AccountError(f"{name!r} is a viewer: give it the role referee first (`gdan users role`)")
    changed = current.events | set(events) if assigned else current.events - set(events)
    return _update(store, name, "assign events", events=sorted(changed))


def verify(store: Path, name: str, password: str) -> Account | None:
    """The account when ``password`` is the password of ``name``; None otherwise (unknown name too).

    Rehashes a hash made with older argon2 parameters. Throttling failures is the caller's job
    (:mod:`service.throttle`)."""
    record = _records(store).get(name)
    try:
        _HASHER.verify(record["hash"] if record else _DUMMY_HASH, password)
    except (VerificationError, InvalidHashError):
        return None
    if record is None:
        return None
    if _HASHER.check_needs_rehash(record["hash"]):
        _update(store, name, "rehash", hash=_HASHER.hash(password))
    return _account(name, record)


def pages_public(store: Path) -> bool:
    """Whether visitors who are not logged in may read the pages (default: yes)."""
    return bool(read_document(store, FILE).get("pages_public", True))


def set_pages_public(store: Path, public: bool) -> None:
    """Set :func:`pages_public`."""
    with locked(store):
        document = read_document(store, FILE)
        document["pages_public"] = public
        write_document(store, FILE, document)
