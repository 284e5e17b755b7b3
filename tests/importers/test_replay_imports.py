"""Converted logs replay under the rules engine (events.md "Validation").

Full NJUPT games replay ``valid`` under the ``njupt`` ruleset (rules.md §10) and one client's
recording ``partial``; the Botzone fixtures replay ``valid`` under ``national``, the single deals
that start mid-match too (``match_start.start_state``, docs/event-extensions.md). A fault the
converter cannot see (a card the player does not hold) is kept and located by the replay.
"""

from __future__ import annotations

import copy
import json
from pathlib import Path

import pytest
from importer_fixtures import (
    BOTZONE_4DEALS,
    BOTZONE_DEAL1,
    BOTZONE_DEAL2,
    BOTZONE_DEAL4,
    EXCERPT,
    EXCERPT_FILES,
    SHARED_NJUPT,
    needs_shared,
)

from importers import convert_botzone, convert_njupt_client, convert_njupt_game, convert_path
from replay import replay_match
from replay.errors import ErrorCode


def test_excerpt_is_valid_up_to_its_cut() -> None:
    """Three deals of game-0 pass every check; the only fault is the missing match_end."""
    for events in (convert_njupt_game(EXCERPT_FILES), convert_njupt_client(EXCERPT / "client-3.jsonl")):
        result = replay_match(events)
        assert result.status == "invalid"
        assert result.error is not None
        assert (result.error.code, result.error.seq) == (ErrorCode.INCOMPLETE_MATCH, len(events))


@pytest.mark.parametrize(
    "fixture", [BOTZONE_4DEALS, BOTZONE_DEAL1, BOTZONE_DEAL2, BOTZONE_DEAL4], ids=lambda p: p.name
)
def test_botzone_fixtures_replay_valid(fixture: Path) -> None:
    result = replay_match(convert_botzone(fixture))
    assert (result.status, result.error) == ("valid", None)


def test_a_card_not_in_hand_is_kept_and_located_by_the_replay(tmp_path: Path) -> None:
    """A well-formed Botzone answer playing a card the seat lacks converts; the replay names its seq."""
    log = json.loads(BOTZONE_DEAL1.read_text())
    hands = {p: {c % 54 for c in r["deliver"]} for p, r in log[0]["output"]["content"].items()}
    answers = [(i, e["0"]["response"]) for i, e in enumerate(log) if "0" in e]
    index = next(i for i, r in answers if len(r) == 2 and len(r[0]) == 1)
    stranger = min(hands["1"] - hands["0"])
    log[index]["0"]["response"] = [[stranger], [stranger]]
    path = tmp_path / "stranger.botzone.json"
    path.write_text(json.dumps(log))
    events = convert_botzone(path)
    result = replay_match(events)
    assert result.error is not None and result.error.code == ErrorCode.CARD_NOT_IN_HAND
    bad = events[result.error.seq]
    assert bad["type"] == "play" and bad["seat"] == "E"


@needs_shared
@pytest.mark.parametrize("game", ["game-0", "game-1"])
def test_shared_njupt_games_replay_valid(game: str) -> None:
    """The real recordings: valid as a four-client game, partial from each single client."""
    events = convert_path(SHARED_NJUPT / game)
    assert (replay_match(events).status, replay_match(events).error) == ("valid", None)
    assert events[-1]["type"] == "match_end"
    for k in range(4):
        single = convert_njupt_client(SHARED_NJUPT / game / f"client-{k}.jsonl")
        assert replay_match(single).status == "partial"


@needs_shared
def test_the_njupt_ruleset_is_what_makes_game_0_valid() -> None:
    """Under the rule books' double-tribute routing the same game breaks at its first one (§6, §10)."""
    events = copy.deepcopy(convert_path(SHARED_NJUPT / "game-0"))
    events[0]["rules"] = "national"
    result = replay_match(events)
    assert result.error is not None and result.error.code == ErrorCode.WRONG_TRIBUTE_ROUTE
    assert events[result.error.seq]["type"] == "tribute"


def test_without_start_state_a_deal_drawn_at_another_level_cannot_open_a_match() -> None:
    """Plain event v1 opens every match at 2 (rules.md §2): the same Botzone deal at level 4,
    stripped of its ``start_state`` extension, is reported at its deal_start as before."""
    events = convert_botzone(BOTZONE_DEAL2)
    del events[0]["start_state"]
    assert events[1]["level"] == "4"
    result = replay_match(events)
    assert result.error is not None
    assert (result.error.code, result.error.seq) == (ErrorCode.WRONG_DECLARERS, 1)
    events[1]["declarers"] = None
    result = replay_match(events)
    assert result.error is not None
    assert (result.error.code, result.error.seq) == (ErrorCode.WRONG_LEVEL, 1)
