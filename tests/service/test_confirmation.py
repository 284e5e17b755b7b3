"""Opponents' confirmation (service/confirmation.py): a held result reaches the inbox only once the
other pair confirms it; a disputed one waits for the referee, who accepts or corrects it; what lands
records who entered, confirmed, disputed and resolved it, and when."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from service import confirmation
from service.confirmation import AlreadyPending, NotPending


def _events(match: str = "ux-cup-r1-t1", winner: str = "EW") -> list[dict[str, Any]]:
    order = ["E", "W"] if winner == "EW" else ["N", "S"]
    return [
        {"v": 1, "match": match, "seq": 0, "type": "match_start", "rules": "bcta",
         "seats": {"E": "p01", "N": "p03", "W": "p02", "S": "p04"}, "event": {"id": "ux-cup", "round": 1}},
        {"v": 1, "match": match, "seq": 1, "type": "deal_start", "deal": 1, "level": "2", "declarers": None},
        {"v": 1, "match": match, "seq": 2, "type": "deal_end", "order": order},
    ]


class Inbox:
    """A stand-in for the entry page's inbox submit: keeps what it was given."""

    def __init__(self) -> None:
        self.delivered: list[list[dict[str, Any]]] = []

    def __call__(self, events: list[dict[str, Any]]) -> int:
        self.delivered.append(events)
        return len(self.delivered)


def test_a_held_result_waits_until_the_other_pair_confirms(tmp_path: Path) -> None:
    held = confirmation.hold(tmp_path, _events(), 1, by="table 1 (N–S)")
    assert held.match == "ux-cup-r1-t1" and held.event == "ux-cup"
    assert (tmp_path / "service" / "pending" / "ux-cup-r1-t1.json").exists()
    with pytest.raises(AlreadyPending):
        confirmation.hold(tmp_path, _events(), 1, by="table 1 (N–S)")
    inbox = Inbox()
    assert not inbox.delivered  # nothing counts before the confirmation
    confirmation.confirm(tmp_path, "ux-cup-r1-t1", 1, "E–W p01/p02", inbox)
    (events,) = inbox.delivered
    record = events[0]["confirmation"]
    assert record["entered"]["by"] == "table 1 (N–S)" and record["confirmed"]["by"] == "E–W p01/p02"
    assert record["confirmed"]["at"].endswith("+00:00")
    assert events[1:] == _events()[1:]  # the deals as entered
    assert confirmation.load(tmp_path, "ux-cup-r1-t1") is None and not confirmation.waiting(tmp_path)


def test_a_disputed_result_goes_to_the_referee_who_corrects_it(tmp_path: Path) -> None:
    confirmation.hold(tmp_path, _events(), 1, by="table 1 (N–S)")
    confirmation.hold(tmp_path, _events("ux-cup-r1-t2"), 1, by="table 2 (N–S)")
    confirmation.dispute(tmp_path, "ux-cup-r1-t1", 1, "E–W p01/p02", "N–S won the deal")
    queue = confirmation.waiting(tmp_path, "ux-cup", disputed=True)
    assert [p.match for p in queue] == ["ux-cup-r1-t1"] and queue[0].reason == "N–S won the deal"
    assert [p.match for p in confirmation.waiting(tmp_path, disputed=False)] == ["ux-cup-r1-t2"]
    inbox = Inbox()
    with pytest.raises(NotPending, match="referee"):
        confirmation.confirm(tmp_path, "ux-cup-r1-t1", 1, "E–W p01/p02", inbox)
    with pytest.raises(ValueError, match="keep its match id"):
        confirmation.resolve(tmp_path, "ux-cup-r1-t1", 1, "referee", inbox, _events("other"))
    confirmation.resolve(tmp_path, "ux-cup-r1-t1", 1, "referee", inbox, _events(winner="NS"))
    (events,) = inbox.delivered
    record = events[0]["confirmation"]
    assert record["disputed"]["by"] == "E–W p01/p02" and record["disputed"]["reason"] == "N–S won the deal"
    assert record["resolved"]["by"] == "referee" and record["resolved"]["corrected"] is True
    assert events[2]["order"] == ["N", "S"]
    assert not confirmation.waiting(tmp_path, disputed=True)


def test_a_failed_delivery_leaves_the_result_waiting(tmp_path: Path) -> None:
    confirmation.hold(tmp_path, _events(), 1, by="table 1 (N–S)")

    def full(events: list[dict[str, Any]]) -> None:
        raise FileExistsError("in the inbox already")

    with pytest.raises(FileExistsError):
        confirmation.confirm(tmp_path, "ux-cup-r1-t1", 1, "E–W", full)
    assert confirmation.load(tmp_path, "ux-cup-r1-t1") is not None


def test_the_referee_accepts_a_result_as_entered(tmp_path: Path) -> None:
    confirmation.hold(tmp_path, _events(), 2, by="referee A")
    inbox = Inbox()
    confirmation.resolve(tmp_path, "ux-cup-r1-t1", 2, "referee B", inbox)
    record = inbox.delivered[0][0]["confirmation"]
    assert record["resolved"]["corrected"] is False and "disputed" not in record
    with pytest.raises(NotPending):
        confirmation.dispute(tmp_path, "ux-cup-r1-t1", 2, "E–W")
