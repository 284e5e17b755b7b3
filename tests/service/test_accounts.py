"""Accounts: argon2 hashes, owner-only files, roles and assignments, nothing secret in any table."""

from __future__ import annotations

import stat
from pathlib import Path

import orjson
import pytest

from service.accounts import (
    AccountError,
    Role,
    add_account,
    assign,
    get_account,
    has_admin,
    list_accounts,
    remove_account,
    set_password,
    set_role,
    verify,
)

PASSWORD = "correct horse"


def test_password_is_stored_as_an_argon2_hash_only(tmp_path: Path) -> None:
    add_account(tmp_path, "alice", PASSWORD, Role.ADMIN)
    path = tmp_path / "service" / "accounts.json"
    text = path.read_text()
    assert PASSWORD not in text
    assert orjson.loads(text)["accounts"]["alice"]["hash"].startswith("$argon2id$")
    assert verify(tmp_path, "alice", PASSWORD) == get_account(tmp_path, "alice")
    assert verify(tmp_path, "alice", "wrong password") is None
    assert verify(tmp_path, "nobody", PASSWORD) is None


def test_service_files_are_owner_only(tmp_path: Path) -> None:
    add_account(tmp_path, "alice", PASSWORD)
    folder = tmp_path / "service"
    assert stat.S_IMODE(folder.stat().st_mode) == 0o700
    assert stat.S_IMODE((folder / "accounts.json").stat().st_mode) == 0o600
    set_password(tmp_path, "alice", "another password")  # rewritten atomically, still 0600
    assert stat.S_IMODE((folder / "accounts.json").stat().st_mode) == 0o600
    assert not [p for p in folder.iterdir() if p.name.endswith(".tmp")]
    assert verify(tmp_path, "alice", "another password") is not None
    assert verify(tmp_path, "alice", PASSWORD) is None


def test_roles_and_assignments(tmp_path: Path) -> None:
    assert not has_admin(tmp_path)
    add_account(tmp_path, "ref", PASSWORD)
    with pytest.raises(AccountError, match="viewer"):
        assign(tmp_path, "ref", ["cup"])
    set_role(tmp_path, "ref", Role.REFEREE)
    ref = assign(tmp_path, "ref", ["cup", "league"])
    assert ref.may_write("cup") and not ref.may_write("other")
    ref = assign(tmp_path, "ref", ["league"], assigned=False)
    assert ref.events == {"cup"}
    add_account(tmp_path, "boss", PASSWORD, Role.ADMIN)
    assert has_admin(tmp_path)
    assert get_account(tmp_path, "boss") is not None
    assert [a.name for a in list_accounts(tmp_path)] == ["boss", "ref"]
    remove_account(tmp_path, "ref")
    assert get_account(tmp_path, "ref") is None


@pytest.mark.parametrize(
    ("name", "password", "why"),
    [("a b", PASSWORD, "account name"), ("ok", "short", "at least 8"), ("-x", PASSWORD, "account name")],
)
def test_bad_names_and_passwords_are_refused(tmp_path: Path, name: str, password: str, why: str) -> None:
    with pytest.raises(AccountError, match=why):
        add_account(tmp_path, name, password)


def test_existing_and_unknown_names(tmp_path: Path) -> None:
    add_account(tmp_path, "alice", PASSWORD)
    with pytest.raises(AccountError, match="exists already"):
        add_account(tmp_path, "alice", PASSWORD)
    with pytest.raises(AccountError, match="no account 'bob'"):
        set_role(tmp_path, "bob", Role.ADMIN)
    with pytest.raises(AccountError, match="no account 'bob'"):
        remove_account(tmp_path, "bob")


def test_a_corrupt_accounts_file_is_an_error_not_a_reset(tmp_path: Path) -> None:
    (tmp_path / "service").mkdir()
    (tmp_path / "service" / "accounts.json").write_text("[1, 2]")
    with pytest.raises(ValueError, match=r"accounts\.json: expected a JSON object"):
        list_accounts(tmp_path)
