"""Standings and tie-break chains of scoring.md §S7 on hand-built Swiss events."""

from __future__ import annotations

from dataclasses import replace

import polars as pl
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scoring_builders import deals, match, matches

from scoring.params import BY_RULESET
from scoring.round_scores import score_matches
from scoring.standings import standings

AB, CD, EF, GH, IJ, KL = ("a", "b"), ("c", "d"), ("e", "f"), ("g", "h"), ("i", "j"), ("k", "l")


def _winner(final: tuple[str, str]) -> str | None:
    return None if final[0] == final[1] else ("EW" if final[0] > final[1] else "NS")


Game = tuple[int, tuple[str, str], tuple[str, str], tuple[str, str]]


def swiss(rules: str, games: list[Game]) -> pl.DataFrame:
    """Matches of a Swiss event from (round, EW team, NS team, final levels) with digit levels."""
    rows = [
        match(f"r{rnd}-{i}", ew, ns, final, _winner(final), rnd=rnd, rules=rules)
        for i, (rnd, ew, ns, final) in enumerate(games)
    ]
    return matches(*rows)


# Two teams tied on match points (g+h, k+l); g+h beat k+l; k+l has the better opponents' score.
TWO_TIED = [
    (1, GH, KL, ("4", "3")),
    (1, IJ, EF, ("3", "4")),
    (1, AB, CD, ("4", "4")),
    (2, CD, EF, ("4", "4")),
    (2, GH, IJ, ("3", "4")),
    (2, KL, AB, ("4", "3")),
    (3, KL, EF, ("4", "3")),
    (3, AB, IJ, ("5", "3")),
    (3, CD, GH, ("3", "4")),
]
# Four teams on 4 match points; i+j and g+h stay equal down to the previous-round ranking,
# which puts i+j above g+h although g+h beat i+j in round 3.
MANY_TIED = [
    (1, EF, AB, ("4", "4")),
    (1, GH, CD, ("4", "3")),
    (1, IJ, KL, ("4", "3")),
    (2, KL, CD, ("4", "3")),
    (2, IJ, AB, ("4", "3")),
    (2, GH, EF, ("3", "4")),
    (3, IJ, GH, ("3", "4")),
    (3, EF, CD, ("4", "4")),
    (3, AB, KL, ("3", "5")),
]


def final_table(games: list, rules: str = "national", overrides: dict | None = None) -> pl.DataFrame:
    s = score_matches(swiss(rules, games), deals(), overrides=overrides)
    table = standings(s, overrides)
    return table.filter(pl.col("after_round") == table["after_round"].max()).sort("rank", "team_id")


def test_two_tied_head_to_head_decides_s7() -> None:
    """§S7 two tied: level points, then head-to-head (before opponents' score)."""
    t = final_table(TWO_TIED)
    top = t.head(2).to_dicts()
    assert [r["team_id"] for r in top] == ["g+h", "k+l"]
    assert [r["match_points"] for r in top] == [4.0, 4.0]
    assert [r["level_points"] for r in top] == [40.0, 40.0]
    assert [r["head_to_head"] for r in top] == [2.0, 0.0]
    assert top[1]["opponents_score"] > top[0]["opponents_score"]
    assert top[1]["decided_by"] == "head_to_head"


def test_without_head_to_head_opponents_score_decides() -> None:
    """The same two teams under a chain without head-to-head: opponents' score reverses them."""
    p = BY_RULESET["national"]
    no_h2h = replace(p, standings=replace(p.standings, two_tied=p.standings.many_tied))
    t = final_table(TWO_TIED, overrides={"ev": no_h2h})
    assert t.head(2)["team_id"].to_list() == ["k+l", "g+h"]
    assert t.row(1, named=True)["decided_by"] == "opponents_score"


def test_three_or_more_tied_skip_head_to_head_s7() -> None:
    """§S7 three or more tied: no head-to-head, so previous rank decides i+j over g+h."""
    t = final_table(MANY_TIED)
    assert t["team_id"].to_list() == ["k+l", "i+j", "g+h", "e+f", "c+d", "a+b"]
    assert t["rank"].to_list() == [1, 2, 3, 4, 5, 6]
    assert t["decided_by"].to_list() == [
        None,
        "level_points",
        "previous_rank",
        "wins",
        "match_points",
        "level_points",
    ]
    gh, ij = t.row(2, named=True), t.row(1, named=True)
    assert (ij["previous_rank"], gh["previous_rank"]) == (1, 4)
    assert gh["head_to_head"] is None and ij["head_to_head"] is None


def test_huaian_level_points_between_the_tied_s7() -> None:
    """`huaian` Art. 26–27: match points, level points, then level points between the tied."""
    t = final_table(TWO_TIED, rules="huaian")
    top = t.head(2).to_dicts()
    assert [r["team_id"] for r in top] == ["g+h", "k+l"]
    assert [r["tied_level_points"] for r in top] == [14.0, 12.0]
    assert top[1]["decided_by"] == "tied_level_points"


@pytest.mark.parametrize(("rules", "ranks"), [("jiangsu", [1, 2]), ("national", [1, 1])])
def test_jiangsu_levels_gained_and_shared_rank_s7(rules: str, ranks: list[int]) -> None:
    """`jiangsu`: total points, level points, levels gained; `national` leaves them level (shared)."""
    games = [(1, AB, CD, ("5", "4")), (1, EF, GH, ("3", "2"))]
    t = final_table(games, rules=rules).filter(pl.col("match_points") == 2.0)
    assert t["team_id"].to_list() == ["a+b", "e+f"]
    assert t["rank"].to_list() == ranks
    assert t["levels_gained"].to_list() == [3, 1]


def test_bcta_ranks_by_round_score_by_policy() -> None:
    games = [(1, AB, CD, ("5", "2")), (1, EF, GH, ("9", "8"))]
    t = final_table(games, rules="bcta")
    assert t["team_id"].head(2).to_list() == ["a+b", "e+f"]
    assert t["primary_key"].unique().to_list() == ["bcta_round_score"]
    assert t["bcta_round_score"].head(2).to_list() == [250, 200]


def test_bye_and_deductions_enter_the_totals() -> None:
    """A bye gives 1.5 and 17 (§S2); a deduction comes off the event total (rules.md §8)."""
    m = swiss("national", [(1, AB, CD, ("4", "3")), (2, AB, EF, ("4", "3")), (3, CD, EF, ("4", "3"))])
    ded = pl.DataFrame({"match_id": ["r1-0"], "team": ["EW"], "match_points": [0.5], "level_points": [2.0]})
    t = standings(score_matches(m, deals(), ded)).filter(pl.col("after_round") == 3).sort("team_id")
    ab = t.row(0, named=True)
    assert (ab["team_id"], ab["byes"], ab["wins"]) == ("a+b", 1, 2)
    assert ab["match_points"] == 2 + 2 + 1.5 - 0.5
    assert ab["level_points"] == 14 + 14 + 17 - 2
    assert (ab["deducted_match_points"], ab["deducted_level_points"]) == (0.5, 2.0)


def test_standings_after_every_round_and_round_robin_skips_opponents_score() -> None:
    p = BY_RULESET["national"]
    rr = replace(p, standings=replace(p.standings, round_robin=True))
    t = standings(score_matches(swiss("national", TWO_TIED), deals()), {"ev": rr})
    assert t["after_round"].unique().sort().to_list() == [1, 2, 3]
    assert t.group_by("after_round").len()["len"].to_list() == [6, 6, 6]
    assert t["opponents_score"].null_count() == t.height


def test_casual_matches_have_no_standings() -> None:
    m = matches(match("c", AB, CD, ("5", "3"), "EW", event=None, rnd=None))
    assert standings(score_matches(m, deals())).is_empty()


def test_individual_standings_when_partners_change() -> None:
    """A league draws partners at each table: the entries are the players (their own totals)."""
    m = matches(
        match("r1", ("a", "b"), ("c", "d"), ("6", "3"), "EW", rnd=1),
        match("r2", ("a", "c"), ("b", "d"), ("4", "4"), None, rnd=2),
        match("r3", ("a", "d"), ("b", "c"), ("3", "5"), "NS", rnd=3),
    )
    t = standings(score_matches(m, deals())).filter(pl.col("after_round") == 3)
    assert t["entry"].unique().to_list() == ["individual"]
    rows = {r["team_id"]: r for r in t.iter_rows(named=True)}
    assert set(rows) == {"a", "b", "c", "d"}
    assert (rows["a"]["match_points"], rows["a"]["wins"], rows["a"]["draws"]) == (3.0, 1, 1)
    assert (rows["b"]["match_points"], rows["b"]["level_points"]) == (5.0, 16 + 13 + 15)
    assert (rows["c"]["match_points"], rows["c"]["level_points"]) == (3.0, 10 + 13 + 15)
    assert rows["a"]["opponents_score"] == (3 + 1) + (5 + 1) + (5 + 3)  # c, d; b, d; b, c
    assert rows["b"]["player_2"] is None
    assert t.sort("rank")["team_id"].to_list() == ["b", "a", "c", "d"]
    assert t.sort("rank")["decided_by"].to_list() == [None, "match_points", "level_points", "match_points"]


def test_pair_events_keep_pairs() -> None:
    t = final_table(TWO_TIED)
    assert t["entry"].unique().to_list() == ["pair"]


TEAMS = [AB, CD, EF, GH, IJ, KL]
LEVELS = "23456789"


@st.composite
def events(draw: st.DrawFn) -> list[Game]:
    """Random 1–4 round events of six pairs (random pairings, levels 2–9, byes when a table is short)."""
    games: list[Game] = []
    for rnd in range(1, draw(st.integers(min_value=1, max_value=4)) + 1):
        order = draw(st.permutations(TEAMS))
        tables = draw(st.integers(min_value=2, max_value=3))
        for k in range(tables):
            final = (draw(st.sampled_from(LEVELS)), draw(st.sampled_from(LEVELS)))
            games.append((rnd, order[2 * k], order[2 * k + 1], final))
    return games


@settings(max_examples=40, deadline=None)
@given(events(), st.sampled_from(["national", "huaian", "jiangsu", "bcta"]), st.randoms())
def test_standings_are_ordered_and_independent_of_row_order(games: list[Game], rules: str, rnd) -> None:
    """§S7 invariants: ranks 1.. in order of the primary total; shared ranks only on equal totals."""
    s = score_matches(swiss(rules, games), deals())
    table = standings(s)
    order = list(range(s.height))
    rnd.shuffle(order)
    assert standings(s[order]).equals(table)
    primary = table["primary_key"][0]
    for (_,), t in table.group_by("after_round"):
        t = t.sort("rank", "team_id")
        assert t["rank"][0] == 1
        assert t[primary].to_list() == sorted(t[primary].to_list(), reverse=True)
        for a, b in zip(t.iter_rows(named=True), t[1:].iter_rows(named=True), strict=False):
            if a["rank"] == b["rank"]:
                assert (a[primary], a["level_points"]) == (b[primary], b["level_points"])
                assert b["decided_by"] is None
            else:
                assert b["rank"] == t.filter(pl.col("rank") < b["rank"]).height + 1
                assert b["decided_by"] is not None


# `national` Art. 49 一.1 (6) / 一.2 (5): "對手分（所遇過的所有對手的累積場分）多者名次列前（循環賽除外）".
# After round 2 of a six-team round robin, a+b and c+d have 4 match points, 28 level
# points, 2 wins and +2 each, never met, shared first place after round 1; only opponents' score
# (a+b: 2, c+d: 1) tells them apart, which a round robin does not use: they share the place
# (Art. 49 三 "允許最終名次并列"; lots are the referee's).
SIX = {"A": AB, "B": ("m", "n"), "C": CD, "D": EF, "E": GH, "F": IJ}
RR_GAMES = [
    (1, "A", "B", ("4", "3")),
    (1, "C", "D", ("4", "3")),
    (1, "E", "F", ("4", "4")),
    (2, "A", "D", ("4", "3")),
    (2, "C", "E", ("4", "3")),
    (2, "B", "F", ("4", "3")),
]


def staged(stage: str | None, games: list[tuple[int, str, str, tuple[str, str]]]) -> pl.DataFrame:
    """Standings after the last round of one stage from (round, EW key, NS key, final levels)."""
    rows = [
        match(f"r{rnd}-{i}", SIX[ew], SIX[ns], final, _winner(final), rnd=rnd, stage=stage)
        for i, (rnd, ew, ns, final) in enumerate(games)
    ]
    table = standings(score_matches(matches(*rows), deals()))
    return table.filter(pl.col("after_round") == table["after_round"].max()).sort("rank", "team_id")


@pytest.mark.parametrize(
    ("stage", "ranks", "decided_by", "opp_scores"),
    [
        ("round_robin", [1, 1], [None, None], [None, None]),
        ("循環賽 A組", [1, 1], [None, None], [None, None]),
        ("swiss", [1, 2], [None, "opponents_score"], [2.0, 1.0]),
    ],
    ids=["round-robin", "round-robin-zh", "swiss"],
)
def test_round_robin_skips_opponents_score_art_49(
    stage: str, ranks: list[int], decided_by: list, opp_scores: list
) -> None:
    """Art. 49 (6) (循環賽除外): in a round robin the two stay equal and share the place."""
    top = staged(stage, RR_GAMES).head(2)
    assert top["team_id"].to_list() == ["a+b", "c+d"]
    assert (top["match_points"].to_list(), top["level_points"].to_list()) == ([4.0, 4.0], [28.0, 28.0])
    assert top["previous_rank"].to_list() == [1, 1]
    assert top["rank"].to_list() == ranks
    assert top["decided_by"].to_list() == decided_by
    assert top["opponents_score"].to_list() == opp_scores


def test_complete_round_robin_is_recognised_without_its_name() -> None:
    """A stage whose pairings are a complete round robin (every two teams met once) is one."""
    teams = ["A", "B", "C", "D"]
    rotation = [[("A", "B"), ("C", "D")], [("A", "C"), ("B", "D")], [("A", "D"), ("B", "C")]]
    games = [
        (rnd, ew, ns, ("5", "3") if teams.index(ew) % 2 else ("4", "4"))
        for rnd, pairs in enumerate(rotation, 1)
        for ew, ns in pairs
    ]
    rows = [
        match(f"r{rnd}-{i}", SIX[ew], SIX[ns], final, _winner(final), rnd=rnd, stage=None)
        for i, (rnd, ew, ns, final) in enumerate(games)
    ]
    table = standings(score_matches(matches(*rows), deals()))
    assert table["opponents_score"].null_count() == table.height
    swiss_like = standings(score_matches(matches(*rows[:4]), deals()))
    assert swiss_like["opponents_score"].null_count() == 0


def test_two_rooms_of_one_board_meet_an_opponent_once_s9() -> None:
    """§S9: the open and closed rooms of one duplicate board are one match, so opponents' score
    counts the opponent once: a+b met c+d in both rooms of round 1 and e+f in round 2."""
    rooms = [
        (1, AB, CD, ("4", "3")),
        (1, CD, AB, ("4", "3")),
        (1, EF, GH, ("4", "3")),
        (1, GH, EF, ("3", "4")),
        (2, AB, EF, ("3", "4")),
        (2, CD, GH, ("4", "3")),
    ]
    t = final_table(rooms)
    row = {r["team_id"]: r for r in t.iter_rows(named=True)}
    points = {team: row[team]["match_points"] for team in row}
    assert row["a+b"]["opponents_score"] == points["c+d"] + points["e+f"]
