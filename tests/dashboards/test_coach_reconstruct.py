"""The coach's replayer logic (dashboards/reconstruct.py, dashboards/table_html.py): hands in the
Guandan order of the level (rules.md §2), the coach's marks (passes that could beat, partner
overtakes, bombs §4, 接风 §5.6), trick winners (§5.4) and the navigation between steps."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from dashboards.reconstruct import (
    marks,
    next_flagged,
    next_trick,
    reconstruct,
)
from dashboards.table_html import MARK_ICONS, card_html, card_text, cards_html, table_html
from replay.cards import display_order, is_wild, single_order
from schemas.vocabulary import CARDS, RANKS

HANDS = {
    "E": ["S3", "S4", "S5", "S6"],
    "N": ["D9", "D9", "D9", "D9", "CK"],
    "W": ["H7", "C7", "SA", "D2"],
    "S": ["SB", "HR", "C5", "C6"],
}


def _plays() -> list[dict]:
    """Trick 1: E leads S3, N passes though able to beat, W's SA overtakes partner E, S and E
    pass, N bombs D9×4 and wins it. Trick 2: N leads CK and goes out, nobody beats it, so trick 3
    is led by N's partner S (接风, rules.md §5.6)."""
    rows = [
        (1, "E", "play", ["S3"], {"combo_type": "single", "combo_rank": "3", "combo_size": 1}),
        (1, "N", "pass", None, {"could_beat": True}),
        (1, "W", "play", ["SA"], {"combo_type": "single", "combo_rank": "A", "overtook_partner": True}),
        (1, "S", "pass", None, {"could_beat": False}),
        (1, "E", "pass", None, {}),
        (
            1,
            "N",
            "play",
            ["D9", "D9", "D9", "D9"],
            {"combo_type": "bomb", "combo_rank": "9", "combo_size": 4, "bomb_class": "bomb4"},
        ),
        (1, "W", "pass", None, {}),
        (1, "S", "pass", None, {}),
        (1, "E", "pass", None, {}),
        (2, "N", "play", ["CK"], {"combo_type": "single", "combo_rank": "K", "went_out": True}),
        (2, "W", "pass", None, {}),
        (2, "S", "pass", None, {}),
        (2, "E", "pass", None, {}),
        (3, "S", "play", ["C5"], {"combo_type": "single", "combo_rank": "5"}),
    ]
    return [
        {"seq": 10 + i, "trick_no": trick, "seat": seat, "action": action, "cards": cards, **flags}
        for i, (trick, seat, action, cards, flags) in enumerate(rows)
    ]


STEPS = reconstruct(HANDS, [], _plays())


def test_level_cards_rank_above_aces_and_below_the_jokers() -> None:
    """rules.md §2: big joker > small joker > level card > A > … > 2, the level rank removed from
    its natural place; the wild heart level card is the last of the level cards."""
    hand = ["HR", "S7", "SA", "H7", "D2", "SB", "C7", "S8", "S6"]
    assert display_order(hand, "7") == ["D2", "S6", "S8", "SA", "S7", "C7", "H7", "SB", "HR"]
    assert display_order(["SA", "S2"], "A") == ["S2", "SA"]


def test_without_a_level_the_natural_order_is_kept() -> None:
    assert display_order(["SB", "S7", "D2"], None) == ["D2", "S7", "SB"]


@pytest.mark.parametrize(
    ("card", "level", "wild"),
    [("H7", "7", True), ("S7", "7", False), ("H8", "7", False), ("HA", "A", True), ("HR", "7", False)],
)
def test_the_heart_level_card_is_wild(card: str, level: str, wild: bool) -> None:
    """rules.md §2: the two heart level cards are wild."""
    assert is_wild(card, level) is wild


@given(level=st.sampled_from(RANKS), cards=st.lists(st.sampled_from(CARDS), max_size=30))
def test_guandan_order_is_a_permutation_with_jokers_last(level: str, cards: list[str]) -> None:
    """Property: sorting keeps every card, and no natural card outranks a level card or a joker."""
    ordered = display_order(cards, level)
    assert sorted(ordered) == sorted(cards)
    strength = [single_order(c, level) for c in ordered]
    assert strength == sorted(strength)
    tops = [i for i, c in enumerate(ordered) if c in ("SB", "HR") or c[1] == level]
    assert tops == list(range(len(ordered) - len(tops), len(ordered)))


def test_marks_flag_what_a_coach_looks_at() -> None:
    by_seq = {int(s.action["seq"]): marks(s.action) for s in STEPS if s.action is not None}
    assert by_seq[11] == ["could_beat"]  # N passed though able to beat
    assert by_seq[12] == ["overtake"]  # W over E's lead
    assert by_seq[13] == []  # a pass that could not beat is no mark
    assert by_seq[15] == ["bomb"]
    assert by_seq[23] == ["jie_feng"]  # S leads after partner N went out unbeaten (rules.md §5.6)
    assert by_seq[19] == []  # N's own lead after winning trick 1 is no 接风


def test_a_lead_after_an_opponent_went_out_is_no_jie_feng() -> None:
    plays = _plays()
    plays[-1] = {**plays[-1], "seat": "W"}  # W (an opponent of N) leads trick 3
    assert marks(reconstruct(HANDS, [], plays)[-1].action) == []


def test_the_trick_winner_is_the_last_play_once_the_trick_is_over() -> None:
    """rules.md §5.4: the player who made the last play wins the trick."""
    end_of_first = next(s for s in STEPS if s.last_of_trick)
    assert end_of_first.winner == "N"
    assert all(s.winner is None for s in STEPS if not s.last_of_trick)


def test_next_trick_and_next_flagged() -> None:
    assert STEPS[next_trick(STEPS, 0)].trick_no == 1 and next_trick(STEPS, 0) == 2
    assert STEPS[next_trick(STEPS, 3)].trick_no == 2
    assert next_trick(STEPS, len(STEPS) - 1) == len(STEPS) - 1
    assert next_flagged([4, 9], 4) == 9
    assert next_flagged([4, 9], 9) == 4  # wraps round
    assert next_flagged([], 3) is None


@pytest.mark.parametrize(("card", "text"), [("SB", "小王"), ("HR", "大王")])
def test_jokers_are_drawn_as_small_and_big_joker(card: str, text: str) -> None:
    for lang in ("en", "zh"):
        assert f">{text}</span>" in card_html(card, "7", lang)


@pytest.mark.parametrize(
    ("card", "level", "text"),
    [("DT", "7", "♦10"), ("H7", "7", "♥7★"), ("S7", "7", "♠7"), ("SB", "7", "小王"), ("HR", None, "大王"),
     ("C2", None, "♣2")],
)
def test_card_text_is_the_card_as_the_table_draws_it(card: str, level: str | None, text: str) -> None:
    """Plain text for tables (the replayer's flags): the same suit symbols, 10 and ★ as the card faces."""
    assert card_text(card, level) == text
    assert f">{text}</span>" in card_html(card, level, "en")


def test_wild_and_level_cards_are_marked() -> None:
    assert "gd-wild" in card_html("H7", "7", "en") and "★" in card_html("H7", "7", "en")
    assert "gd-level" in card_html("S7", "7", "en") and "gd-wild" not in card_html("S7", "7", "en")
    assert "gd-level" not in card_html("S8", "7", "en")
    assert "♦10" in card_html("DT", "7", "en")


def test_hands_are_drawn_in_guandan_order() -> None:
    html = cards_html(["SB", "S7", "SA", "D2"], "7", "en")
    assert html.index("♦2") < html.index("♠A") < html.index("♠7") < html.index("小王")


def test_table_puts_names_on_seats_and_shows_the_trick_winner() -> None:
    names = {"E": "Ann (p1)", "N": "Bo <b>", "W": "Cy (p3)", "S": "Di (p4)"}
    step = next(s for s in STEPS if s.last_of_trick)
    html = table_html(step, names, "7", "en")
    for seat in "ENWS":
        assert f'class="gd-seat gd-{seat}' in html
    assert "Bo &lt;b&gt;" in html and "Bo <b>" not in html  # names are escaped
    assert "won by N" in html
    assert html.count(MARK_ICONS["bomb"]) == 1  # N's bomb in the trick
    chinese = table_html(step, names, "7", "zh")
    assert "本墩赢家" in chinese and "won by" not in chinese


def test_seats_are_named_in_the_pages_language() -> None:
    """The seat panels, the trick's lines and its winner name the seats as the page header does:
    N, E, W, S in English, 北, 东, 西, 南 in Chinese (``naming.seat_name``)."""
    names = {"E": "Ann (p1)", "N": "Bo (p2)", "W": "Cy (p3)", "S": "Di (p4)"}
    step = next(s for s in STEPS if s.last_of_trick)
    english = table_html(step, names, "7", "en")
    assert "<b>N</b> · Bo (p2)" in english and "N Bo (p2): " in english and "won by N Bo (p2)" in english
    chinese = table_html(step, names, "7", "zh")
    for seat, name in {"N": "北", "E": "东", "W": "西", "S": "南"}.items():
        assert f"<b>{name}</b> · {names[seat]}" in chinese and f"<b>{seat}</b>" not in chinese
    assert "北 Bo (p2): " in chinese and "东 Ann (p1): " in chinese and "N Bo (p2)" not in chinese
    assert "本墩赢家 北 Bo (p2)" in chinese


def test_unknown_hands_are_drawn_as_unknown() -> None:
    steps = reconstruct({**HANDS, "W": None}, [], [])
    assert "hand unknown" in table_html(steps[0], {}, "7", "en")
