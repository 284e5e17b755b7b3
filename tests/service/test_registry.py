"""The event registry (service/registry.py): events, pairs, check-in, draws and overrides kept in
the store's ``service/events/`` folder."""

from __future__ import annotations

from pathlib import Path

import orjson
import pytest

from service import registry
from service.registry import Event, EventExists, Player, RegistrationRefused, Stamp


def _event(event_id: str = "ux-cup", confirmation: bool = False) -> Event:
    return Event(
        event_id,
        "UX Cup",
        "bcta",
        {"kind": "deals", "deals": 2},
        Stamp("referee", "2026-12-07T01:00:00+00:00"),
        confirmation=confirmation,
    )


def test_new_event_is_kept_and_read_back(tmp_path: Path) -> None:
    made = registry.create(tmp_path, _event(), in_store=())
    assert registry.load(tmp_path, "ux-cup") == made
    assert [e.id for e in registry.events(tmp_path)] == ["ux-cup"]
    path = tmp_path / "service" / "events" / "ux-cup.json"
    assert orjson.loads(path.read_bytes())["rules"] == "bcta"
    assert not [p for p in path.parent.iterdir() if p.name.endswith(".tmp")]  # written in one step


def test_an_existing_event_id_is_refused(tmp_path: Path) -> None:
    """Twice in the registry, or an id the store's matches use: refused, nothing changed."""
    registry.create(tmp_path, _event(), in_store=())
    with pytest.raises(EventExists, match="registered already"):
        registry.create(tmp_path, _event(), in_store=())
    with pytest.raises(EventExists, match="store has matches"):
        registry.create(tmp_path, _event("bcta-league"), in_store=("bcta-league",))
    assert registry.load(tmp_path, "bcta-league") is None


def test_an_event_id_that_is_not_a_file_name_is_refused(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="path separator"):
        registry.create(tmp_path, _event("../x"), in_store=())


def test_pairs_with_names_and_clubs_and_check_in(tmp_path: Path) -> None:
    registry.create(tmp_path, _event(), in_store=())
    alice, bob = Player("p01", "Alice", "Nanjing"), Player("p02", "Bob", "Nanjing")
    registry.register_pair(tmp_path, "ux-cup", (alice, bob))
    registry.register_pair(tmp_path, "ux-cup", (Player("p03", "Chen"), Player("p04")))
    with pytest.raises(RegistrationRefused, match="p02"):
        registry.register_pair(tmp_path, "ux-cup", (Player("p02"), Player("p05")))
    event = registry.check_in(tmp_path, "ux-cup", 1, by="desk")
    assert event.players["p01"] == alice and event.players["p04"].name is None
    assert event.pairs[0].checked_in is None
    assert event.pairs[1].checked_in is not None and event.pairs[1].checked_in.by == "desk"
    assert registry.load(tmp_path, "ux-cup") == event
    with pytest.raises(IndexError):
        registry.check_in(tmp_path, "ux-cup", 2, by="desk")


def test_a_round_keeps_its_first_draw(tmp_path: Path) -> None:
    registry.create(tmp_path, _event(), in_store=())
    seats = {"1": {"E": "p01", "N": "p03", "W": "p02", "S": "p04"}}
    drawn = registry.record_draw(tmp_path, "ux-cup", 1, seats, ("p05", "p06"))
    again = registry.record_draw(tmp_path, "ux-cup", 1, {"1": {"E": "x", "N": "y", "W": "z", "S": "w"}}, None)
    assert again == drawn and drawn.bye == ("p05", "p06")
    event = registry.load(tmp_path, "ux-cup")
    assert event is not None and event.rounds[1].tables == seats and event.last_drawn == 1


def test_overrides_are_kept_for_any_event(tmp_path: Path) -> None:
    """Registered or only in the store: each override is added to the ones before."""
    first = registry.record_override(tmp_path, "league", 2, "referee", ["4"], ["p07+p08", "p09+p10"])
    second = registry.record_override(tmp_path, "league", 3, "admin", [], ["p07+p08"])
    assert registry.overrides(tmp_path, "league") == [first, second]
    assert first.stamp.by == "referee" and first.missing_tables == ("4",) and first.round == 2
    assert registry.overrides(tmp_path, "other") == []


def test_confirmation_is_a_setting_of_the_event(tmp_path: Path) -> None:
    registry.create(tmp_path, _event(), in_store=())
    assert registry.set_confirmation(tmp_path, "ux-cup", True).confirmation
    with pytest.raises(registry.UnknownEvent):
        registry.set_confirmation(tmp_path, "other", True)
