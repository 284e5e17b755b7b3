"""Which teams of a round have no result (scoring/pairing.py ``missing_results``): pairing the
next round by §S8 needs every team's result (scoring.md §S8: all teams are paired, at most one
bye a round)."""

from __future__ import annotations

from scoring.pairing import MissingResults, missing_results

TEAMS = ["a", "b", "c", "d", "e", "f", "g", "h"]


def test_a_drawn_table_without_a_result_is_missing() -> None:
    drawn = {"1": ("a", "b"), "2": ("c", "d"), "3": ("e", "f"), "4": ("g", "h")}
    found = missing_results(1, [], ["a", "b", "c", "d", "e", "f"], drawn)
    assert found == MissingResults(1, ("g", "h"), ("4",))
    assert missing_results(1, [], TEAMS, drawn) is None


def test_without_a_draw_teams_beyond_one_bye_are_missing() -> None:
    assert missing_results(2, TEAMS, TEAMS[:6]) == MissingResults(2, ("g", "h"))
    assert missing_results(2, TEAMS[:7], TEAMS[:6]) is None  # 7 teams: one bye
    assert missing_results(2, TEAMS[:7], TEAMS[:4]) == MissingResults(2, ("e", "f", "g"))


def test_a_duplicate_rooms_table_without_a_result_is_missing() -> None:
    """§S9: a and b meet in both rooms of board 1 (tables 1 and 2); the closed room's table 2 has
    no match although both pairs played the open room, so it and its pairs are missing."""
    drawn = {"1": ("a", "b"), "2": ("b", "a"), "3": ("c", "d"), "4": ("d", "c")}
    found = missing_results(1, [], ["a", "b", "c", "d"], drawn, played_tables={"1", "3", "4"})
    assert found == MissingResults(1, ("a", "b"), ("2",))
    assert missing_results(1, [], ["a", "b", "c", "d"], drawn, played_tables=set(drawn)) is None
