"""Who is using the dashboards: the login form, table tokens (``?token=`` or a typed PIN), logout.

The session holds a :class:`service.principals.Principal` and the time it was last active; after
``$GDAN_SESSION_IDLE_MINUTES`` (default 30) without a page run the session is dropped and the user
logs in again. Every run re-checks the principal against the store (a removed account or a spent
token stops at once). Failed logins and PINs are throttled per account and per client in the
store (:mod:`service.throttle`), so a new tab starts no fresh count.
"""

from __future__ import annotations

import os
from datetime import UTC, datetime, timedelta
from pathlib import Path

import streamlit as st

from dashboards.entry_inbox import submission_path
from dashboards.ui import current_store, tr
from importers.scoresheet import default_match_id
from service import accounts, throttle
from service.principals import Principal, current, for_account, for_grant, may_write
from service.tokens import TableGrant, redeem

PRINCIPAL = "access_principal"
SEEN = "access_seen"
NOTICE = "access_notice"
GO_TO_ENTRY = "access_go_to_entry"
DEFAULT_IDLE_MINUTES = 30.0


def idle_timeout() -> timedelta:
    """How long a session may stay idle: ``$GDAN_SESSION_IDLE_MINUTES`` (default 30)."""
    return timedelta(minutes=float(os.environ.get("GDAN_SESSION_IDLE_MINUTES", DEFAULT_IDLE_MINUTES)))


def is_idle(seen: datetime, now: datetime, timeout: timedelta) -> bool:
    """Whether a session last active at ``seen`` has expired at ``now`` (idle for ``timeout`` or more)."""
    return now - seen >= timeout


def _store() -> Path:
    return Path(current_store())


def _client() -> str:
    """The client's address as Streamlit sees it (``local`` for a loopback connection)."""
    return st.context.ip_address or "local"


def _entered(grant: TableGrant) -> bool:
    """Whether the grant's table was submitted from the entry page already (its file is in the inbox)."""
    match = default_match_id(grant.event_id, grant.stage or None, grant.round_no, str(grant.table))
    return submission_path(_store(), match).exists()


def _drop(notice: str | None) -> None:
    st.session_state.pop(PRINCIPAL, None)
    st.session_state.pop(SEEN, None)
    if notice:
        st.session_state[NOTICE] = notice


def anonymous_writes() -> bool:
    """Whether this server lets visitors enter results without a login: ``$GDAN_ANONYMOUS_WRITES``
    is ``1``, which `gdan dashboard` sets on loopback without accounts or with
    ``--allow-anonymous-writes`` (default: no)."""
    return os.environ.get("GDAN_ANONYMOUS_WRITES") == "1"


def read_only() -> bool:
    """Whether this server only reads (``$GDAN_READ_ONLY`` is ``1``: `gdan dashboard` over an
    ``s3://`` store, whose copy here is replaced by every pull): nobody logs in or enters results."""
    return os.environ.get("GDAN_READ_ONLY") == "1"


def principal() -> Principal | None:
    """The principal of this session, as the store allows it now; None when nobody is logged in
    (or the session has been idle too long, or the account or token is gone), unless the server
    allows anonymous writes (an anonymous principal)."""
    if read_only():
        return None
    who: Principal | None = st.session_state.get(PRINCIPAL)
    if who is None:
        return Principal(datetime.now(UTC), anonymous=True) if anonymous_writes() else None
    now = datetime.now(UTC)
    if is_idle(st.session_state[SEEN], now, idle_timeout()):
        _drop("access_expired")
        return None
    live = current(_store(), who, now)
    if live is None:
        _drop("access_revoked")
        return None
    st.session_state[SEEN] = now
    return live


def _start(who: Principal) -> None:
    st.session_state[PRINCIPAL] = who
    st.session_state[SEEN] = who.since


def _blocked(keys: list[str], now: datetime) -> bool:
    """Show the throttle's message and return True when one of ``keys`` is blocked."""
    until = throttle.blocked_until(_store(), keys, now)
    if until is not None:
        st.error(tr("access_throttled").format(until=until.strftime("%H:%M UTC")))
    return until is not None


def _log_in(name: str, password: str) -> None:
    store, now = _store(), datetime.now(UTC)
    keys = [throttle.account_key(name), throttle.client_key(_client())]
    if _blocked(keys, now):
        return
    account = accounts.verify(store, name, password)
    if account is None:
        throttle.record_failure(store, keys, now)
        st.error(tr("access_login_failed"))
        return
    throttle.clear(store, keys[:1])
    _start(for_account(account, now))
    st.rerun()


def _use_token(secret: str) -> bool:
    """Redeem a table's token or PIN for this session; True when it grants a table."""
    store, now = _store(), datetime.now(UTC)
    keys = [throttle.client_key(_client())]
    if _blocked(keys, now):
        return False
    grant = redeem(store, secret, now=now, entered=_entered)
    if grant is None:
        throttle.record_failure(store, keys, now)
        st.error(tr("access_token_refused"))
        return False
    _start(for_grant(grant, now))
    return True


def _entry_address(grant: TableGrant) -> dict[str, str]:
    where = {"event": grant.event_id, "round": str(grant.round_no)}
    return {**where, "stage": grant.stage} if grant.stage else where


def token_from_address() -> None:
    """Redeem ``?token=`` of the address (a table's link or QR code) once per session.

    The token stays in the address, so a reloaded tablet (a new session) keeps its table; it can
    write nothing but that table's result and is spent by its submission."""
    secret = st.query_params.get("token")
    if not secret or read_only() or st.session_state.get(PRINCIPAL) is not None:
        return
    if _use_token(secret):
        who = st.session_state[PRINCIPAL]
        for key, value in _entry_address(who.grant).items():
            st.query_params[key] = value


def sidebar(who: Principal | None) -> None:
    """The sidebar's access controls: who is logged in and a logout button, or the login and PIN forms."""
    notice = st.session_state.pop(NOTICE, None)
    if notice:
        st.warning(tr(notice))
    if read_only():
        st.caption(tr("access_read_only"))
        return
    if who is not None and who.anonymous:
        st.caption(tr("access_anonymous"))
    elif who is not None:
        role = tr(f"role_{who.role.value}") if who.role is not None else tr("access_table_token")
        where = ""
        if who.grant is not None:
            grant = who.grant
            where = f" · {grant.event_id} · {tr('round')} {grant.round_no} · {tr('table')} {grant.table}"
        st.caption(f"{tr('access_signed_in')}: **{who.name}** ({role}){where}")
        if st.button(tr("access_logout"), key="access_logout"):
            _drop("access_logged_out")
            st.rerun()
        return
    with st.form("access_login", border=True):
        st.markdown(f"**{tr('access_login')}**")
        name = st.text_input(tr("access_account"), key="access_name", autocomplete="username")
        password = st.text_input(tr("access_password"), type="password", key="access_password",
                                 autocomplete="current-password")
        if st.form_submit_button(tr("access_login_button"), key="access_login_submit") and name:
            _log_in(name.strip(), password)
    with st.form("access_pin", border=True):
        pin = st.text_input(tr("access_pin"), key="access_pin_text", max_chars=12)
        pressed = st.form_submit_button(tr("access_pin_button"), key="access_pin_submit")
        if pressed and pin.strip() and _use_token(pin.strip()):
            st.session_state[GO_TO_ENTRY] = _entry_address(st.session_state[PRINCIPAL].grant)
            st.rerun()


def entry_address_due() -> dict[str, str] | None:
    """The entry page's address to open once, right after a PIN was accepted; else None."""
    address: dict[str, str] | None = st.session_state.pop(GO_TO_ENTRY, None)
    return address


def pages_public() -> bool:
    """Whether the store lets visitors read the pages without logging in (``gdan users public``)."""
    return accounts.pages_public(_store())


def require_writer() -> Principal:
    """The principal of a page that writes results; stops the page with a message for anyone else."""
    who = principal()
    if who is None or not who.may_enter_results():
        st.warning(tr("access_entry_refused"))
        st.stop()
    assert who is not None
    return who


def may_enter(who: Principal, event_id: str, stage: str | None, round_no: int, table: int | str) -> bool:
    """Whether ``who`` may enter that table's result (the same rule ``submit`` checks again)."""
    return may_write(who, event_id, stage, round_no, table)
