"""`gdan users …` and `gdan tokens issue`: accounts managed from the command line, stored in the
store's service folder with argon2 hashes, and table tokens for the tables the entry page shows."""

from __future__ import annotations

import shutil
from datetime import UTC, datetime
from pathlib import Path

import orjson
import pytest
from typer.testing import CliRunner

from gdan import app
from service.accounts import Role, get_account, verify
from service.tokens import redeem

PASSWORD = "correct horse battery"


def _gdan(*args: str, stdin: str | None = None) -> tuple[int, str]:
    result = CliRunner().invoke(app, list(args), input=stdin)
    return result.exit_code, result.output


def test_accounts_are_added_listed_changed_and_removed(tmp_path: Path) -> None:
    store = str(tmp_path)
    code, out = _gdan("users", "add", "wang", "--role", "referee", "--password-stdin", "--store", store,
                      stdin=PASSWORD + "\n")
    assert code == 0, out
    account = get_account(tmp_path, "wang")
    assert account is not None and account.role is Role.REFEREE
    assert verify(tmp_path, "wang", PASSWORD) is not None
    assert verify(tmp_path, "wang", "wrong password") is None
    stored = b"".join(p.read_bytes() for p in (tmp_path / "service").rglob("*") if p.is_file())
    assert PASSWORD.encode() not in stored  # only the hash is kept
    assert b"$argon2" in stored

    code, out = _gdan("users", "assign", "wang", "cup", "--store", store)
    assert code == 0, out
    assert get_account(tmp_path, "wang").may_write("cup")  # type: ignore[union-attr]
    assert not get_account(tmp_path, "wang").may_write("league")  # type: ignore[union-attr]

    code, out = _gdan("users", "list", "--store", store)
    assert code == 0 and "wang" in out and "referee" in out

    code, out = _gdan("users", "add", "wang", "--password-stdin", "--store", store, stdin=PASSWORD + "\n")
    assert code != 0 and "wang" in out  # an existing name is refused

    code, out = _gdan("users", "remove", "wang", "--store", store)
    assert code == 0, out
    assert get_account(tmp_path, "wang") is None


def test_a_token_issued_without_a_stage_takes_the_events_stage(sim_store: Path, tmp_path: Path) -> None:
    """The entry page builds a table's match from its event's stage: a token issued without
    --stage must carry that stage, or it would open no table."""
    store = tmp_path / "store"
    shutil.copytree(sim_store, store)
    code, out = _gdan("standings", "--store", str(store), "--format", "json")
    assert code == 0, out
    stages = orjson.loads(out[out.index("["):])
    event, stage = next((s["event_id"], s["stage"]) for s in stages if s.get("stage"))
    code, out = _gdan("tokens", "issue", "--event", event, "--round", "1", "--tables", "1",
                      "--store", str(store), "--format", "json")
    assert code == 0, out
    (row,) = orjson.loads(out[out.index("["):])
    grant = redeem(store, str(row["pin"]), now=datetime.now(UTC))
    assert grant is not None
    assert (grant.event_id, grant.stage, grant.round_no, grant.table) == (event, stage, 1, 1)


@pytest.mark.parametrize("numbers", ["0", "3-1", "x"])
def test_bad_tables_are_refused(tmp_path: Path, numbers: str) -> None:
    code, out = _gdan("tokens", "issue", "--event", "cup", "--round", "1", "--tables", numbers,
                      "--store", str(tmp_path))
    assert code != 0
    assert "table" in out.lower()
