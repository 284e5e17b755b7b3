"""Botzone single deals that start mid-match → ``match_start.start_state`` (docs/event-extensions.md).

Botzone's judge plays one deal per match from a drawn level, often with a tribute from the previous
deal's finishing order (its ``global`` block, in a short and a long variant). The importer states
that situation so the replay checks deal 1 like a later deal (rules.md §2, §6).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from importer_fixtures import BOTZONE_DEAL1, BOTZONE_DEAL2, BOTZONE_DEAL4

from importers import ConversionError, convert_botzone
from importers.botzone import start_state
from replay import replay_match
from replay.errors import ErrorCode


def _short_variant(log: list[Any]) -> None:
    """Rewrite every ``global`` block to the short variant: no resist/cards, -1 for "no seat"."""
    for entry in log:
        for request in (entry.get("output") or {}).get("content", {}).values():
            if isinstance(request, dict) and "global" in request:
                g = request["global"]
                request["global"] = {
                    "level": g["level"],
                    "tribute": g["tribute"],
                    "first": -1 if g["first"] is None else g["first"],
                    "last": -1 if g["last"] is None else g["last"],
                }


def _rewrite(source: Path, target: Path, change: Any = None) -> Path:
    log = json.loads(source.read_text())
    if change is not None:
        change(log)
    target.write_text(json.dumps(log))
    return target


@pytest.mark.parametrize(
    ("level", "payers", "first", "last", "state"),
    [
        ("2", 0, None, None, None),  # a first deal: plain event v1
        ("7", 0, None, None, {"levels": {"EW": "7", "NS": "7"}}),  # a drawn level, no previous deal
        ("4", 0, 1, None, {"levels": {"EW": "4", "NS": "4"}, "declarers": "NS"}),  # no tribute due
        # single tribute, the 4th an opponent: the 1st's partner was 3rd (2nd is a double win, §6)
        (
            "4",
            1,
            0,
            3,
            {"levels": {"EW": "4", "NS": "4"}, "declarers": "EW", "previous_order": ["E", "N", "W", "S"]},
        ),
        (
            "9",
            1,
            3,
            2,
            {"levels": {"EW": "9", "NS": "9"}, "declarers": "NS", "previous_order": ["S", "E", "N", "W"]},
        ),
        # a 1-4 finish: the partner pays; the opponents' places are listed in play order
        (
            "K",
            1,
            2,
            0,
            {"levels": {"EW": "K", "NS": "K"}, "declarers": "EW", "previous_order": ["W", "S", "N", "E"]},
        ),
        # double tribute: a double win, two seats suffice (events.md deal_end)
        ("7", 2, 1, 2, {"levels": {"EW": "7", "NS": "7"}, "declarers": "NS", "previous_order": ["N", "S"]}),
    ],
)
def test_start_state_from_the_global_block(
    level: str, payers: int, first: int | None, last: int | None, state: dict[str, Any] | None
) -> None:
    assert start_state(level, payers, first, last) == state


@pytest.mark.parametrize("variant", ["long", "short"])
@pytest.mark.parametrize(
    ("fixture", "state", "deal", "tributes"),
    [
        (
            BOTZONE_DEAL2,
            {"levels": {"EW": "4", "NS": "4"}, "declarers": "EW", "previous_order": ["E", "N", "W", "S"]},
            {"level": "4", "declarers": "EW", "tribute_kind": "single", "leader": "S"},
            [("single", "S", "E", "C4", "D5")],
        ),
        (
            BOTZONE_DEAL4,
            {"levels": {"EW": "7", "NS": "7"}, "declarers": "NS", "previous_order": ["N", "S"]},
            {"level": "7", "declarers": "NS", "tribute_kind": "double", "leader": "W"},
            [("double", "W", "N", "D7", "D8"), ("double", "E", "S", "SA", "H4")],
        ),
    ],
    ids=lambda x: x.name if isinstance(x, Path) else "",
)
def test_single_deal_with_tribute_replays_valid_with_the_right_rows(
    tmp_path: Path,
    variant: str,
    fixture: Path,
    state: dict[str, Any],
    deal: dict[str, Any],
    tributes: list[tuple[str, ...]],
) -> None:
    """Both ``global`` variants give the same ``start_state``; deal 1 is checked and recorded at the
    drawn level with its declarers and tribute (rules.md §2, §6)."""
    path = _rewrite(fixture, tmp_path / "deal.botzone.json", _short_variant if variant == "short" else None)
    events = convert_botzone(path)
    assert events[0]["start_state"] == state
    result = replay_match(events)
    assert (result.status, result.error) == ("valid", None)
    (row,) = result.rows["deals"]
    level = state["levels"]["EW"]
    assert {k: row[k] for k in deal} == deal
    assert (row["deal_no"], row["level_EW_before"], row["level_NS_before"]) == (1, level, level)
    assert row["winning_team"] == result.rows["matches"][0]["winner"] != state["declarers"]
    after = {"EW": row["level_EW_after"], "NS": row["level_NS_after"]}
    assert after[state["declarers"]] == level and after[row["winning_team"]] != level
    match = result.rows["matches"][0]
    assert (match["start_level_EW"], match["start_level_NS"]) == (level, level)
    got = [
        (t["kind"], t["giver"], t["receiver"], t["card"], t["return_card"]) for t in result.rows["tributes"]
    ]
    assert got == tributes


def _lower_tribute(log: list[Any]) -> None:
    """S pays a low card of its hand instead of its highest (rules.md §6)."""
    deal = next(e for e in log if "output" in e)["output"]["content"]["3"]["deliver"]
    index = next(i for i, e in enumerate(log) if "3" in e and e["3"]["response"] != [])
    paid = log[index]["3"]["response"][0]
    low = next(c for c in deal if c % 54 < 52 and c % 54 // 4 in (1, 2) and c != paid)
    log[index]["3"]["response"] = [low]


def test_a_wrong_tribute_card_is_caught_at_its_seq(tmp_path: Path) -> None:
    events = convert_botzone(_rewrite(BOTZONE_DEAL2, tmp_path / "low.botzone.json", _lower_tribute))
    result = replay_match(events)
    assert result.error is not None
    tribute = next(e for e in events if e["type"] == "tribute")
    assert (result.error.code, result.error.seq) == (ErrorCode.WRONG_TRIBUTE_CARD, tribute["seq"])
    assert tribute["card"] in result.error.message


def _deal_globals(log: list[Any], **changes: Any) -> None:
    for request in log[0]["output"]["content"].values():
        request["global"].update(changes)


def test_a_single_deal_at_a_passed_by_the_declarers_ends_passed_a(tmp_path: Path) -> None:
    """rules.md §7: declarers at A, 1st with the partner 3rd, pass A: ``match_end`` says so."""
    path = _rewrite(
        BOTZONE_DEAL1, tmp_path / "a.botzone.json", lambda log: _deal_globals(log, level="A", first=2, last=1)
    )
    events = convert_botzone(path)
    assert events[0]["start_state"] == {"levels": {"EW": "A", "NS": "A"}, "declarers": "EW"}
    assert events[-1] == {**events[-1], "type": "match_end", "reason": "passed_a", "winner": "EW"}


def test_a_double_tribute_from_the_winners_team_is_a_conversion_error(tmp_path: Path) -> None:
    path = _rewrite(
        BOTZONE_DEAL4,
        tmp_path / "bad.botzone.json",
        lambda log: _deal_globals(log, first=1, last=3),
    )
    with pytest.raises(ConversionError) as caught:
        convert_botzone(path)
    assert caught.value.field == "log[0].output.content.0.global.last"
    assert "an opponent of first" in caught.value.expected
