"""Simulated duplicate tournaments (scoring.md §S9): snake seating by the MP score rate, each
deal's outcome class compared across the rooms that held the same cards."""

from __future__ import annotations

from datetime import UTC, datetime

from replay.rulesets import NATIONAL, RoundFormat
from simulator.match import MatchResult
from simulator.roster import make_teams
from simulator.tournament import Tournament


def _result(match_id: str, ew_outcome: int) -> MatchResult:
    """A one-deal room: EW won with class ``ew_outcome`` (> 0) or NS won with class −``ew_outcome``."""
    winner = "EW" if ew_outcome > 0 else "NS"
    end = datetime(2026, 6, 18, tzinfo=UTC)
    return MatchResult(match_id, "deals", None, {"EW": 0, "NS": 0}, None, 1, end, [(winner, abs(ew_outcome))])


def test_round_two_is_snake_seated_by_mp_rate() -> None:
    """§S9: round 2 seats table 1 = ranks 1 v 2, table 2 = ranks 4 v 3, … by the MP score rate of
    round 1, computed from each deal's outcome class in the two rooms of a board."""
    teams, _ = make_teams(8, seed=3)
    tour = Tournament(teams, "duplicate", NATIONAL, RoundFormat("deals", deals=1), seed=3, rounds=3)
    specs = tour.specs(1)
    assert len(specs) == 8  # 4 tables, an open and a closed room each
    by_board: dict[str, list[str]] = {}
    for spec in specs:
        assert spec.duplicate is not None
        by_board.setdefault(spec.duplicate["board"], []).append(spec.match_id)
    results = []
    seats = {}
    for i, (open_id, closed_id) in enumerate(by_board.values()):
        # the open room's EW pair wins class 3; in the closed room the other pair, now EW, does as
        # well on table 1 (a tie) and worse on the others
        results += [_result(open_id, 3), _result(closed_id, (3, 2, 1, -1)[i])]
        seats[i] = next(s for s in specs if s.match_id == open_id).seats
    tour.record(results)
    pair_of = {t.players[0]: t.id for t in teams}
    # per table: the open room's EW pair scores 4 MP of 4 (2 of 4 each on the tied table 1)
    mp = {t: (s.mp, s.mp_max) for t, s in tour.standings.items()}
    winners = [pair_of[seats[i]["E"]] for i in range(4)]
    losers = [pair_of[seats[i]["N"]] for i in range(4)]
    assert [mp[w] for w in winners] == [(2, 4), (4, 4), (4, 4), (4, 4)]
    assert [mp[lo] for lo in losers] == [(2, 4), (0, 4), (0, 4), (0, 4)]
    ranking = tour._ranking()
    opened = [s for s in tour.specs(2) if s.duplicate and s.duplicate["room"] == "open"]
    round_2 = [(s.seats["E"], s.seats["N"]) for s in opened]
    tables = [(pair_of[e], pair_of[n]) for e, n in round_2]
    assert tables == [
        (ranking[0], ranking[1]),
        (ranking[3], ranking[2]),
        (ranking[4], ranking[5]),
        (ranking[7], ranking[6]),
    ]
    assert set(ranking[:3]) == set(winners[1:])
    assert set(ranking[-3:]) == set(losers[1:])


def test_shared_boards_compare_every_room_of_the_round() -> None:
    """With shared boards every table of a round plays the same board, so each result is compared
    with the 7 other rooms' results of 4 tables (§S9: 2 MP per result beaten, out of 2 × 7)."""
    teams, _ = make_teams(8, seed=3)
    fmt = RoundFormat("deals", deals=1)
    tour = Tournament(teams, "duplicate", NATIONAL, fmt, seed=3, rounds=2, shared_boards=True)
    specs = tour.specs(1)
    assert {s.duplicate["board"] for s in specs if s.duplicate} == {"national-duplicate-s3-r1-b1"}
    assert len({s.deck_seed for s in specs}) == 1
    assert len({s.duplicate["room"] for s in specs if s.duplicate}) == 8
    # every room's EW wins class 1, except the first room's (class 3): its EW pair beats all 7
    tour.record([_result(s.match_id, 3 if i == 0 else 1) for i, s in enumerate(specs)])
    first_ew = next(t.id for t in teams if t.players[0] == specs[0].seats["E"])
    # EW cards: +3 beats seven +1 (14 MP); NS cards, in its closed room: −1 ties six −1 and beats
    # the −3 of the first room's NS pair (6 + 2 MP)
    assert (tour.standings[first_ew].mp, tour.standings[first_ew].mp_max) == (22, 28)
    assert sorted(tour.standings[first_ew].places) == [1, 1]
    assert sum(s.mp_max for s in tour.standings.values()) == 8 * 2 * 2 * 7
