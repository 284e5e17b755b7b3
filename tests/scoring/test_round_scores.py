"""Worked examples of scoring.md §S1–§S5 on hand-built ``matches``/``deals`` frames."""

from __future__ import annotations

import polars as pl
import pytest
from hypothesis import given
from hypothesis import strategies as st
from scoring_builders import deal, deals, match, matches

from scoring.levels import level_value
from scoring.params import BY_RULESET, LevelPointsTable, load_event_overrides, with_overrides
from scoring.round_scores import score_matches


def side(scores: pl.DataFrame, match_id: str, side_: str) -> dict:
    return scores.filter((pl.col("match_id") == match_id) & (pl.col("side") == side_)).row(0, named=True)


@pytest.mark.parametrize(
    ("level", "passed", "expected"),
    [
        ("2", False, 1),
        ("T", False, 9),
        ("10", False, 9),
        ("K", False, 12),
        ("A", False, 13),
        ("A", True, 14),
        (None, False, 1),
    ],
)
def test_level_steps_s1(level: str | None, passed: bool, expected: int) -> None:
    """§S1: 2=1 … A=13, passed A = 14."""
    assert level_value(level, passed) == expected


def test_unknown_level_is_a_clear_error() -> None:
    with pytest.raises(ValueError, match="unknown level 'Z'"):
        level_value("Z")


@pytest.mark.parametrize(
    ("d", "winner", "loser"),
    [(0, 13, 13), (1, 14, 12), (5, 18, 8), (11, 24, 2), (12, 25, 1), (13, 26, 0), (20, 26, 0)],
)
def test_26_point_table_s3(d: int, winner: int, loser: int) -> None:
    """§S3 table: winner 13 + d, loser 13 − d; beyond 13 the last row."""
    assert LevelPointsTable().points(d) == (winner, loser)


@given(st.integers(min_value=0, max_value=13))
def test_26_point_shares_sum_to_26_and_favour_the_winner(d: int) -> None:
    w, lo = LevelPointsTable().points(d)
    assert w + lo == 26 and w >= lo


def test_draw_national_and_bcta_s2_s3_s4_s5() -> None:
    """A draw: 1 match point and 13 level points each; BCTA 100 (round) and 200 (dan) + won deals."""
    m = matches(
        match("nat", ("a", "b"), ("c", "d"), ("7", "7"), None),
        match("bc", ("a", "b"), ("c", "d"), ("4", "4"), None, rules="bcta", reason="deals"),
    )
    d = deals(deal("bc", 1, "EW", 2), deal("bc", 2, "NS", 2))
    s = score_matches(m, d)
    for sd in ("EW", "NS"):
        nat = side(s, "nat", sd)
        got = (nat["result"], nat["match_points"], nat["level_points"], nat["level_diff"])
        assert got == ("draw", 1.0, 13, 0)
        bc = side(s, "bc", sd)
        assert (bc["bcta_round_score"], bc["bcta_dan_points"]) == (100 + 15, 200 + 30)


def test_whitewash_bcta_s4_s5() -> None:
    """Passed A against a team still at 2: 26:0, +50 shutout bonus in the round score (§S4 only)."""
    m = matches(
        match("w", ("a", "b"), ("c", "d"), ("A", "2"), "EW", rules="bcta", passed_a="EW", reason="passed_a")
    )
    d = deals(*(deal("w", i, "EW", 3) for i in range(1, 5)), deal("w", 5, "EW", 1))
    s = score_matches(m, d)
    ew, ns = side(s, "w", "EW"), side(s, "w", "NS")
    assert (ew["level"], ns["level"], ew["level_diff"]) == (14, 1, 13)
    assert (ew["match_points"], ew["level_points"]) == (2.0, 26)
    assert (ns["match_points"], ns["level_points"]) == (0.0, 0)
    assert ew["bcta_round_score"] == 200 + 4 * 25 + 5 + 50
    assert ew["bcta_dan_points"] == 400 + 4 * 50 + 10
    assert (ns["bcta_round_score"], ns["bcta_dan_points"], ns["levels_gained"]) == (0, 0, 0)


@pytest.mark.parametrize(
    ("loser_final", "bonus"),
    [("2", 50), ("3", 0)],
    ids=["loser-gained-nothing", "loser-gained-one"],
)
def test_loser_without_level_gain_gives_winner_50_s4(loser_final: str, bonus: int) -> None:
    m = matches(match("x", ("a", "b"), ("c", "d"), ("9", loser_final), "EW", rules="bcta"))
    d = deals(deal("x", 1, "EW", 3), deal("x", 2, "EW", 3), deal("x", 3, "EW", 1))
    ew = side(score_matches(m, d), "x", "EW")
    assert ew["bcta_round_score"] == 200 + 25 + 25 + 5 + bonus
    assert ew["bcta_dan_points"] == 400 + 50 + 50 + 10


def test_three_failures_at_a_bcta_s4_s5() -> None:
    """EW fail A three times: NS win the round and get +20 +50 (round) and +40 +100 (dan)."""
    m = matches(
        match(
            "f", ("a", "b"), ("c", "d"), ("A", "8"), "NS", rules="bcta", reason="a_failures", failures=(3, 0)
        )
    )
    d = deals(
        *(deal("f", i, "EW", 3) for i in range(1, 5)),
        deal("f", 5, "NS", 3, a_failed=True),
        deal("f", 6, "NS", 2, a_failed=True),
        deal("f", 7, "NS", 1, a_failed=True),
    )
    s = score_matches(m, d)
    ew, ns = side(s, "f", "EW"), side(s, "f", "NS")
    assert ns["result"] == "win" and ns["match_points"] == 2.0
    assert ns["bcta_round_score"] == 200 + 25 + 15 + 5 + 20 + 50
    assert ns["bcta_dan_points"] == 400 + 50 + 30 + 10 + 40 + 100
    assert (ew["bcta_round_score"], ew["bcta_dan_points"], ew["a_failures"]) == (4 * 25, 4 * 50, 3)
    # §S3: the winner takes the larger share of the 26 points for d = |13 − 7| = 6
    assert (ns["level_points"], ew["level_points"]) == (19, 7)


@pytest.mark.parametrize(("failures", "round_pts", "dan_pts"), [(1, 20, 40), (2, 70, 140), (3, 70, 140)])
def test_failure_points_accumulate_s4_s5(failures: int, round_pts: int, dan_pts: int) -> None:
    p = BY_RULESET["bcta"]
    assert p.bcta_round.failure_points(failures) == round_pts
    assert p.bcta_dan.failure_points(failures) == dan_pts


def test_bye_scores_1_5_and_17_s2() -> None:
    """Three teams in a Swiss stage: the team without a match in a round has the bye."""
    m = matches(
        match("r1", ("a", "b"), ("c", "d"), ("6", "3"), "EW", rnd=1),
        match("r2", ("a", "b"), ("e", "f"), ("5", "5"), None, rnd=2),
        match("r3", ("c", "d"), ("e", "f"), ("4", "2"), "EW", rnd=3),
    )
    s = score_matches(m, deals())
    byes = s.filter(pl.col("outcome") == "bye").sort("round")
    assert byes["team_id"].to_list() == ["e+f", "c+d", "a+b"]
    assert byes["match_id"].null_count() == 3
    assert byes["match_points"].to_list() == [1.5] * 3
    assert byes["level_points"].to_list() == [17] * 3


def test_no_bye_when_several_teams_are_missing() -> None:
    m = matches(
        match("r1a", ("a", "b"), ("c", "d"), ("6", "3"), "EW", rnd=1),
        match("r1b", ("e", "f"), ("g", "h"), ("6", "3"), "EW", rnd=1),
        match("r2", ("a", "b"), ("e", "f"), ("6", "3"), "EW", rnd=2),
    )
    assert score_matches(m, deals()).filter(pl.col("outcome") == "bye").is_empty()


@pytest.mark.parametrize(
    ("rules", "final", "winner_ldp"),
    [
        ("national", ("5", "5"), 17),
        ("huaian", ("5", "5"), 18),
        ("huaian", ("2", "A"), 25),
        ("huaian", ("2", "8"), 19),
        ("huaian", ("2", "6"), 18),
        ("huaian", ("A", "2"), 18),
        ("huaian", ("8", "2"), 18),
    ],
    ids=["national-17", "huaian-18", "huaian-actual-25", "huaian-actual-19", "huaian-ahead-by-4-18",
         "huaian-behind-by-12-18", "huaian-behind-by-6-18"],
)
def test_forfeit_s2(rules: str, final: tuple[str, str], winner_ldp: int) -> None:
    """The side that did not forfeit (NS here) scores 2 and 17 (`national` Art. 34–35); 0/0.

    `huaian` (seed 000 Art. 15 三.4): "其對手的得分按場分２:０，級分18:０處理。
    如果其對手的級分差已超過18分的，按其實際級分計算": 18, or the side's own actual level points
    when they already exceed 18. A side that was behind has earned less than 13, so it scores 18,
    never the leader's share.
    """
    m = matches(match("ff", ("a", "b"), ("c", "d"), final, "NS", rules=rules, reason="forfeit"))
    s = score_matches(m, deals())
    ew, ns = side(s, "ff", "EW"), side(s, "ff", "NS")
    assert (ns["outcome"], ns["match_points"], ns["level_points"]) == ("forfeit", 2.0, winner_ldp)
    assert (ew["result"], ew["match_points"], ew["level_points"]) == ("loss", 0.0, 0)


def test_invalid_and_abandoned_matches_are_not_scored() -> None:
    m = matches(
        match("bad", ("a", "b"), ("c", "d"), ("5", "3"), "EW", status="invalid"),
        match("gone", ("a", "b"), ("c", "d"), ("5", "3"), None, reason="abandoned"),
        match("ok", ("a", "b"), ("c", "d"), ("5", "3"), "EW", status="partial"),
    )
    assert score_matches(m, deals())["match_id"].unique().to_list() == ["ok"]


def test_deductions_are_carried_on_the_match_row() -> None:
    m = matches(match("d1", ("a", "b"), ("c", "d"), ("5", "3"), "EW"))
    ded = pl.DataFrame({"match_id": ["d1"], "team": ["EW"], "match_points": [0.5], "level_points": [1.0]})
    ew = side(score_matches(m, deals(), ded), "d1", "EW")
    assert (ew["match_points"], ew["deducted_match_points"], ew["deducted_level_points"]) == (2.0, 0.5, 1.0)


def test_event_supplies_its_own_level_table_s3(tmp_path) -> None:
    """`national` Art. 47 §2: an event's own table replaces the ruleset's."""
    path = tmp_path / "events.toml"
    path.write_text(
        '[cup]\nbase = "national"\n[cup.level_points]\nname = "cup"\n'
        "winner = [13, 16, 19, 22, 25, 26, 26, 26, 26, 26, 26, 26, 26, 26]\n"
    )
    overrides = load_event_overrides(path)
    m = matches(
        match("c1", ("a", "b"), ("c", "d"), ("4", "2"), "EW", event="cup"),
        match("o1", ("a", "b"), ("c", "d"), ("4", "2"), "EW", event="other"),
    )
    s = score_matches(m, deals(), overrides=overrides)
    assert (side(s, "c1", "EW")["level_points"], side(s, "c1", "NS")["level_points"]) == (19, 7)
    assert side(s, "c1", "EW")["level_table"] == "cup"
    assert side(s, "o1", "EW")["level_points"] == 15


def test_override_typo_is_rejected() -> None:
    with pytest.raises(ValueError, match="unknown keys in level_points"):
        with_overrides(BY_RULESET["national"], {"level_points": {"winners": [1]}})


# Seed 001 (BCTA) 記分規則: "級數相同為平局，各記100分"; Appendix A: "級數相同為平局，各記200分". The play
# rule 單輪勝出 ("如進攻主牌一致，則比賽結束時進攻一方勝出") is why the replay names the declarers as
# winner (``draw_breaker``); rules.md §7: a draw for every score and point by default.
EQUAL_LEVELS = [
    # (equal_levels, end reason, replay winner, final levels, EW result, EW (round, dan), NS (round, dan))
    ("draw", "time", "NS", ("Q", "Q"), "draw", (100 + 25 + 5, 200 + 50 + 10), (100 + 15, 200 + 30)),
    ("draw", "deals", "NS", ("Q", "Q"), "draw", (100 + 25 + 5, 200 + 50 + 10), (100 + 15, 200 + 30)),
    ("declarers", "time", "NS", ("Q", "Q"), "loss", (25 + 5, 50 + 10), (200 + 15, 400 + 30)),
    ("draw", "time", "EW", ("K", "Q"), "win", (200 + 25 + 5, 400 + 50 + 10), (15, 30)),
]


@pytest.mark.parametrize(
    ("equal_levels", "reason", "winner", "final", "ew_result", "ew_pts", "ns_pts"),
    EQUAL_LEVELS,
    ids=["draw-time", "draw-deals", "declarers", "unequal"],
)
def test_bcta_equal_levels_s4_s5_rules_7(
    equal_levels: str,
    reason: str,
    winner: str,
    final: tuple[str, str],
    ew_result: str,
    ew_pts: tuple[int, int],
    ns_pts: tuple[int, int],
) -> None:
    """Seed 001 記分規則/Appendix A: equal levels are 平局 (100 and 200 each) unless the ruleset's
    ``equal_levels`` is ``declarers`` (the play rule 單輪勝出), whoever ``matches.winner`` names."""
    m = matches(match("eq", ("a", "b"), ("c", "d"), final, winner, rules="bcta", reason=reason))
    d = deals(
        deal("eq", 1, "EW", 3, order="EWNS"),
        deal("eq", 2, "NS", 2, order="NESW"),
        deal("eq", 3, "EW", 1, order="ENSW"),
    )
    overrides = {"ev": with_overrides(BY_RULESET["bcta"], {"equal_levels": equal_levels})}
    s = score_matches(m, d, overrides=overrides)
    ew, ns = side(s, "eq", "EW"), side(s, "eq", "NS")
    assert ew["result"] == ew_result
    assert (ew["bcta_round_score"], ew["bcta_dan_points"]) == ew_pts
    assert (ns["bcta_round_score"], ns["bcta_dan_points"]) == ns_pts


def test_bcta_ruleset_scores_equal_levels_as_a_draw_by_default() -> None:
    """The built-in ``bcta`` ruleset: the replay's winner is the declarers (play rule), scores draw.

    The demo league's ``bcta-league-s1-r2-t12`` ended Q:Q and was scored 550/160 dan points as a
    declarers' win; seed 001 scores it 200 each plus the deals won.
    """
    from replay.rulesets import get_ruleset

    bcta = get_ruleset("bcta")
    assert (bcta.draw_breaker, bcta.equal_levels) == ("declarers", "draw")
    assert BY_RULESET["bcta"].equal_levels == "draw"
    m = matches(match("q", ("a", "b"), ("c", "d"), ("Q", "Q"), "EW", rules="bcta", reason="deals"))
    s = score_matches(m, deals())
    for sd in ("EW", "NS"):
        row = side(s, "q", sd)
        assert (row["result"], row["match_points"], row["level_points"]) == ("draw", 1.0, 13)
        assert (row["bcta_round_score"], row["bcta_dan_points"]) == (100, 200)


# Seed 001 單局勝出: "同隊選手為頭游和二游升三級；同隊選手為頭游和三游升二級；同隊選手為頭游和末游升一級".
DEAL_GAIN = [
    # (reading, finish order, level gain after the cap, dan points of the deal's winners)
    ("finishing_places", "EWNS", 3, 50),
    ("finishing_places", "ENWS", 2, 30),
    ("finishing_places", "ENSW", 1, 10),
    ("finishing_places", "EWNS", 0, 50),  # at A: the deal that passes A, no level to go up
    ("finishing_places", "ENSW", 0, 10),  # at A: 1st+4th, a failure at A, still 升一級
    ("finishing_places", "EWNS", 1, 50),  # at K: 1st+2nd but only one level to A
    ("levels_gained", "EWNS", 0, 0),
    ("levels_gained", "EWNS", 1, 10),
    ("levels_gained", "ENWS", 2, 30),
]


@pytest.mark.parametrize(("reading", "order", "gain", "points"), DEAL_GAIN)
def test_bcta_deal_points_by_finishing_places_s5(reading: str, order: str, gain: int, points: int) -> None:
    """Appendix A "每局勝方升一級10分，升兩級記30分，升三級記50分", 升N級 read by finishing places (the book's
    definition, default) or by the levels gained after the cap at A (``deal_gain``)."""
    m = matches(match("g", ("a", "b"), ("c", "d"), ("5", "5"), None, rules="bcta"))
    d = deals(deal("g", 1, "EW", gain, order=order))
    overrides = {"ev": with_overrides(BY_RULESET["bcta"], {"deal_gain": reading})}
    ew = side(score_matches(m, d, overrides=overrides), "g", "EW")
    assert ew["bcta_dan_points"] == 200 + points


def test_finishing_places_is_the_default_reading() -> None:
    assert BY_RULESET["bcta"].deal_gain == "finishing_places"
