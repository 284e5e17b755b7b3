"""Who may submit a result (``dashboards.entry_inbox.submit``), and the audit record it writes."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import orjson
import pytest

from dashboards.entry import TableEntry, derive, table_spec
from dashboards.entry_inbox import NotAllowed, submit
from replay import BUILTIN, replay_match
from service.accounts import Role, add_account, assign, get_account, remove_account
from service.principals import Principal, for_account, for_grant
from service.tokens import issue_round_tokens, redeem

NOW = datetime(2026, 5, 1, 9, 30, tzinfo=UTC)
SEATS = {"E": "p1", "N": "p2", "W": "p3", "S": "p4"}


def events(event: str = "cup", round_no: int = 1, table: int = 1, revision: int = 1) -> list[dict[str, Any]]:
    ruleset = BUILTIN["national"]
    spec = table_spec(event, None, None, round_no, table, SEATS, {}, None, revision)
    return derive(TableEntry(spec, ruleset, ruleset.default_format, ((("E", "W")),) * 5)).events


def account(store: Path, name: str, role: Role, *assigned: str) -> Principal:
    add_account(store, name, "long enough", role)
    if assigned:
        assign(store, name, assigned)
    found = get_account(store, name)
    assert found is not None
    return for_account(found, NOW)


def written(path: Path) -> list[dict[str, Any]]:
    return [orjson.loads(line) for line in path.read_bytes().splitlines()]


def test_nobody_logged_in_cannot_submit(tmp_path: Path) -> None:
    with pytest.raises(NotAllowed, match="log in"):
        submit(tmp_path, events(), principal=None, now=NOW)
    assert not (tmp_path / "inbox").exists()


def test_a_viewer_cannot_submit(tmp_path: Path) -> None:
    viewer = account(tmp_path, "fan", Role.VIEWER)
    with pytest.raises(NotAllowed, match="may not write event cup"):
        submit(tmp_path, events(), principal=viewer, now=NOW)


def test_a_referee_writes_only_the_events_assigned(tmp_path: Path) -> None:
    ref = account(tmp_path, "ref", Role.REFEREE, "cup")
    submit(tmp_path, events("cup"), principal=ref, now=NOW)
    with pytest.raises(NotAllowed, match="may not write event league"):
        submit(tmp_path, events("league"), principal=ref, now=NOW)


def test_a_removed_account_can_no_longer_submit(tmp_path: Path) -> None:
    ref = account(tmp_path, "ref", Role.ADMIN)
    remove_account(tmp_path, "ref")
    with pytest.raises(NotAllowed, match="no longer"):
        submit(tmp_path, events(), principal=ref, now=NOW)


def test_a_table_token_writes_its_own_table_once(tmp_path: Path) -> None:
    one, _two = issue_round_tokens(tmp_path, "cup", "", 1, [1, 2], "boss", now=NOW)
    grant = redeem(tmp_path, one.pin, now=NOW)
    assert grant is not None
    table = for_grant(grant, NOW)
    with pytest.raises(NotAllowed):
        submit(tmp_path, events(table=2), principal=table, now=NOW)  # another table
    with pytest.raises(NotAllowed):
        submit(tmp_path, events(round_no=2), principal=table, now=NOW)  # another round
    with pytest.raises(NotAllowed):
        submit(tmp_path, events("league"), principal=table, now=NOW)  # another event
    path = submit(tmp_path, events(), principal=table, now=NOW)
    record = written(path)[0]["entry"]
    assert record == {"by": one.token_id, "via": "table_token", "at": "2026-05-01T09:30:00Z",
                      "replaces": None, "replaces_file": None}
    assert one.token not in path.read_text() and one.pin not in path.read_text()
    with pytest.raises(NotAllowed, match="no longer"):  # spent by its submission
        submit(tmp_path, events(revision=2), 2, principal=table, now=NOW)


def test_an_expired_token_cannot_submit(tmp_path: Path) -> None:
    (one,) = issue_round_tokens(tmp_path, "cup", "", 1, [1], "boss", timedelta(minutes=30), now=NOW)
    grant = redeem(tmp_path, one.token, now=NOW)
    assert grant is not None
    with pytest.raises(NotAllowed, match="no longer"):
        submit(tmp_path, events(), principal=for_grant(grant, NOW), now=NOW + timedelta(minutes=30))


def test_a_correction_records_what_it_replaces_and_replays(tmp_path: Path) -> None:
    ref = account(tmp_path, "ref", Role.REFEREE, "cup")
    first = submit(tmp_path, events(), principal=ref, now=NOW)
    later = NOW + timedelta(minutes=5)
    second = submit(tmp_path, events(revision=2), 2, principal=ref, now=later)
    record = written(second)[0]["entry"]
    assert record == {"by": "ref", "via": "account", "at": "2026-05-01T09:35:00Z",
                      "replaces": 1, "replaces_file": first.name}
    result = replay_match(written(second))
    assert result.valid, result.error
