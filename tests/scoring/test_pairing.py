"""scoring/pairing.py (scoring.md §S8, §S9): Swiss without rematches, byes, round-robin schedules,
snake seating."""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from scoring.pairing import pair_round, round_robin_rounds


def _play_swiss(n: int, rounds: int, rnd: random.Random) -> list[tuple[list[frozenset[str]], str | None]]:
    """Pair ``rounds`` Swiss rounds of ``n`` teams, each ranking a fresh random order (results
    are irrelevant to the constraints), feeding back who met and who had a bye."""
    teams = [f"T{i}" for i in range(n)]
    met: set[frozenset[str]] = set()
    byes: set[str] = set()
    played = []
    for round_no in range(1, rounds + 1):
        ranking = rnd.sample(teams, n)
        pairing = pair_round("swiss", round_no, ranking, met, byes)
        pairs = [frozenset((t.ew, t.ns)) for t in pairing.tables]
        played.append((pairs, pairing.bye))
        met |= set(pairs)
        if pairing.bye is not None:
            byes.add(pairing.bye)
    return played


@settings(max_examples=40, deadline=None)
@given(st.integers(3, 11), st.randoms(use_true_random=False))
def test_swiss_no_rematch_and_byes_to_different_teams(n: int, rnd: random.Random) -> None:
    """Over ⌊n/2⌋ rounds a rematch-free pairing always exists; every team plays or has the bye
    each round, and no team gets a second bye while another has had none."""
    rounds = max(1, n // 2)
    played = _play_swiss(n, rounds, rnd)
    meetings = [pair for pairs, _ in played for pair in pairs]
    assert len(meetings) == len(set(meetings)), "a rematch"
    for pairs, bye in played:
        seated = sorted([t for p in pairs for t in p] + ([bye] if bye else []))
        assert seated == sorted(f"T{i}" for i in range(n))
    byes = [bye for _, bye in played if bye is not None]
    assert len(byes) == (rounds if n % 2 else 0)
    assert len(byes) == len(set(byes))


def test_swiss_bye_goes_to_the_lowest_ranked_without_one() -> None:
    """`national` Art. 26: the lowest-ranked team that has not had a bye sits out."""
    pairing = pair_round("swiss", 3, ["A", "B", "C", "D", "E"], met=set(), had_bye={"E"})
    assert pairing.bye == "D"
    assert [(t.number, t.ew, t.ns) for t in pairing.tables] == [(1, "A", "B"), (2, "C", "E")]


def test_swiss_pairs_close_scores_and_avoids_rematches() -> None:
    """Top-down: 1v2, 3v4 … unless they met; then the next closest."""
    pairing = pair_round("swiss", 2, ["A", "B", "C", "D"], met={frozenset("AB"), frozenset("CD")})
    assert [(t.ew, t.ns) for t in pairing.tables] == [("A", "C"), ("B", "D")]
    assert pairing.rematches == ()


def test_swiss_reports_unavoidable_rematches() -> None:
    """Three teams after everyone met: the pairing still happens and names the rematch."""
    met = {frozenset("AB"), frozenset("AC"), frozenset("BC")}
    pairing = pair_round("swiss", 3, ["A", "B", "C"], met=met, had_bye=set())
    assert pairing.bye == "C"
    assert pairing.rematches == (("A", "B"),)


def test_swiss_round_one_keeps_clubs_apart() -> None:
    """`jiangsu` (§S8): teams of one club do not meet in round 1 when avoidable; the draw is seeded."""
    teams = [f"T{i}" for i in range(8)]
    clubs = {t: f"club{i // 2}" for i, t in enumerate(teams)}  # T0,T1 one club; T2,T3 …
    for seed in range(20):
        pairing = pair_round("swiss", 1, teams, clubs=clubs, seed=seed)
        assert all(clubs[t.ew] != clubs[t.ns] for t in pairing.tables)
        assert pairing == pair_round("swiss", 1, teams, clubs=clubs, seed=seed)


@pytest.mark.parametrize("n", [2, 4, 5, 7, 8, 10])
def test_round_robin_complete_schedule(n: int) -> None:
    """The circle method: over the schedule every two teams meet exactly once, every team sits
    at a table or out each round, and with an odd count each team has exactly one bye."""
    teams = [f"T{i}" for i in range(n)]
    rounds = [pair_round("round_robin", r, teams) for r in range(1, round_robin_rounds(teams) + 1)]
    meetings = [frozenset((t.ew, t.ns)) for p in rounds for t in p.tables]
    assert len(meetings) == len(set(meetings)) == n * (n - 1) // 2
    for p in rounds:
        seated = [x for t in p.tables for x in (t.ew, t.ns)] + ([p.bye] if p.bye else [])
        assert sorted(seated) == sorted(teams)
    byes = [p.bye for p in rounds if p.bye is not None]
    assert sorted(byes) == (sorted(teams) if n % 2 else [])


def test_round_robin_seats_alternate() -> None:
    """A team is not seated E–W every round (the rotation alternates sides)."""
    teams = [f"T{i}" for i in range(6)]
    sides = [
        next(
            ("EW" if t.ew == "T0" else "NS")
            for t in pair_round("round_robin", r, teams).tables
            if "T0" in (t.ew, t.ns)
        )
        for r in range(1, 6)
    ]
    assert set(sides) == {"EW", "NS"}


def test_unknown_system_and_round() -> None:
    with pytest.raises(ValueError, match="unknown pairing system"):
        pair_round("dutch", 1, ["A", "B"])  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="start at 1"):
        pair_round("swiss", 0, ["A", "B"])


def _snake_tables(n: int, rankings: list[list[int]]) -> list[list[tuple[str, str]]]:
    """Three rounds of snake seating of ``n`` pairs P1…Pn: round 1 drawn, rounds 2 and 3 from the
    given rankings (pair numbers, best first), as the MP score rate would order them."""
    teams = [f"P{i}" for i in range(1, n + 1)]
    rounds = [pair_round("snake", 1, teams, seed=7)]
    rounds += [pair_round("snake", r, [f"P{i}" for i in ranking]) for r, ranking in enumerate(rankings, 2)]
    return [[(t.ew, t.ns) for t in p.tables] for p in rounds]


@pytest.mark.parametrize("n", [8, 12])
def test_snake_seating_over_three_rounds(n: int) -> None:
    """§S9 / seed 004 蛇形排位: round 1 random; from round 2 table 1 = ranks 1 v 2, table 2 = ranks
    4 v 3, table 3 = ranks 5 v 6, …, by the ranking after the round before."""
    after_1 = {8: [3, 8, 1, 6, 2, 7, 4, 5], 12: [3, 8, 1, 6, 2, 7, 4, 5, 9, 10, 11, 12]}[n]
    after_2 = {8: [8, 3, 6, 1, 7, 2, 5, 4], 12: [8, 3, 6, 1, 7, 2, 5, 4, 12, 11, 10, 9]}[n]
    round_1, round_2, round_3 = _snake_tables(n, [after_1, after_2])
    assert sorted(t for table in round_1 for t in table) == sorted(f"P{i}" for i in range(1, n + 1))
    assert round_1 == _snake_tables(n, [after_1, after_2])[0]  # the draw is the seed's
    assert round_1 != [(f"P{i}", f"P{i + 1}") for i in range(1, n + 1, 2)]
    expected_2 = {
        8: [("P3", "P8"), ("P6", "P1"), ("P2", "P7"), ("P5", "P4")],
        12: [("P3", "P8"), ("P6", "P1"), ("P2", "P7"), ("P5", "P4"), ("P9", "P10"), ("P12", "P11")],
    }
    expected_3 = {
        8: [("P8", "P3"), ("P1", "P6"), ("P7", "P2"), ("P4", "P5")],
        12: [("P8", "P3"), ("P1", "P6"), ("P7", "P2"), ("P4", "P5"), ("P12", "P11"), ("P9", "P10")],
    }
    assert round_2 == expected_2[n]
    assert round_3 == expected_3[n]


def test_snake_odd_count_bye_to_lowest_without_one() -> None:
    """An odd field: the lowest-ranked pair without a bye sits out, the rest snake (§S8, §S9)."""
    pairing = pair_round("snake", 2, ["A", "B", "C", "D", "E"], had_bye={"E"})
    assert pairing.bye == "D"
    assert [(t.ew, t.ns) for t in pairing.tables] == [("A", "B"), ("E", "C")]
