"""The level rules written once (replay/outcome.py): the level gain (rules.md §5.8), passing and
failing A and what failures cause (§7, §10), the end of a round by levels and its tie-breaks (§7),
for every built-in ruleset and every ruleset file of replay/rulesets/."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from replay.outcome import extra_deal_due, finish_gain, level_outcome, partner_place, round_winner
from replay.rulesets import BUILTIN, Ruleset, parse_ruleset

RULESET_FILES = sorted((Path(__file__).parents[2] / "replay" / "rulesets").glob("*.toml"))
RULESETS: dict[str, Ruleset] = {
    **BUILTIN,
    **{r.id: r for r in (parse_ruleset(p.read_text(encoding="utf-8"), ".toml") for p in RULESET_FILES)},
}
NO_FAILURES = {"EW": 0, "NS": 0}


def test_every_ruleset_file_is_covered() -> None:
    """The tables below name every ruleset: a new file must say how it treats A."""
    assert {p.stem for p in RULESET_FILES} == {"app_strict", "club_back_to_two"}
    assert set(PASSING_A) == set(RULESETS)


@pytest.mark.parametrize(
    ("order", "place", "gain"),
    [
        (["E", "W"], 2, 3),  # §5.7 double win, §5.8 partner 2nd: +3
        (["E", "N", "W", "S"], 3, 2),  # §5.8 partner 3rd: +2
        (["E", "N", "W"], 3, 2),  # the 4th implied (§5.7: the deal ends when three are out)
        (["E", "N", "S", "W"], 4, 1),  # §5.8 partner 4th: +1
        (["E", "N", "S"], 4, 1),
        (["E"], 4, 1),  # an extra deal that ends when the first goes out (§7): only the 1st is known
    ],
)
@pytest.mark.parametrize("ruleset", sorted(RULESETS))
def test_level_gain_by_partner_place(ruleset: str, order: list[str], place: int, gain: int) -> None:
    """rules.md §5.8: only the 1st-place team goes up, by its partner's place, in every ruleset."""
    assert partner_place(order) == place and finish_gain(order) == gain
    out = level_outcome(RULESETS[ruleset], {"EW": "5", "NS": "9"}, "NS", "9", order, NO_FAILURES)
    assert (out.winner, out.gain, out.raised, out.double) == ("EW", gain, gain, place == 2)
    assert out.levels == {"EW": "5678"[gain], "NS": "9"}
    assert not out.a_attempt and out.end is None and out.failures == NO_FAILURES


@pytest.mark.parametrize(
    ("before", "order", "after", "raised"),
    [
        ("Q", ["S", "N"], "A", 2),  # §5.8: a team cannot go past A
        ("A", ["S", "N"], "A", 0),
        ("K", ["S", "E", "N", "W"], "A", 1),
        ("9", ["S", "N"], "Q", 3),
    ],
)
def test_level_gain_capped_at_a(before: str, order: list[str], after: str, raised: int) -> None:
    """rules.md §5.8 and §7: the gain stops at A (``raised`` is what the team really went up)."""
    out = level_outcome(RULESETS["national"], {"EW": "2", "NS": before}, "EW", "2", order, NO_FAILURES)
    assert out.levels["NS"] == after and out.raised == raised and out.gain == finish_gain(order)


def test_cap_is_the_rulesets_top_level() -> None:
    """rules.md §10: a ruleset whose top level is K stops there, and K is where A is played."""
    top_k = replace(RULESETS["national"], max_level="K")
    out = level_outcome(top_k, {"EW": "Q", "NS": "2"}, "EW", "Q", ["E", "W"], NO_FAILURES)
    assert out.levels["EW"] == "K" and out.raised == 1 and not out.a_attempt
    out = level_outcome(top_k, {"EW": "K", "NS": "2"}, "EW", "K", ["E", "W"], NO_FAILURES)
    assert out.a_passed and out.end == "passed_a" and out.match_winner == "EW"


def test_reaching_a_is_not_passing_it() -> None:
    """rules.md §7: "going up to A and passing A in one deal is not allowed" — A must be played."""
    out = level_outcome(RULESETS["national"], {"EW": "Q", "NS": "2"}, "EW", "Q", ["E", "W"], NO_FAILURES)
    assert out.levels["EW"] == "A" and not out.a_attempt and out.end is None


# Per ruleset, what a deal played by EW at A does, by finishing order: (passed, failure counted).
# rules.md §7 (rule books: 1st and partner not 4th; any unpassed deal at A is a failure) and §10
# (app_strict: 1st and 2nd only; njupt: only a 1-4 finish at its own A counts as a failure).
ORDERS = {
    "1-2": ["E", "W"],
    "1-3": ["W", "N", "E", "S"],
    "1-4": ["E", "N", "S", "W"],
    "opponents 1-2": ["N", "S"],
    "opponents 1-3": ["N", "E", "S", "W"],
}
RULE_BOOK = {
    "1-2": (True, False),
    "1-3": (True, False),
    "1-4": (False, True),
    "opponents 1-2": (False, True),
    "opponents 1-3": (False, True),
}
PASSING_A: dict[str, dict[str, tuple[bool, bool]]] = {
    "national": RULE_BOOK,
    "huaian": RULE_BOOK,
    "bcta": RULE_BOOK,
    "jiangsu": RULE_BOOK,
    "club_back_to_two": RULE_BOOK,
    "app_strict": {**RULE_BOOK, "1-3": (False, True)},
    "njupt": {**RULE_BOOK, "opponents 1-2": (False, False), "opponents 1-3": (False, False)},
}


@pytest.mark.parametrize("finish", sorted(ORDERS))
@pytest.mark.parametrize("ruleset", sorted(PASSING_A))
def test_passing_and_failing_a(ruleset: str, finish: str) -> None:
    """rules.md §7 and §10: passing A per ruleset; an attempt not passed is a failure, counted as
    the ruleset counts them; passing A ends the match for the declarers."""
    passed, counted = PASSING_A[ruleset][finish]
    out = level_outcome(RULESETS[ruleset], {"EW": "A", "NS": "7"}, "EW", "A", ORDERS[finish], NO_FAILURES)
    assert out.a_attempt and out.a_passed is passed and out.a_failed is not passed
    assert out.failures == {"EW": int(counted), "NS": 0}
    assert (out.end, out.match_winner) == (("passed_a", "EW") if passed else (None, None))


@pytest.mark.parametrize("ruleset", sorted(RULESETS))
def test_opponents_winning_at_their_a_do_not_pass_it(ruleset: str) -> None:
    """rules.md §7: A is passed only "while a team plays a deal at A as declarers"."""
    out = level_outcome(RULESETS[ruleset], {"EW": "A", "NS": "A"}, "NS", "A", ["E", "W"], NO_FAILURES)
    assert out.a_attempt and not out.a_passed and out.end is None
    assert out.levels == {"EW": "A", "NS": "A"}


# What the failure that reaches the ruleset's limit does (rules.md §7, §10): the order is a 1-4
# finish of the declarers EW at A, a failure in every ruleset.
LIMITS = [
    # bcta: "after the 3rd failure the opponents win the round"
    ("bcta", 2, ("a_failures", "NS"), {"EW": "A", "NS": "7"}, 3),
    # club variant: back to 2 after three failures; the count starts again
    ("club_back_to_two", 2, (None, None), {"EW": "2", "NS": "7"}, 0),
    # NJUPT platform: back to 2 on its 4th 1-4 finish at A
    ("njupt", 3, (None, None), {"EW": "2", "NS": "7"}, 0),
    ("njupt", 2, (None, None), {"EW": "A", "NS": "7"}, 3),
    # rule books without a limit: the team keeps playing A
    ("national", 20, (None, None), {"EW": "A", "NS": "7"}, 21),
    ("huaian", 20, (None, None), {"EW": "A", "NS": "7"}, 21),
    ("jiangsu", 20, (None, None), {"EW": "A", "NS": "7"}, 21),
    ("app_strict", 20, (None, None), {"EW": "A", "NS": "7"}, 21),
]


@pytest.mark.parametrize(("ruleset", "before", "end", "levels", "after"), LIMITS)
def test_what_failures_at_a_cause(
    ruleset: str, before: int, end: tuple[str | None, str | None], levels: dict[str, str], after: int
) -> None:
    """rules.md §7 and §10: the failure limit and action of each ruleset."""
    failures = {"EW": before, "NS": 0}
    out = level_outcome(RULESETS[ruleset], {"EW": "A", "NS": "7"}, "EW", "A", ORDERS["1-4"], failures)
    assert (out.end, out.match_winner) == end
    assert out.levels == levels and out.failures == {"EW": after, "NS": 0}
    assert failures == {"EW": before, "NS": 0}  # the caller's counts are not changed


def test_back_to_two_when_the_opponents_win_the_failed_deal() -> None:
    """rules.md §10 club variant: the third failure sends the declarers back to 2 while the
    opponents, 1st in that deal, go up as usual (§5.8)."""
    out = level_outcome(
        RULESETS["club_back_to_two"], {"EW": "A", "NS": "7"}, "EW", "A", ["N", "S"], {"EW": 2, "NS": 0}
    )
    assert out.levels == {"EW": "2", "NS": "T"} and out.failures == NO_FAILURES and out.end is None


def test_forfeited_deal_is_a_double_win() -> None:
    """rules.md §8: a deal lost to a foul is a double win for the other team (+3), whatever the order."""
    out = level_outcome(
        RULESETS["national"],
        {"EW": "4", "NS": "4"},
        "EW",
        "4",
        ["N", "E", "S", "W"],
        NO_FAILURES,
        forfeit=True,
    )
    assert out.double and out.gain == 3 and out.levels == {"EW": "4", "NS": "7"}


def test_extra_deal_gain() -> None:
    """rules.md §7 jiangsu: the extra deal ends when the first goes out, "获胜方升一级" (one level);
    rulesets without their own gain use §5.8."""
    jiangsu = RULESETS["jiangsu"]
    out = level_outcome(jiangsu, {"EW": "5", "NS": "5"}, None, "5", ["S"], NO_FAILURES, extra_deal=True)
    assert (out.winner, out.gain, out.levels) == ("NS", 1, {"EW": "5", "NS": "6"})
    national = RULESETS["national"]
    out = level_outcome(national, {"EW": "5", "NS": "5"}, "EW", "5", ["N", "S"], NO_FAILURES, extra_deal=True)
    assert out.gain == 3 and out.levels["NS"] == "8"


@pytest.mark.parametrize(
    ("ruleset", "levels", "extra_played", "winner"),
    [
        ("national", {"EW": "9", "NS": "7"}, False, "EW"),  # §7: the higher level wins
        ("bcta", {"EW": "3", "NS": "8"}, False, "NS"),
        ("national", {"EW": "7", "NS": "7"}, False, None),  # §7: equal levels are a draw
        ("njupt", {"EW": "7", "NS": "7"}, False, None),
        ("bcta", {"EW": "7", "NS": "7"}, False, "NS"),  # §7 bcta 單輪勝出: the declarers win
        ("jiangsu", {"EW": "7", "NS": "7"}, True, "EW"),  # §7: the extra deal's 1st team wins
        ("national", {"EW": "7", "NS": "7"}, True, "EW"),
    ],
)
def test_round_winner(ruleset: str, levels: dict[str, str], extra_played: bool, winner: str | None) -> None:
    """rules.md §7: who wins a round the format ends (last deal: NS declared, EW finished 1st)."""
    assert round_winner(RULESETS[ruleset], levels, "NS", "EW", extra_played) == winner


def test_round_winner_after_a_deal_without_declarers() -> None:
    """rules.md §7 bcta: a level round whose last deal had no declarers goes to that deal's winner."""
    assert round_winner(RULESETS["bcta"], {"EW": "2", "NS": "2"}, None, "EW", False) == "EW"


@pytest.mark.parametrize(
    ("ruleset", "breaks", "played", "levels", "due"),
    [
        ("national", True, False, {"EW": "7", "NS": "7"}, True),  # §7 national knockout: 加賽一副
        ("national", True, True, {"EW": "7", "NS": "7"}, True),  # "至決出勝負": until decided
        ("national", True, True, {"EW": "8", "NS": "7"}, False),
        ("national", False, False, {"EW": "7", "NS": "7"}, False),  # not a round the ruleset breaks
        ("jiangsu", True, False, {"EW": "7", "NS": "7"}, True),  # §7 jiangsu: one extra deal
        ("jiangsu", True, True, {"EW": "7", "NS": "7"}, False),  # ... and only one
    ],
)
def test_extra_deal_due(ruleset: str, breaks: bool, played: bool, levels: dict[str, str], due: bool) -> None:
    """rules.md §7: an extra deal breaks a level round where the ruleset says so."""
    assert extra_deal_due(RULESETS[ruleset], breaks, played, levels) is due
