"""`gdan dashboard` listens on loopback unless told otherwise, refuses to expose the writing pages
without accounts, and keeps Streamlit's XSRF protection on."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from gdan import app
from gdan import pipeline as cli
from gdan.pipeline import ExposureRefused, anonymous_writes, is_loopback
from service.accounts import Role, add_account


@pytest.mark.parametrize("host", ["127.0.0.1", "localhost", "::1", "127.0.0.2"])
def test_loopback_addresses(host: str) -> None:
    assert is_loopback(host)


@pytest.mark.parametrize("host", ["0.0.0.0", "192.168.1.20", "::", "example.org"])
def test_other_addresses_are_not_loopback(host: str) -> None:
    assert not is_loopback(host)


def test_the_exposure_decision() -> None:
    assert anonymous_writes("127.0.0.1", admin_exists=False, allow_anonymous_writes=False)
    assert not anonymous_writes("127.0.0.1", admin_exists=True, allow_anonymous_writes=False)
    assert not anonymous_writes("0.0.0.0", admin_exists=True, allow_anonymous_writes=False)
    assert anonymous_writes("0.0.0.0", admin_exists=False, allow_anonymous_writes=True)
    with pytest.raises(ExposureRefused, match="gdan users add NAME --role admin"):
        anonymous_writes("0.0.0.0", admin_exists=False, allow_anonymous_writes=False)


def test_help_names_the_host_and_no_longer_claims_read_only() -> None:
    result = CliRunner().invoke(app, ["dashboard", "--help"], env={"COLUMNS": "200"})
    assert result.exit_code == 0
    assert "--host" in result.stdout and "127.0.0.1" in result.stdout
    assert "--allow-anonymous-writes" in result.stdout
    assert "reads only" not in result.stdout


class _Served(Exception):
    """Raised instead of starting Streamlit: carries the command and environment."""


def _capture(command: list[str], env: dict[str, str]) -> int:
    raise _Served(command, env)


def _served(store: Path, monkeypatch: pytest.MonkeyPatch, *args: str) -> tuple[list[str], dict[str, str]]:
    monkeypatch.setattr(cli, "require_tables", lambda _store: None)
    monkeypatch.setattr(cli, "_serve", _capture)
    with pytest.raises(_Served) as served:
        CliRunner().invoke(app, ["dashboard", "--store", str(store), *args], catch_exceptions=False)
    command, env = served.value.args
    return command, env


def _flag(command: list[str], name: str) -> str:
    return command[command.index(name) + 1]


def test_binds_loopback_by_default_with_xsrf_on(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    command, env = _served(tmp_path, monkeypatch)
    assert _flag(command, "--server.address") == "127.0.0.1"
    assert _flag(command, "--server.enableXsrfProtection") == "true"
    assert env["GDAN_ANONYMOUS_WRITES"] == "1"  # nobody can log in yet: this computer only


def test_exposed_with_an_admin_requires_logins(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    add_account(tmp_path, "boss", "long enough", Role.ADMIN)
    monkeypatch.setenv("GDAN_ANONYMOUS_WRITES", "1")  # an inherited setting does not open it
    command, env = _served(tmp_path, monkeypatch, "--host", "0.0.0.0", "--session-idle-minutes", "5")
    assert _flag(command, "--server.address") == "0.0.0.0"
    assert env["GDAN_ANONYMOUS_WRITES"] == "0"
    assert env["GDAN_SESSION_IDLE_MINUTES"] == "5.0"


def test_exposing_without_accounts_is_refused(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(cli, "require_tables", lambda _store: None)
    monkeypatch.setattr(cli, "_serve", _capture)
    result = CliRunner().invoke(app, ["dashboard", "--store", str(tmp_path), "--host", "0.0.0.0"])
    assert result.exit_code == 1
    assert "refusing to serve on 0.0.0.0 without accounts" in result.output
    assert "gdan users add NAME --role admin" in result.output


def test_anonymous_exposure_prints_a_warning(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(cli, "require_tables", lambda _store: None)
    monkeypatch.setattr(cli, "_serve", lambda command, env: 0)
    result = CliRunner().invoke(
        app, ["dashboard", "--store", str(tmp_path), "--host", "0.0.0.0", "--allow-anonymous-writes"]
    )
    assert result.exit_code == 0
    assert "WARNING: anyone who reaches 0.0.0.0:8501 can enter and correct results" in result.output



def test_serve_refuses_the_same_exposure_before_starting_anything(tmp_path: Path) -> None:
    """`gdan serve` shares `gdan dashboard`'s host rules: no admin, another address → exit 1, and
    neither the dashboards nor the watcher start."""
    store = tmp_path / "store"
    (store / "inbox").mkdir(parents=True)
    result = CliRunner().invoke(app, ["serve", "--store", str(store), "--host", "0.0.0.0"],
                                env={"COLUMNS": "200"})
    assert result.exit_code == 1
    assert "refusing to serve on 0.0.0.0 without accounts" in result.output
    assert "watching" not in result.output


def test_serve_needs_a_store_or_create(tmp_path: Path) -> None:
    result = CliRunner().invoke(app, ["serve", "--store", str(tmp_path / "typo")], env={"COLUMNS": "200"})
    assert result.exit_code == 1 and "no store at" in result.output
    assert not (tmp_path / "typo").exists()
