"""The audit of browser entries is queryable: the ``submissions`` view over ``raw_events``
(docs/event-extensions.md, ``match_start.entry``), also through `gdan sql`; no secret of the
service reaches any table."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

import orjson
from typer.testing import CliRunner

from dashboards.entry import TableEntry, derive, table_spec
from dashboards.entry_inbox import submit
from gdan import app
from pipelines.run.runner import run_pipeline
from pipelines.storage.store import Store
from pipelines.storage.warehouse import connect
from replay import BUILTIN
from service.accounts import Role, add_account, assign, get_account
from service.principals import for_account, for_grant
from service.tokens import issue_round_tokens, redeem

NOW = datetime(2026, 5, 1, 9, 30, tzinfo=UTC)
SEATS = {"E": "p1", "N": "p2", "W": "p3", "S": "p4"}
PASSWORD = "a long password"


def _events(table: int, orders: tuple[tuple[str, ...], ...], revision: int = 1) -> list[dict]:
    ruleset = BUILTIN["national"]
    spec = table_spec("cup", "Cup", None, 1, table, SEATS, {}, None, revision)
    return derive(TableEntry(spec, ruleset, ruleset.default_format, orders)).events


def _store(tmp_path: Path) -> Path:
    store = tmp_path / "store"
    add_account(store, "ref", PASSWORD, Role.REFEREE)
    account = assign(store, "ref", ["cup"])
    ref = for_account(account, NOW)
    (token,) = issue_round_tokens(store, "cup", "", 1, [2], "ref", now=NOW)
    grant = redeem(store, token.pin, now=NOW)
    assert grant is not None and get_account(store, "ref") is not None
    submit(store, _events(1, (("E", "W"),) * 5), principal=ref, now=NOW)
    submit(store, _events(2, (("N", "S"),) * 5), principal=for_grant(grant, NOW), now=NOW)
    run_pipeline(store, workers=1)
    submit(store, _events(1, (("N", "S"),) * 5, 2), 2, principal=ref, now=NOW + timedelta(minutes=9))
    run_pipeline(store, workers=1)
    return store


def test_submissions_say_who_when_and_what_they_replace(tmp_path: Path) -> None:
    store = _store(tmp_path)
    rows = connect(store).execute(
        "SELECT match_id, revision, entered_by, entered_via, entered_at, replaces_revision, replaces_file, "
        "event_id, round, \"table\" FROM submissions ORDER BY match_id, revision"
    ).fetchall()
    token_id = orjson.loads((store / "service" / "tokens.json").read_bytes()).popitem()[0]
    at = NOW.astimezone(UTC)
    assert [(*r[:4], r[4].astimezone(UTC), *r[5:]) for r in rows] == [
        ("cup-r1-t1", 1, "ref", "account", at, None, None, "cup", 1, "1"),
        ("cup-r1-t1", 2, "ref", "account", at + timedelta(minutes=9), 1, "cup-r1-t1.jsonl", "cup", 1, "1"),
        ("cup-r1-t2", 1, token_id, "table_token", at, None, None, "cup", 1, "2"),
    ]
    result = CliRunner().invoke(
        app, ["sql", "SELECT entered_by, replaces_revision FROM submissions WHERE revision = 2",
              "--store", str(store), "--format", "csv"]
    )
    assert result.exit_code == 0, result.output
    assert result.stdout.splitlines() == ["entered_by,replaces_revision", "ref,1"]


def test_no_service_secret_is_in_any_table(tmp_path: Path) -> None:
    store = _store(tmp_path)
    hashes = orjson.loads((store / "service" / "accounts.json").read_bytes())["accounts"]["ref"]["hash"]
    tokens = orjson.loads((store / "service" / "tokens.json").read_bytes())
    secrets = [PASSWORD, hashes, *(r[k] for r in tokens.values() for k in ("token_hash", "pin_hash"))]
    con = connect(store)
    listed = con.execute("SELECT view_name FROM duckdb_views() WHERE NOT internal").fetchall()
    views = [name for (name,) in listed]
    assert "raw_events" in views and len(views) > 20
    for view in views:
        text = str(con.execute(f'SELECT * FROM "{view}"').fetchall())
        assert not any(s in text for s in secrets), view
    assert not (Store(store).tables_dir / "service").exists()
