"""Botzone GuanDan logs → event v1: card ids, claims (rules.md §3), log walking and damage.

The committed Botzone fixtures were written from the first deals of the NJUPT game-1 (see
``fixtures/build_fixtures.py``), so with ``shared/`` present the two importers must agree
move by move.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st
from importer_fixtures import BOTZONE_4DEALS, BOTZONE_DEAL1, SHARED_NJUPT, needs_shared

from importers import ConversionError, convert_botzone, convert_njupt_game
from importers.botzone import card_of_id
from importers.claims import classify_claim

SEQ = "A23456789TJQKA"


@pytest.mark.parametrize(
    ("card_id", "card"),
    [
        (0, "HA"),
        (1, "DA"),
        (2, "SA"),
        (3, "CA"),
        (4, "H2"),
        (51, "CK"),
        (52, "SB"),
        (53, "HR"),
        (54, "HA"),
        (105, "CK"),
        (106, "SB"),
        (107, "HR"),
    ],
)
def test_card_ids(card_id: int, card: str) -> None:
    """``id % 54``: 52 small joker, 53 big joker, else divmod(·, 4) → rank A,2,…,K, suit h,d,s,c."""
    assert card_of_id(card_id) == card


def test_the_108_ids_are_two_full_decks() -> None:
    counts = Counter(card_of_id(i) for i in range(108))
    assert len(counts) == 54 and set(counts.values()) == {2}


@pytest.mark.parametrize(
    ("claim", "combo"),
    [
        (["S5"], ("single", "5")),
        (["HR"], ("single", "R")),
        (["SB", "SB"], ("pair", "B")),
        (["SB", "HR"], None),
        (["S9", "H9", "D9"], ("triple", "9")),
        (["SB", "SB", "SB"], None),
        (["SK", "HK", "CK", "S6", "D6"], ("full_house", "K")),
        (["SK", "HK", "CK", "SB", "SB"], ("full_house", "K")),
        (["HA", "S2", "C3", "D4", "S5"], ("straight", "A")),
        (["ST", "SJ", "SQ", "SK", "SA"], ("straight_flush", "T")),
        (["SJ", "SQ", "SK", "SA", "S2"], None),
        (["SA", "HA", "S2", "H2", "S3", "D3"], ("tube", "A")),
        (["SK", "HK", "DK", "SA", "HA", "CA"], ("plate", "K")),
        (["S7", "H7", "C7", "D7"], ("bomb", "7")),
        (["S7"] * 10, ("bomb", "7")),
        (["SB", "HR", "SB", "HR"], ("joker_bomb", "JOKER")),
        (["S3", "S4"], None),
    ],
)
def test_claims_read_as_one_combination(claim: list[str], combo: tuple[str, str] | None) -> None:
    """rules.md §3 shapes; sequences ranked by their lowest card, A low or high (events.md)."""
    assert classify_claim(claim) == combo


@given(st.integers(0, len(SEQ) - 5), st.lists(st.sampled_from("SHCD"), min_size=5, max_size=5))
def test_any_five_card_run_reads_as_straight_or_flush(start: int, suits: list[str]) -> None:
    """A run of 5 is a straight ranked by its lowest card; one suit makes it a straight flush (§3)."""
    cards = [s + r for s, r in zip(suits, SEQ[start : start + 5], strict=True)]
    kind = "straight_flush" if len(set(suits)) == 1 else "straight"
    assert classify_claim(cards) == (kind, SEQ[start])


def test_four_deal_log_converts() -> None:
    """Deals follow one another in one ``deals`` match under the rule books (national)."""
    events = convert_botzone(BOTZONE_4DEALS)
    assert [e["seq"] for e in events] == list(range(len(events)))
    start, end = events[0], events[-1]
    assert (start["rules"], start["format"]) == ("national", {"kind": "deals", "deals": 4})
    assert end == {**end, "type": "match_end", "reason": "deals", "winner": None}
    deals = [e for e in events if e["type"] == "deal_start"]
    assert [(d["deal"], d["level"], d["declarers"], d["leader"]) for d in deals] == [
        (1, "2", None, "E"),
        (2, "4", "EW", "S"),
        (3, "4", "NS", "W"),
        (4, "7", "NS", "W"),
    ]
    assert all(len(hand) == 27 for d in deals for hand in d["hands"].values())
    transfers = [
        (e["type"], e["from"], e["to"], e["card"]) for e in events if e["type"] in ("tribute", "return")
    ]
    assert transfers[-4:] == [
        ("tribute", "W", "N", "D7"),
        ("tribute", "E", "S", "SA"),
        ("return", "N", "W", "D8"),
        ("return", "S", "E", "H4"),
    ], "the level card D7 outranks SA, so the 1st (N) takes it (rules.md §2, §6)"
    orders = [e["order"] for e in events if e["type"] == "deal_end"]
    assert orders == [["E", "N", "W", "S"], ["N", "E", "S", "W"], ["N", "S"], ["E", "W"]]


@needs_shared
def test_botzone_and_njupt_importers_agree_on_the_same_deals() -> None:
    """The fixture re-serialises game-1's first deals: every deal event must come out the same."""
    botzone = convert_botzone(BOTZONE_4DEALS)
    njupt = convert_njupt_game([SHARED_NJUPT / "game-1" / f"client-{k}.jsonl" for k in range(4)])

    def comparable(events: list[dict[str, Any]]) -> list[dict[str, Any]]:
        return [{k: v for k, v in e.items() if k not in ("match", "levels")} for e in events]

    assert comparable(botzone[1:-1]) == comparable(njupt[1 : len(botzone) - 1])


def test_single_deal_log_is_one_deal_match() -> None:
    events = convert_botzone(BOTZONE_DEAL1)
    assert events[0]["format"] == {"kind": "deals", "deals": 1}
    assert [e["type"] for e in events].count("deal_start") == 1
    assert events[-1] == {**events[-1], "type": "match_end", "winner": "EW"}


def _edit(change: Callable[[list[Any]], None]) -> Callable[[Path], Path]:
    def apply(target: Path) -> Path:
        log = json.loads(BOTZONE_DEAL1.read_text())
        change(log)
        target.write_text(json.dumps(log))
        return target

    return apply


def _set_request(entry: int, player: str, key: str, value: object) -> Callable[[list[Any]], None]:
    def change(log: list[Any]) -> None:
        log[entry]["output"]["content"][player][key] = value

    return change


def _set_response(entry: int, player: str, value: object) -> Callable[[list[Any]], None]:
    def change(log: list[Any]) -> None:
        log[entry][player]["response"] = value

    return change


def _first_play(log: list[Any]) -> int:
    return next(
        i
        for i, e in enumerate(log)
        if "output" in e
        and "0" in e["output"]["content"]
        and e["output"]["content"]["0"].get("stage") == "play"
    )


FIRST_PLAY = _first_play(json.loads(BOTZONE_DEAL1.read_text()))


def _write_text(text: str) -> Callable[[Path], Path]:
    def apply(target: Path) -> Path:
        target.write_text(text)
        return target

    return apply


@pytest.mark.parametrize(
    ("damage", "field", "expected"),
    [
        (_write_text("[{"), None, "a JSON document"),
        (_write_text('{"moves": []}'), "log", "a JSON array"),
        (_edit(_set_request(0, "1", "deliver", [1, 2, 3])), "log[0].output.content.1.deliver", "27 card ids"),
        (
            _edit(_set_request(0, "2", "deliver", [200] * 27)),
            "log[0].output.content.2.deliver[0]",
            "a card id",
        ),
        (_edit(_set_request(0, "3", "your_id", 1)), "log[0].output.content.3.your_id", "3 (the player"),
        (
            _edit(_set_request(0, "0", "global", {"level": "Z"})),
            "log[0].output.content.0.global.level",
            "a level",
        ),
        (_edit(_set_request(0, "0", "global", None)), "log[0].output.content.0.global", "an object"),
        (
            _edit(_set_request(FIRST_PLAY, "0", "stage", "bid")),
            f"log[{FIRST_PLAY}].output.content.0.stage",
            "deal, tribute, return or play",
        ),
        (
            _edit(_set_response(FIRST_PLAY + 1, "0", [[0, 1]])),
            f"log[{FIRST_PLAY + 1}].0.response",
            "[cards, claim]",
        ),
        (
            _edit(_set_response(FIRST_PLAY + 1, "0", [[0, 5], [0]])),
            f"log[{FIRST_PLAY + 1}].0.response[1]",
            "a claim of as many cards",
        ),
        (
            _edit(_set_response(FIRST_PLAY + 1, "0", [[0, 5], [0, 5]])),
            f"log[{FIRST_PLAY + 1}].0.response[1]",
            "a claim forming one combination",
        ),
        (
            _edit(lambda log: log[FIRST_PLAY + 1].clear()),
            f"log[{FIRST_PLAY + 1}].0",
            "the answer to the play",
        ),
        (_edit(lambda log: log.insert(0, 7)), "log[0]", "an object"),
    ],
)
def test_damaged_log_is_reported_with_its_position(
    tmp_path: Path, damage: Callable[[Path], Path], field: str | None, expected: str
) -> None:
    """Damaged Botzone logs → ConversionError naming the log entry and field (``log[i]…``)."""
    path = damage(tmp_path / "bad.botzone.json")
    with pytest.raises(ConversionError) as caught:
        convert_botzone(path)
    assert (caught.value.path, caught.value.field) == (path, field)
    assert expected in caught.value.expected
