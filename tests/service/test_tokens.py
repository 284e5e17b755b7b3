"""Table tokens: one table of one round, shown once, stored as keyed hashes, expiring with the round."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

from service.tokens import consume, entry_link, grant_of, issue_round_tokens, redeem

NOW = datetime(2026, 5, 1, 9, 0, tzinfo=UTC)


def test_a_token_and_its_pin_grant_exactly_their_table(tmp_path: Path) -> None:
    tokens = issue_round_tokens(tmp_path, "cup", "", 2, [1, 2, 3], "boss", now=NOW)
    assert [t.table for t in tokens] == [1, 2, 3]
    assert len({t.token for t in tokens}) == 3 and len({t.pin for t in tokens}) == 3
    for token in tokens:
        assert len(token.pin) == 6 and token.pin.isdigit()
        for secret in (token.token, token.pin):
            grant = redeem(tmp_path, secret, now=NOW)
            assert grant is not None
            assert (grant.event_id, grant.stage, grant.round_no, grant.table) == ("cup", "", 2, token.table)
            assert grant.token_id == token.token_id
    assert redeem(tmp_path, "000000x", now=NOW) is None
    stored = (tmp_path / "service" / "tokens.json").read_text()
    assert not any(t.token in stored or f'"{t.pin}"' in stored for t in tokens)


def test_tokens_expire_with_their_time_their_use_and_their_round(tmp_path: Path) -> None:
    one, two = issue_round_tokens(tmp_path, "cup", "swiss", 1, [1, 2], "boss", timedelta(hours=1), now=NOW)
    assert redeem(tmp_path, one.token, now=NOW + timedelta(hours=1)) is None  # expired
    consume(tmp_path, one.token_id, NOW)
    assert redeem(tmp_path, one.pin, now=NOW) is None  # used
    assert redeem(tmp_path, two.pin, now=NOW) is not None
    # the round is complete once table 2 is entered by other means (a referee)
    assert redeem(tmp_path, two.pin, now=NOW, entered=lambda g: g.table == 2) is None
    assert grant_of(tmp_path, two.token_id, now=NOW) is not None


def test_reissuing_a_table_revokes_its_old_token(tmp_path: Path) -> None:
    (old,) = issue_round_tokens(tmp_path, "cup", "", 1, [4], "boss", now=NOW)
    (new,) = issue_round_tokens(tmp_path, "cup", "", 1, [4], "boss", now=NOW)
    assert redeem(tmp_path, old.token, now=NOW) is None
    assert redeem(tmp_path, new.token, now=NOW) is not None


def test_entry_link_carries_the_secret_not_the_pin(tmp_path: Path) -> None:
    (token,) = issue_round_tokens(tmp_path, "cup", "", 1, [1], "boss", now=NOW)
    link = entry_link("http://10.0.0.2:8501/", token)
    assert link == f"http://10.0.0.2:8501/entry?token={token.token}"
