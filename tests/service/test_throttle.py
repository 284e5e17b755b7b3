"""Failed logins are throttled per account and per client, in the store (a new tab does not reset it)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

from service.throttle import (
    MAX_FAILURES,
    WINDOW,
    account_key,
    blocked_until,
    clear,
    client_key,
    record_failure,
)

NOW = datetime(2026, 5, 1, 9, 0, tzinfo=UTC)


def test_repeated_failures_block_until_the_window_passes(tmp_path: Path) -> None:
    keys = [account_key("alice"), client_key("10.0.0.7")]
    for i in range(MAX_FAILURES - 1):
        record_failure(tmp_path, keys, NOW + timedelta(seconds=i))
    assert blocked_until(tmp_path, keys, NOW + timedelta(seconds=10)) is None
    record_failure(tmp_path, keys, NOW + timedelta(seconds=10))
    until = blocked_until(tmp_path, [client_key("10.0.0.7")], NOW + timedelta(seconds=11))
    assert until == NOW + WINDOW
    assert blocked_until(tmp_path, [account_key("alice")], NOW + WINDOW) is None
    assert blocked_until(tmp_path, [client_key("10.0.0.8")], NOW + timedelta(seconds=11)) is None


def test_a_success_clears_only_the_keys_given(tmp_path: Path) -> None:
    keys = [account_key("alice"), client_key("c")]
    for i in range(MAX_FAILURES):
        record_failure(tmp_path, keys, NOW + timedelta(seconds=i))
    clear(tmp_path, [account_key("alice")])
    later = NOW + timedelta(seconds=MAX_FAILURES)
    assert blocked_until(tmp_path, [account_key("alice")], later) is None
    assert blocked_until(tmp_path, [client_key("c")], later) is not None
