"""A deal's value in match terms (replay.match_value): the cap at A, passing and failing A and
the end of the format (rules.md §5.8, §7) change what a level is worth."""

from __future__ import annotations

import pytest

from replay.match_value import MatchState, finishing_order, outcome_chance, win_chance
from replay.outcome import finish_gain
from replay.rulesets import BUILTIN, Ruleset

NATIONAL = BUILTIN["national"]
BCTA = BUILTIN["bcta"]
VALUES = (3, 2, 1, -1, -2, -3)


def chances(state: MatchState, ruleset: Ruleset = NATIONAL) -> dict[int, float]:
    return {v: outcome_chance(ruleset, state, "EW", v) for v in VALUES}


@pytest.mark.parametrize("value", VALUES)
def test_finishing_order_is_worth_its_value(value: int) -> None:
    """rules.md §5.8: partner 2nd / 3rd / 4th is worth 3 / 2 / 1 levels to the 1st's team."""
    order = finishing_order("EW", value)
    assert finish_gain(order) == abs(value)
    assert (order[0] in "EW") == (value > 0)


def test_levels_above_a_are_worth_nothing_at_k() -> None:
    """rules.md §5.8, §7: at K every win takes the team to A (capped), so +3, +2 and +1 are worth
    the same; A must be played, so none of them ends the match."""
    c = chances(MatchState.of({"EW": "K", "NS": "Q"}, {}, "EW", "K", None))
    assert c[3] == c[2] == c[1] < 1.0
    assert c[1] > c[-1] > c[-2] == c[-3]  # NS at Q: +2 and +3 both reach A


def test_passing_a_wins_the_match_failing_does_not() -> None:
    """rules.md §7: declarers at A pass with 1st and partner not 4th (+3, +2): the match is won;
    +1 (partner 4th) is a failed attempt (national: no limit), worth less than passing and more
    than a loss, since the team wins the next deal's declaring and stays at A."""
    c = chances(MatchState.of({"EW": "A", "NS": "Q"}, {}, "EW", "A", None))
    assert c[3] == c[2] == 1.0
    assert c[2] > c[1] > c[-1] > 0.0


def test_third_failure_at_a_loses_a_bcta_round() -> None:
    """rules.md §7 (bcta): after the 3rd failure at A the opponents win the round."""
    state = MatchState.of({"EW": "A", "NS": "5"}, {"EW": 2}, "EW", "A", 5)
    c = chances(state, BCTA)
    assert c[3] == c[2] == 1.0
    assert c[1] == c[-1] == c[-2] == c[-3] == 0.0


def test_when_the_other_team_is_at_a() -> None:
    """rules.md §7: with the other team at A, losing the deal hands it an attempt at A, so every
    loss costs more than the gap between our own wins."""
    c = chances(MatchState.of({"EW": "Q", "NS": "A"}, {}, "EW", "Q", None))
    assert c[3] == c[2] > c[1]  # Q + 2 and Q + 3 are both A
    assert c[-1] == c[-2] == c[-3]  # NS is at A already: its margin does not matter
    assert c[1] - c[-1] > 0.05


def test_last_deal_counts_only_the_levels() -> None:
    """rules.md §7 (deals format): after the last deal the higher level wins; bcta breaks equal
    levels for the declarers (draw_breaker), national counts a draw as ½."""
    state = MatchState.of({"EW": "5", "NS": "7"}, {}, "EW", "5", 0)
    assert chances(state) == {3: 1.0, 2: 0.5, 1: 0.0, -1: 0.0, -2: 0.0, -3: 0.0}
    assert chances(state, BCTA)[2] == 1.0


def test_win_chances_are_complementary_and_need_a_deal() -> None:
    levels = {"EW": "6", "NS": "9"}
    ew = win_chance(NATIONAL, "EW", levels, {}, "NS", 4)
    assert ew + win_chance(NATIONAL, "NS", levels, {}, "NS", 4) == pytest.approx(1.0)
    assert 0.0 < ew < 0.5
    with pytest.raises(ValueError, match="deals_left"):
        win_chance(NATIONAL, "EW", levels, {}, "NS", 0)
