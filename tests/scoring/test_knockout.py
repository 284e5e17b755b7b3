"""Knockout brackets (scoring.md §S8; `national` Art. 24, `huaian` Art. 25, 29): seeding, byes,
advancing, placings, and the standings of a knockout stage."""

from __future__ import annotations

import polars as pl
import pytest
from hypothesis import given
from hypothesis import strategies as st
from scoring_builders import deals, match, matches

from schemas.vocabulary import is_knockout
from scoring.knockout import (
    KnockoutError,
    bracket,
    knockout_round,
    placings,
    rounds_needed,
    seed_positions,
    seeding,
)
from scoring.pairing import pair_round
from scoring.round_scores import score_matches
from scoring.standings import standings


def teams(n: int) -> list[str]:
    """Seed order S1 … Sn (S1 strongest)."""
    return [f"S{i}" for i in range(1, n + 1)]


@pytest.mark.parametrize(
    ("size", "positions"),
    [
        (2, [1, 2]),
        (4, [1, 4, 2, 3]),
        (8, [1, 8, 4, 5, 2, 7, 3, 6]),
        (16, [1, 16, 8, 9, 4, 13, 5, 12, 2, 15, 7, 10, 3, 14, 6, 11]),
    ],
)
def test_seed_positions_national_art_24(size: int, positions: list[int]) -> None:
    """`national` Art. 24 一 (一) 3 "各對陣區域的種子隊号之和相等": the standard bracket tables."""
    assert seed_positions(size) == positions


@given(st.integers(1, 7))
def test_every_region_has_the_same_seed_sum_and_top_seeds_meet_latest(n: int) -> None:
    """Every aligned region of 2^k positions has the same seed sum (`national` Art. 24 一 (一) 3),
    so seeds 1 … 2^k are in different regions of size 2^(n−k): they can meet only when the
    region is a round away from the final of that many teams."""
    size = 2**n
    order = seed_positions(size)
    assert sorted(order) == list(range(1, size + 1))
    for k in range(n):
        width = size >> k
        regions = [order[i : i + width] for i in range(0, size, width)]
        assert len({sum(r) for r in regions}) == 1
        tops = [min(r) for r in regions]
        assert sorted(tops) == list(range(1, 2**k + 1))


@pytest.mark.parametrize(
    ("n", "tables", "byes"),
    [
        # 8 teams: no byes, 1v8 4v5 | 2v7 3v6.
        (8, [("S1", "S8"), ("S4", "S5"), ("S2", "S7"), ("S3", "S6")], []),
        # 6 teams in a bracket of 8: seeds 7 and 8 are empty, so seeds 1 and 2 have the byes.
        (6, [("S4", "S5"), ("S3", "S6")], ["S1", "S2"]),
        # 12 teams in a bracket of 16: byes to seeds 1–4 ("從1号種子隊開始依次安排輪空").
        (12, [("S8", "S9"), ("S5", "S12"), ("S7", "S10"), ("S6", "S11")], ["S1", "S4", "S2", "S3"]),
        # 5 teams: byes to seeds 1–3, only 4v5 plays.
        (5, [("S4", "S5")], ["S1", "S2", "S3"]),
    ],
)
def test_round_one_with_byes_to_top_seeds_national_art_24_huaian_art_25(
    n: int, tables: list[tuple[str, str]], byes: list[str]
) -> None:
    """`national` Art. 24 一 (一) 3 "有輪空時，從1号種子隊開始依次安排輪空"; `huaian` Art. 25 一
    "應讓實力較優者在第１輪比賽中輪空". The better seed is the home team, seated E–W
    (`national` 主客隊 (三) 1)."""
    first = knockout_round(teams(n), 1)
    assert [(m.home, m.away) for m in first.matches] == tables
    assert list(first.byes) == byes
    pairing = pair_round("knockout", 1, teams(n))
    assert [(t.number, t.ew, t.ns) for t in pairing.tables] == [
        (i, a, b) for i, (a, b) in enumerate(tables, start=1)
    ]
    assert list(pairing.byes) == byes
    assert pairing.bye is None


def test_advancing_eight_teams_to_the_final_huaian_art_25() -> None:
    """`huaian` Art. 25 一 "負方被淘汰，勝方則進入下一輪": winners meet in bracket order; an upset
    winner takes the loser's place in the bracket."""
    seeds = teams(8)
    won = {
        frozenset(("S1", "S8")): "S1",
        frozenset(("S4", "S5")): "S5",
        frozenset(("S2", "S7")): "S7",
        frozenset(("S3", "S6")): "S3",
    }
    semis = knockout_round(seeds, 2, won)
    assert [(m.home, m.away) for m in semis.matches] == [("S1", "S5"), ("S3", "S7")]
    won |= {frozenset(("S1", "S5")): "S5", frozenset(("S3", "S7")): "S3"}
    final = knockout_round(seeds, 3, won)
    assert [(m.home, m.away, m.placing) for m in final.matches] == [("S3", "S5", False)]
    with_third = pair_round("knockout", 3, seeds, winners=won, third_place=True)
    assert [(t.ew, t.ns) for t in with_third.tables] == [("S3", "S5"), ("S1", "S7")]
    assert with_third.placing == (2,)


def test_advancing_six_teams_byes_meet_the_round_one_winners() -> None:
    """6 teams: seed 1 meets the winner of 4v5, seed 2 the winner of 3v6."""
    won = {frozenset(("S4", "S5")): "S4", frozenset(("S3", "S6")): "S6"}
    semis = knockout_round(teams(6), 2, won)
    assert [(m.home, m.away) for m in semis.matches] == [("S1", "S4"), ("S2", "S6")]
    assert semis.byes == ()
    assert rounds_needed(6) == 3


def test_a_knockout_match_needs_a_winner_huaian_art_14() -> None:
    """`huaian` Art. 14 五 "每輪比賽的雙方都必須分出勝負": no next round before every winner."""
    with pytest.raises(KnockoutError, match="S4 v S5 has no winner"):
        knockout_round(teams(8), 2, {frozenset(("S1", "S8")): "S1"})
    with pytest.raises(KnockoutError, match="rounds 1–3, not 4"):
        knockout_round(teams(8), 4)
    with pytest.raises(KnockoutError, match="at least 2 teams"):
        bracket(["S1"])


def test_partial_seeding_draws_the_unseeded_national_art_24() -> None:
    """`national` Art. 24 一 (二): 2^k seeds keep their numbers, the others draw theirs by lot."""
    ranking = teams(12)
    drawn = seeding(ranking, seeded=4, draw_seed=7)
    assert drawn[:4] == ranking[:4]
    assert sorted(drawn[4:]) == sorted(ranking[4:])
    assert drawn == seeding(ranking, seeded=4, draw_seed=7)
    assert drawn != seeding(ranking, seeded=4, draw_seed=8)
    assert seeding(ranking) == ranking


def _results(rounds: list[list[tuple[str, str, str]]]) -> list[tuple[int, str, str, str]]:
    return [(r, a, b, w) for r, games in enumerate(rounds, start=1) for a, b, w in games]


EIGHT = [
    [("S1", "S8", "S1"), ("S4", "S5", "S5"), ("S2", "S7", "S7"), ("S3", "S6", "S3")],
    [("S1", "S5", "S5"), ("S3", "S7", "S3")],
    [("S3", "S5", "S3")],
]


@pytest.mark.parametrize(
    ("played", "expected"),
    [
        # After the final: champion, runner-up, the semi-final losers share 3rd, the
        # quarter-final losers 5th.
        (EIGHT, {"S3": 1, "S5": 2, "S1": 3, "S7": 3, "S4": 5, "S8": 5, "S2": 5, "S6": 5}),
        # After round 1: the four still in share 1st, the four out share 5th.
        (EIGHT[:1], {"S1": 1, "S5": 1, "S7": 1, "S3": 1, "S4": 5, "S8": 5, "S2": 5, "S6": 5}),
        # With the 3rd/4th-place match (`huaian` Art. 29 二 "增加第三、第四名的附加賽").
        (
            [*EIGHT[:2], [("S3", "S5", "S3"), ("S1", "S7", "S7")]],
            {"S3": 1, "S5": 2, "S7": 3, "S1": 4, "S4": 5, "S8": 5, "S2": 5, "S6": 5},
        ),
    ],
)
def test_placings_by_the_round_a_team_went_out_huaian_art_29(
    played: list[list[tuple[str, str, str]]], expected: dict[str, int]
) -> None:
    """`huaian` Art. 29 二: losers are out; the losers of one round share a place."""
    got = {p.team: p.place for p in placings(teams(8), _results(played))}
    assert got == expected


def test_placings_with_byes_six_teams() -> None:
    """Seeds 1 and 2 had byes: ranked with the teams still in until they lose."""
    played = [
        [("S4", "S5", "S4"), ("S3", "S6", "S6")],
        [("S1", "S4", "S1"), ("S2", "S6", "S6")],
        [("S1", "S6", "S6")],
    ]
    after = {n: {p.team: p.place for p in placings(teams(6), _results(played[:n]))} for n in (1, 3)}
    assert after[1] == {"S1": 1, "S2": 1, "S4": 1, "S6": 1, "S5": 5, "S3": 5}
    assert after[3] == {"S6": 1, "S1": 2, "S4": 3, "S2": 3, "S5": 5, "S3": 5}


@pytest.mark.parametrize(
    ("stage", "expected"),
    [
        ("knockout", True),
        ("Knockout stage", True),
        ("淘汰賽", True),
        ("KO", True),
        ("swiss", False),
        (None, False),
        (["knockout"], False),
    ],
)
def test_knockout_stage_names(stage: object, expected: bool) -> None:
    """A stage name is read as logged (`match_start.event.stage` may hold any JSON value)."""
    assert is_knockout(stage) is expected


P = {f"S{i}": (f"s{i}a", f"s{i}b") for i in range(1, 7)}


def test_standings_of_a_knockout_stage_with_byes_and_a_drawn_final() -> None:
    """A 6-team knockout in the standings table: places by the round a team went out, byes
    not scored as Swiss byes, and a final scored as a draw (bcta ``equal_levels``) decided by
    the side the replay named (`national` Art. 49 二 "加賽一副，至決出勝負")."""
    games = [
        (1, "S4", "S5", ("9", "5"), "EW"),
        (1, "S3", "S6", ("4", "A"), "NS"),
        (2, "S1", "S4", ("K", "7"), "EW"),
        (2, "S2", "S6", ("3", "8"), "NS"),
        (3, "S1", "S6", ("9", "9"), "NS"),
    ]
    rows = [
        match(f"ko{r}-{i}", P[a], P[b], final, won, rnd=r, stage="knockout", rules="bcta")
        for i, (r, a, b, final, won) in enumerate(games)
    ]
    scores = score_matches(matches(*rows), deals())
    assert scores.filter(pl.col("outcome") == "bye").is_empty()
    winners = {"ko3-4": "NS"}
    table = standings(scores, winners=winners).filter(pl.col("after_round") == 3)
    team = {"+".join(sorted(p)): t for t, p in P.items()}
    got = {team[r["team_id"]]: (r["rank"], r["decided_by"]) for r in table.iter_rows(named=True)}
    assert got == {
        "S6": (1, None),
        "S1": (2, "knockout"),
        "S2": (3, "knockout"),
        "S4": (3, None),
        "S3": (5, "knockout"),
        "S5": (5, None),
    }
    assert set(table["primary_key"]) == {"knockout"}
    first = standings(scores, winners=winners).filter(pl.col("after_round") == 1)
    assert first.height == 6
    assert sorted(first["rank"]) == [1, 1, 1, 1, 5, 5]
