"""Who is acting: a logged-in account or a redeemed table token, and what each may write.

The dashboards keep a :class:`Principal` in the session; :func:`may_write` is the single answer to
"may this principal enter this table's result", used both to show the entry page and, again, when a
result is submitted (``dashboards.entry_inbox.submit``), against the accounts and tokens as stored
at that moment (a removed account or a spent token can no longer write).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from enum import StrEnum
from pathlib import Path

from service.accounts import Account, Role, get_account
from service.tokens import TableGrant, grant_of


class Via(StrEnum):
    """How a principal proved who it is."""

    ACCOUNT = "account"
    TABLE_TOKEN = "table_token"
    ANONYMOUS = "anonymous"
    """Nobody logged in, on a server started to allow that (loopback without accounts, or
    ``gdan dashboard --allow-anonymous-writes``)."""


@dataclass(frozen=True)
class Principal:
    """An account (``account``), a table token (``grant``) or, when the server allows anonymous
    writes, nobody (``anonymous``), authenticated at ``since`` (UTC)."""

    since: datetime
    account: Account | None = None
    grant: TableGrant | None = None
    anonymous: bool = False

    @property
    def via(self) -> Via:
        if self.anonymous:
            return Via.ANONYMOUS
        return Via.ACCOUNT if self.account is not None else Via.TABLE_TOKEN

    @property
    def name(self) -> str:
        """The account's name or the token's public id (never its secret): who the audit records."""
        if self.account is not None:
            return self.account.name
        if self.anonymous:
            return Via.ANONYMOUS.value
        assert self.grant is not None
        return self.grant.token_id

    @property
    def role(self) -> Role | None:
        return self.account.role if self.account is not None else None

    def may_enter_results(self) -> bool:
        """Whether this principal may open the entry page at all (a referee, an admin, a table)."""
        return self.anonymous or self.grant is not None or (
            self.account is not None and self.account.role is not Role.VIEWER
        )

    def may_manage(self) -> bool:
        """Whether this principal may manage events and accounts (an admin)."""
        return self.account is not None and self.account.role is Role.ADMIN


def for_account(account: Account, since: datetime) -> Principal:
    return Principal(since=since, account=account)


def for_grant(grant: TableGrant, since: datetime) -> Principal:
    return Principal(since=since, grant=grant)


def may_write(principal: Principal, event_id: str, stage: str | None, round_no: int | None,
              table: int | str | None) -> bool:
    """Whether ``principal`` may write the result of that table (as the principal was authenticated).

    An admin: any; a referee: the events assigned; a table token: exactly its event, stage, round and
    table; anonymous (where the server allows it): any."""
    if principal.anonymous:
        return True
    if principal.account is not None:
        return principal.account.may_write(event_id)
    grant = principal.grant
    if grant is None or round_no is None or table is None:
        return False
    return (grant.event_id, grant.stage, grant.round_no, str(grant.table)) == (
        event_id, stage or "", int(round_no), str(table)
    )


def current(store: Path, principal: Principal, now: datetime) -> Principal | None:
    """``principal`` with its rights as stored at ``now``: None when its account was removed or
    its token is no longer live. Called again before every write."""
    if principal.anonymous:
        return principal
    if principal.account is not None:
        account = get_account(store, principal.account.name)
        return None if account is None else Principal(principal.since, account=account)
    if principal.grant is None:
        return None
    grant = grant_of(store, principal.grant.token_id, now=now)
    return None if grant is None else Principal(principal.since, grant=grant)
