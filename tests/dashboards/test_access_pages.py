"""Access control on the pages (``dashboards/access.py``) through ``AppTest``: logins, roles, table
tokens, throttling, idle sessions, and the audit of an entry on the match and in data quality."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import pytest
from dash_app import APP, SCRIPT_TIMEOUT_S
from entry_app import new_event
from streamlit.testing.v1 import AppTest

from dashboards.entry import TableEntry, derive, table_spec
from dashboards.entry_inbox import submit
from pipelines.run.runner import run_pipeline
from replay import BUILTIN
from service.accounts import Role, add_account, assign
from service.principals import for_account
from service.throttle import MAX_FAILURES
from service.tokens import issue_round_tokens

PASSWORD = "long enough"
REFUSED = "Results entry needs a referee of the event"
NOT_YOURS = "You may not enter this table's result."
NO_EVENT = "No event here is yours to enter"


@pytest.fixture(autouse=True)
def logins_required(monkeypatch: pytest.MonkeyPatch) -> None:
    """A server that requires logins (an admin exists, or exposed): no anonymous writes."""
    monkeypatch.setenv("GDAN_ANONYMOUS_WRITES", "0")


def _app(store: Path, monkeypatch: pytest.MonkeyPatch, **params: str) -> AppTest:
    monkeypatch.setenv("GDAN_STORE", str(store))
    at = AppTest.from_file(str(APP), default_timeout=SCRIPT_TIMEOUT_S)
    for key, value in params.items():
        at.query_params[key] = value
    return at.run()


def _log_in(at: AppTest, name: str, password: str) -> AppTest:
    at.text_input(key="access_name").input(name)
    at.text_input(key="access_password").input(password)
    at.button(key="access_login_submit").click()
    return at.run()


def _entry(at: AppTest) -> AppTest:
    at.switch_page("views/entry.py")
    return at.run()


def _entry_listed(at: AppTest) -> bool:
    """Whether the navigation offers the entry page to this session."""
    try:
        at.switch_page("views/entry.py")
    except ValueError as exc:
        assert "Could not find a navigation page" in str(exc)
        return False
    return True


def _register_cup(store: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """An admin registers the event "cup" with 8 pairs on the entry page (its round 1 is drawn)."""
    add_account(store, "boss", PASSWORD, Role.ADMIN)
    at = new_event(_entry(_log_in(_app(store, monkeypatch), "boss", PASSWORD)), "national")
    assert not at.exception
    assert _tables_open(at) == ["cup-r1-t1", "cup-r1-t2", "cup-r1-t3", "cup-r1-t4"]


def _tables_open(at: AppTest) -> list[str]:
    """The matches whose tap controls show (the tables this principal may enter)."""
    return [w.key.removeprefix("en_").removesuffix("_first") for w in at.segmented_control
            if w.key and w.key.endswith("_first")]


def _texts(at: AppTest) -> str:
    return " ".join(str(e.value) for e in [*at.warning, *at.info, *at.error, *at.caption, *at.markdown])


def test_nobody_and_a_viewer_cannot_reach_entry(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    add_account(tmp_path, "fan", PASSWORD, Role.VIEWER)
    assert not _entry_listed(_app(tmp_path, monkeypatch))
    at = _log_in(_app(tmp_path, monkeypatch), "fan", PASSWORD)
    assert "Signed in: **fan** (viewer)" in _texts(at)
    assert not _entry_listed(at)
    add_account(tmp_path, "ref", PASSWORD, Role.REFEREE)
    assert _entry_listed(_log_in(_app(tmp_path, monkeypatch), "ref", PASSWORD))


def test_a_referee_of_another_event_cannot_write(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _register_cup(tmp_path, monkeypatch)
    add_account(tmp_path, "ref", PASSWORD, Role.REFEREE)
    assign(tmp_path, "ref", ["league"])
    at = _entry(_log_in(_app(tmp_path, monkeypatch), "ref", PASSWORD))
    assert not at.exception
    assert _tables_open(at) == []
    assert NO_EVENT in _texts(at)
    assert next(w for w in at.selectbox if w.key == "en_event").options == []  # not even listed
    assign(tmp_path, "ref", ["cup"])  # rights are read from the store on every run
    at = _entry(_log_in(_app(tmp_path, monkeypatch), "ref", PASSWORD))
    assert _tables_open(at) == ["cup-r1-t1", "cup-r1-t2", "cup-r1-t3", "cup-r1-t4"]


@pytest.mark.parametrize("use", ["link", "pin"])
def test_a_table_token_opens_its_own_table_only(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, use: str
) -> None:
    _register_cup(tmp_path, monkeypatch)
    (token,) = issue_round_tokens(tmp_path, "cup", "", 1, [2], "boss")
    (other_round,) = issue_round_tokens(tmp_path, "cup", "", 2, [1], "boss")
    if use == "link":
        at = _app(tmp_path, monkeypatch, token=token.token)
    else:
        at = _app(tmp_path, monkeypatch)
        at.text_input(key="access_pin_text").input(token.pin)
        at.button(key="access_pin_submit").click()
        at = at.run()
    assert f"Signed in: **{token.token_id}** (table token) · cup · Round 1 · Table 2" in _texts(at)
    at = _entry(at)
    assert not at.exception
    assert _tables_open(at) == ["cup-r1-t2"]
    assert NOT_YOURS in _texts(at)  # the other tables are listed, not enterable
    assert other_round.token_id not in _texts(at)


def test_throttled_after_repeated_failures(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    add_account(tmp_path, "ref", PASSWORD, Role.ADMIN)
    for _ in range(MAX_FAILURES):
        at = _log_in(_app(tmp_path, monkeypatch), "ref", "wrong password")
        assert "Wrong account or password." in _texts(at)
    at = _log_in(_app(tmp_path, monkeypatch), "ref", PASSWORD)  # a new tab: still counted
    assert "Too many failed attempts" in _texts(at)
    assert "Signed in" not in _texts(at)


def test_an_idle_session_expires(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    add_account(tmp_path, "ref", PASSWORD, Role.ADMIN)
    monkeypatch.setenv("GDAN_SESSION_IDLE_MINUTES", "0")  # every later run is past the timeout
    at = _log_in(_app(tmp_path, monkeypatch), "ref", PASSWORD)
    assert "Your session expired: log in again." in _texts(at)
    assert not _entry_listed(at)


def test_the_pages_may_be_for_members_only(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from service.accounts import set_pages_public

    add_account(tmp_path, "fan", PASSWORD, Role.VIEWER)
    set_pages_public(tmp_path, False)
    at = _app(tmp_path, monkeypatch)
    assert [t.value for t in at.title] == ["Log in"]
    at = _log_in(at, "fan", PASSWORD)
    assert [t.value for t in at.title] != ["Log in"]


def test_the_audit_shows_on_the_match_and_in_data_quality(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    add_account(tmp_path, "ref", PASSWORD, Role.REFEREE)
    ref = for_account(assign(tmp_path, "ref", ["cup"]), datetime(2026, 5, 1, 9, tzinfo=UTC))
    ruleset = BUILTIN["national"]
    seats = {"E": "p1", "N": "p2", "W": "p3", "S": "p4"}
    for revision, minute in ((1, 0), (2, 7)):
        spec = table_spec("cup", None, None, 1, 1, seats, {}, None, revision)
        events = derive(TableEntry(spec, ruleset, ruleset.default_format, (("E", "W"),) * 5)).events
        submit(tmp_path, events, revision, principal=ref, now=datetime(2026, 5, 1, 9, minute, tzinfo=UTC))
    run_pipeline(tmp_path, workers=1)
    at = _app(tmp_path, monkeypatch, match="cup-r1-t1")
    at.switch_page("views/replayer.py")
    at.query_params["match"] = "cup-r1-t1"
    at = at.run()
    assert not at.exception
    assert "Entered by ref at 2026-05-01 09:07 UTC · replaces revision 1" in _texts(at)
    at.switch_page("views/quality.py")
    at = at.run()
    assert not at.exception
    assert any(s.value == "Submissions" for s in at.subheader)
    shown = next(df.value for df in at.dataframe if "entered_by" in df.value.columns)
    assert shown["entered_by"].tolist() == ["ref", "ref"]
    assert shown["revision"].tolist() == [2, 1]  # latest first
    assert shown["replaces_revision"].tolist()[0] == 1
