"""NJUPT platform recordings → event v1 (events.md), on the committed excerpt of game-0.

The excerpt holds the first three deals of game-0 as each client received them: deal 1 has
no tribute, deal 2 a double tribute, deal 3 an anti-tribute (rules.md §6, §10).
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from importer_fixtures import EXCERPT, EXCERPT_FILES, read_jsonl, write_jsonl

from importers import ConversionError, convert_njupt_client, convert_njupt_game, convert_path
from importers.common import RANKS

Messages = list[dict[str, Any]]


@pytest.fixture(scope="module")
def game_events() -> list[dict[str, Any]]:
    return convert_njupt_game(EXCERPT_FILES)


def of_type(events: list[dict[str, Any]], kind: str) -> list[dict[str, Any]]:
    return [e for e in events if e["type"] == kind]


def test_envelope_and_match_start(game_events: list[dict[str, Any]]) -> None:
    """events.md "Framing": v 1, one match id, seq 0, 1, 2, … without gaps; njupt / until_a."""
    assert [e["seq"] for e in game_events] == list(range(len(game_events)))
    assert {e["v"] for e in game_events} == {1}
    assert len({e["match"] for e in game_events}) == 1
    start = game_events[0]
    assert start["type"] == "match_start"
    assert (start["rules"], start["format"]) == ("njupt", {"kind": "until_a"})
    assert list(start["seats"]) == ["E", "N", "W", "S"]
    assert Counter(e["type"] for e in game_events)["deal_start"] == 3
    assert not of_type(game_events, "match_end"), "the excerpt stops mid-match"


def test_hands_map_seats_0123_to_ENWS(game_events: list[dict[str, Any]]) -> None:
    """Platform seat k is SEATS[k]: 0→E, 1→N, 2→W, 3→S (rules.md §1), from each beginning."""
    deal1 = of_type(game_events, "deal_start")[0]
    for k, seat in enumerate("ENWS"):
        beginning = read_jsonl(EXCERPT / f"client-{k}.jsonl")[0]
        assert deal1["hands"][seat] == beginning["handCards"]
    cards = Counter(c for hand in deal1["hands"].values() for c in hand)
    assert len(cards) == 54 and set(cards.values()) == {2}, "two full decks (rules.md §1)"
    assert (deal1["level"], deal1["declarers"], deal1["leader"]) == ("2", None, "E")


def test_tribute_anti_tribute_and_results(game_events: list[dict[str, Any]]) -> None:
    """Double tribute each loser to his 上家 (rules.md §10, NJUPT); anti-tribute seats; results."""
    deal2 = of_type(game_events, "deal_start")[1]
    assert (deal2["level"], deal2["declarers"], deal2["leader"]) == ("5", "EW", "S")
    routes = [
        (e["type"], e["from"], e["to"], e["card"]) for e in game_events if e["type"] in ("tribute", "return")
    ]
    assert routes == [
        ("tribute", "S", "W", "HR"),
        ("tribute", "N", "E", "CA"),
        ("return", "W", "S", "C9"),
        ("return", "E", "N", "S7"),
    ]
    assert [e["seats"] for e in of_type(game_events, "anti_tribute")] == [["N", "S"]]
    ends = of_type(game_events, "deal_end")
    assert [e["order"] for e in ends] == [["E", "W"], ["E", "W"], ["W", "S", "E", "N"]]
    assert [e.get("levels") for e in ends] == [{"EW": "5", "NS": "2"}, {"EW": "8", "NS": "2"}, None]


def test_plays_carry_the_platform_reading(game_events: list[dict[str, Any]]) -> None:
    """Every play has ``combo`` {type, rank} from the platform action (events.md "reading")."""
    plays = of_type(game_events, "play")
    assert plays[0] == {
        **plays[0],
        "seat": "E",
        "cards": ["SQ", "CQ"],
        "combo": {"type": "pair", "rank": "Q"},
    }
    assert plays[2]["combo"] == {"type": "straight_flush", "rank": "3"}
    assert all(p["combo"]["rank"] in RANKS or p["combo"]["rank"] in "BR" for p in plays)
    assert len(of_type(game_events, "pass")) > 0


def _one_play_stream(tmp_path: Path, action: list[Any]) -> Path:
    hand = ["SB", "SB", "HR", "HR", *(["S5"] * 23)]
    path = tmp_path / "one.njupt.jsonl"
    write_jsonl(
        path,
        [
            {
                "type": "notify",
                "stage": "beginning",
                "handCards": hand,
                "myPos": 1,
                "curRank": 2,
                "selfRank": 2,
                "oppoRank": 2,
            },
            {
                "type": "notify",
                "stage": "play",
                "curPos": 1,
                "curAction": action,
                "greaterPos": 1,
                "greaterAction": action,
            },
        ],
    )
    return path


@pytest.mark.parametrize(
    ("action", "combo"),
    [
        (["Single", "B", ["SB"]], {"type": "single", "rank": "B"}),
        (["Pair", "R", ["HR", "HR"]], {"type": "pair", "rank": "R"}),
        (["Trips", "5", ["S5", "S5", "H2"]], {"type": "triple", "rank": "5"}),
        (["ThreeWithTwo", "5", ["S5", "S5", "S5", "SB", "SB"]], {"type": "full_house", "rank": "5"}),
        (["Straight", "A", ["SA", "H2", "S3", "S4", "S5"]], {"type": "straight", "rank": "A"}),
        (["ThreePair", "Q", ["SQ", "SQ", "SK", "SK", "SA", "SA"]], {"type": "tube", "rank": "Q"}),
        (["TwoTrips", "K", ["SK", "SK", "SK", "SA", "SA", "SA"]], {"type": "plate", "rank": "K"}),
        (["StraightFlush", "T", ["ST", "SJ", "SQ", "SK", "SA"]], {"type": "straight_flush", "rank": "T"}),
        (["Bomb", "5", ["S5", "S5", "S5", "S5"]], {"type": "bomb", "rank": "5"}),
        (["Bomb", "JOKER", ["SB", "SB", "HR", "HR"]], {"type": "joker_bomb", "rank": "JOKER"}),
        (["JOKER", "JOKER", ["SB", "SB", "HR", "HR"]], {"type": "joker_bomb", "rank": "JOKER"}),
        (["Bomb", "R", ["SB", "HR", "SB", "HR"]], {"type": "joker_bomb", "rank": "JOKER"}),
        (["FourKings", "R", ["HR", "HR", "SB", "SB"]], {"type": "joker_bomb", "rank": "JOKER"}),
    ],
)
def test_action_types_map_to_combination_ids(
    tmp_path: Path, action: list[Any], combo: dict[str, str]
) -> None:
    """Platform action types → rules.md §3 type ids; the joker bomb's three spellings → JOKER."""
    events = convert_njupt_client(_one_play_stream(tmp_path, action))
    (play,) = of_type(events, "play")
    assert (play["seat"], play["cards"], play["combo"]) == ("N", action[2], combo)
    assert list(of_type(events, "deal_start")[0]["hands"]) == ["N"]


def test_single_client_is_partial_with_the_same_public_events(game_events: list[dict[str, Any]]) -> None:
    """One client's stream: only its own hand (events.md ``deal_start``), all public events."""
    single = convert_njupt_client(EXCERPT / "client-2.jsonl", match_id=game_events[0]["match"])
    assert [list(e["hands"]) for e in of_type(single, "deal_start")] == [["W"]] * 3
    assert single[0]["source"] == {"format": "njupt", "clients": [2]}

    def public(events: list[dict[str, Any]]) -> list[dict[str, Any]]:
        return [{k: v for k, v in e.items() if k not in ("hands", "source")} for e in events]

    assert public(single) == public(game_events)


def _rename(old: str, new: str, stage: str) -> Callable[[Messages], None]:
    def apply(messages: Messages) -> None:
        for m in messages:
            if m["stage"] == stage and old in m:
                m[new] = m.pop(old)

    return apply


def _swap(a: str, b: str) -> Callable[[Messages], None]:
    def apply(messages: Messages) -> None:
        for m in messages:
            if m["type"] == "notify" and m["stage"] == "play":
                m[a], m[b] = m[b], m[a]

    return apply


def _rank_as(kind: Callable[[int], object]) -> Callable[[Messages], None]:
    def apply(messages: Messages) -> None:
        for m in messages:
            if m["stage"] == "beginning":
                for key in ("curRank", "selfRank", "oppoRank"):
                    m[key] = kind(m[key])

    return apply


@pytest.mark.parametrize(
    "drift",
    [
        pytest.param(_rename("handCards", "handCard", "beginning"), id="handCard"),
        pytest.param(_rename("antiNum", "antiNums", "anti-tribute"), id="antiNums"),
        pytest.param(_rank_as(str), id="curRank-digit-string"),
        pytest.param(_rank_as(lambda i: RANKS[i - 2]), id="curRank-rank-string"),
        pytest.param(_swap("curPos", "curAction"), id="curPos-curAction-swapped"),
        pytest.param(_swap("greaterPos", "greaterAction"), id="greaterPos-greaterAction-swapped"),
    ],
)
def test_known_version_drift_is_tolerated(
    excerpt_copy: Path, game_events: list[dict[str, Any]], drift: Callable[[Messages], None]
) -> None:
    """The drift the issue lists converts to exactly the same events."""
    for path in excerpt_copy.iterdir():
        messages = read_jsonl(path)
        drift(messages)
        write_jsonl(path, messages)
    assert convert_njupt_game(sorted(excerpt_copy.iterdir()), match_id=game_events[0]["match"]) == game_events


def _set(line: int, key: str, value: object) -> Callable[[list[str]], None]:
    def apply(lines: list[str]) -> None:
        message = json.loads(lines[line - 1])
        message[key] = value
        lines[line - 1] = json.dumps(message)

    return apply


def _drop(line: int, key: str) -> Callable[[list[str]], None]:
    def apply(lines: list[str]) -> None:
        message = json.loads(lines[line - 1])
        del message[key]
        lines[line - 1] = json.dumps(message)

    return apply


def _replace_line(line: int, text: str) -> Callable[[list[str]], None]:
    def apply(lines: list[str]) -> None:
        lines[line - 1] = text

    return apply


def _delete_line(line: int) -> Callable[[list[str]], None]:
    def apply(lines: list[str]) -> None:
        del lines[line - 1]

    return apply


DAMAGE = [
    pytest.param(_replace_line(2, '{"type": "notify", "stage": '), 2, None, "JSON", id="broken-json"),
    pytest.param(_replace_line(2, "[1, 2]"), 2, None, "a JSON object", id="not-an-object"),
    pytest.param(
        _set(2, "curAction", ["Pair", "Q", ["SQ", "X9"]]), 2, "curAction[2][1]", "a card", id="bad-card"
    ),
    pytest.param(
        _set(2, "curAction", ["Quad", "Q", ["SQ"]]), 2, "curAction[0]", "an action type", id="bad-type"
    ),
    pytest.param(
        _set(2, "curAction", ["Pair", "Z", ["SQ", "CQ"]]), 2, "curAction[1]", "a rank", id="bad-rank"
    ),
    pytest.param(
        _set(2, "curAction", ["Pair", "Q"]), 2, "curAction", "[type, rank, cards]", id="short-action"
    ),
    pytest.param(_set(2, "curPos", 7), 2, "curPos", "a seat number 0-3", id="bad-seat"),
    pytest.param(_drop(2, "curPos"), 2, "curPos", "a field 'curPos'", id="missing-curPos"),
    pytest.param(_drop(1, "handCards"), 1, "handCards", "'handCards' or 'handCard'", id="missing-hand"),
    pytest.param(_set(1, "curRank", 15), 1, "curRank", "a level", id="bad-level"),
    pytest.param(_set(1, "myPos", "one"), 1, "myPos", "a seat number", id="bad-myPos"),
    pytest.param(
        _set(126, "result", [[3, 2]]), 126, "result[0]", "[from seat, to seat, card]", id="bad-tribute"
    ),
    pytest.param(_set(127, "result", []), 127, "result", "a non-empty list", id="empty-back"),
    pytest.param(_set(221, "antiNum", 1), 221, "antiNum", "the number of seats", id="antiNum-mismatch"),
    pytest.param(_set(124, "order", [0, 0, 1, 2]), 124, "order", "the four seats", id="bad-order"),
    pytest.param(_set(2, "stage", "shuffle"), 2, "stage", "one of beginning", id="unknown-stage"),
    pytest.param(_set(2, "type", "broadcast"), 2, "type", "'notify' or 'act'", id="unknown-type"),
    pytest.param(_delete_line(1), 1, "stage", "'beginning' before", id="play-before-beginning"),
]


@pytest.mark.parametrize(("damage", "line", "field", "expected"), DAMAGE)
def test_damaged_recording_is_reported_with_its_position(
    excerpt_copy: Path, damage: Callable[[list[str]], None], line: int, field: str | None, expected: str
) -> None:
    """Damaged input → ConversionError naming file, line, field and what was expected."""
    path = excerpt_copy / "client-1.jsonl"
    lines = path.read_text().splitlines()
    damage(lines)
    path.write_text("\n".join(lines) + "\n")
    with pytest.raises(ConversionError) as caught:
        convert_njupt_client(path)
    error = caught.value
    assert (error.path, error.line, error.field) == (path, line, field)
    assert expected in error.expected
    assert str(error).startswith(f"{path}:{line}: ")


def test_clients_that_disagree_are_reported_in_the_later_file(excerpt_copy: Path) -> None:
    """The four recordings must show the same public messages; the first difference is named."""
    path = excerpt_copy / "client-2.jsonl"
    lines = path.read_text().splitlines()
    message = json.loads(lines[2])
    assert message["stage"] == "play" and message["curPos"] == 1
    message["curPos"] = 3
    lines[2] = json.dumps(message)
    path.write_text("\n".join(lines) + "\n")
    with pytest.raises(ConversionError) as caught:
        convert_njupt_game(sorted(excerpt_copy.iterdir()))
    assert (caught.value.path, caught.value.line) == (path, 3)
    assert "client-0.jsonl:4" in str(caught.value)


def test_game_folder_needs_one_recording_per_seat(excerpt_copy: Path) -> None:
    (excerpt_copy / "client-3.jsonl").unlink()
    with pytest.raises(ConversionError, match=r"client-3\.jsonl"):
        convert_path(excerpt_copy)
    (excerpt_copy / "client-3.jsonl").write_bytes((excerpt_copy / "client-2.jsonl").read_bytes())
    with pytest.raises(ConversionError, match="one recording per seat 0-3"):
        convert_path(excerpt_copy)


def test_a_recording_of_two_games_gives_two_matches(tmp_path: Path) -> None:
    """``gameOver`` ends a platform game; the next ``beginning`` starts a new match."""
    messages = read_jsonl(EXCERPT / "client-0.jsonl")
    over = {"type": "notify", "stage": "gameOver", "curTimes": 1, "settingTimes": 2}
    path = tmp_path / "two.jsonl"
    write_jsonl(path, [*messages, over, *messages, {**over, "curTimes": 2}])
    events = convert_njupt_client(path, match_id="m")
    assert [e["match"] for e in events if e["type"] == "match_start"] == ["m-g1", "m-g2"]
    assert [e["seq"] for e in events if e["match"] == "m-g2"] == list(range(len(events) // 2))
    assert [(e["match"], e["reason"], e["winner"]) for e in of_type(events, "match_end")] == [
        ("m-g1", "passed_a", "EW"),
        ("m-g2", "passed_a", "EW"),
    ]


def test_a_cut_recording_converts_up_to_its_last_message(tmp_path: Path) -> None:
    """A recording cut mid-deal keeps every move it has; no deal_end/match_end is invented."""
    path = tmp_path / "cut.jsonl"
    write_jsonl(path, read_jsonl(EXCERPT / "client-0.jsonl")[:150])
    events = convert_njupt_client(path)
    kinds = Counter(e["type"] for e in events)
    assert (kinds["deal_start"], kinds["deal_end"], kinds["match_end"]) == (2, 1, 0)
    assert events[-1]["type"] in ("play", "pass")
