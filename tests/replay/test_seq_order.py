"""Event order (events.md "Framing"): a log replays the same whatever the order of its lines, and
a duplicate or missing ``seq`` is reported at the same place either way. The replayer takes logs
already numbered 0, 1, 2, … as they are and sorts the others, so both paths are checked here."""

from __future__ import annotations

import random
from functools import cache
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from replay import replay_match
from simulator import api as simulator_api


@cache
def _match(seed: int) -> tuple[dict[str, Any], ...]:
    return tuple(simulator_api.simulate_match("huaian", seed=seed))


def _outcome(events: list[dict[str, Any]]) -> tuple[Any, ...]:
    result = replay_match(events)
    err = result.error
    rows = {name: result.rows[name] for name in result.rows}
    return result.status, None if err is None else (err.seq, err.code.value, err.message), rows


@settings(max_examples=10, deadline=None)
@given(seed=st.integers(0, 3), shuffle=st.randoms(use_true_random=False))
def test_line_order_does_not_matter(seed: int, shuffle: random.Random) -> None:
    """A valid match: identical status and rows in log order and in any shuffled order."""
    events = [dict(e) for e in _match(seed)]
    shuffled = list(events)
    shuffle.shuffle(shuffled)
    in_order = _outcome(events)
    assert in_order[0] == "valid"
    assert _outcome(shuffled) == in_order


@settings(max_examples=15, deadline=None)
@given(seed=st.integers(0, 3), at=st.floats(0.05, 0.95), fault=st.sampled_from(["duplicate", "missing"]))
def test_framing_fault_found_in_any_order(seed: int, at: float, fault: str) -> None:
    """A duplicated or dropped ``seq`` mid-stream: ``duplicate_seq`` at that seq, or
    ``missing_seq`` at the dropped one, whether the lines are in order or reversed."""
    events = [dict(e) for e in _match(seed)]
    k = int(len(events) * at)
    if fault == "duplicate":
        damaged = [*events[: k + 1], dict(events[k]), *events[k + 1 :]]
        expected = (k, "duplicate_seq")
    else:
        damaged = events[:k] + events[k + 1 :]
        expected = (k, "missing_seq")
    for order in (damaged, damaged[::-1]):
        result = replay_match(order)
        assert result.error is not None
        assert (result.error.seq, result.error.code.value) == expected, result.error


def test_bad_seq_reported_before_anything() -> None:
    """A ``seq`` that is not a non-negative integer (here a boolean) is a fault without a seq."""
    events = [dict(e) for e in _match(0)]
    events[3]["seq"] = True
    result = replay_match(events)
    assert result.error is not None
    assert (result.error.seq, result.error.code.value) == (None, "malformed_field")
    assert "True" in result.error.message
