"""The end of a trick and who leads next (rules.md §5.3, §5.4, §5.6): ``replay.seats``."""

from __future__ import annotations

import pytest

from replay.seats import next_leader, next_to_play

ALL_IN = {"E": 5, "N": 5, "W": 5, "S": 5}


@pytest.mark.parametrize(
    ("table_seat", "passes", "counts", "out", "leads"),
    [
        ("E", 2, ALL_IN, 0, None),  # §5.4: N and W passed, S still to answer
        ("E", 3, ALL_IN, 0, "E"),  # §5.4: every other player passed: E leads
        ("E", 2, {**ALL_IN, "S": 0}, 1, "E"),  # §5.4: S is out and does not answer
        ("E", 3, {**ALL_IN, "E": 0}, 1, "W"),  # §5.6 接风: E went out with the play, partner W leads
        ("E", 2, {**ALL_IN, "E": 0}, 1, None),  # §5.6: one of the three others has yet to pass
        ("N", 2, {**ALL_IN, "N": 0, "E": 0}, 2, "S"),  # §5.6: N out with the play, W and S passed
    ],
)
def test_next_leader(
    table_seat: str, passes: int, counts: dict[str, int], out: int, leads: str | None
) -> None:
    assert next_leader(table_seat, passes, counts, out) == leads


@pytest.mark.parametrize(
    ("seat", "counts", "plays"),
    [
        ("E", ALL_IN, "N"),  # §5.3: counter-clockwise E → N → W → S
        ("S", ALL_IN, "E"),
        ("E", {**ALL_IN, "N": 0}, "W"),  # §5.3: players who are out are skipped
        ("E", {**ALL_IN, "N": 0, "W": 0}, "S"),
    ],
)
def test_next_to_play(seat: str, counts: dict[str, int], plays: str) -> None:
    assert next_to_play(seat, counts) == plays
