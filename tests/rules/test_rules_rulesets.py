"""Rulesets as data (rules.md §6, §7, §10): the four rule books and custom TOML/JSON files."""

from __future__ import annotations

import json
from dataclasses import FrozenInstanceError
from pathlib import Path

import pytest

import replay
from replay import BUILTIN, get_ruleset
from simulator.api import resolve_rules

EXAMPLES = Path(replay.__file__).parent / "rulesets"

BOOKS = [
    # (ruleset, return constraint per §6 table, A-failure rule per §7, default format per §7)
    ("national", ("T", True, False, False, "all"), (None, "none"), ("until_a", None, None)),
    ("huaian", ("T", True, False, False, "partner_only"), (None, "none"), ("until_a", None, None)),
    ("bcta", ("T", False, True, False, "all"), (3, "lose_round"), ("timed_deals", 11, 60)),
    ("jiangsu", ("T", True, False, True, "all"), (None, "none"), ("timed_deals", 9, 50)),
]


@pytest.mark.parametrize(("rid", "ret", "afail", "fmt"), BOOKS, ids=[b[0] for b in BOOKS])
def test_rule_books(rid: str, ret: tuple, afail: tuple, fmt: tuple) -> None:
    r = get_ruleset(rid)
    rr = r.returns
    got = (rr.max_rank, rr.fallback_lowest, rr.exclude_level_cards, rr.not_tribute_card, rr.applies_to)
    assert got == ret
    assert (r.a.failure_limit, r.a.failure_action) == afail
    assert (r.default_format.kind, r.default_format.deals, r.default_format.minutes) == fmt
    assert r.full_house_joker_pair is True


def test_bcta_draw_goes_to_declarers() -> None:
    """§7: bcta gives a drawn round to the declarers."""
    assert get_ruleset("bcta").draw_breaker == "declarers"


def test_rulesets_are_frozen() -> None:
    with pytest.raises(FrozenInstanceError):
        BUILTIN["national"].max_level = "K"  # type: ignore[misc]


def test_unknown_ruleset() -> None:
    with pytest.raises(KeyError, match="known: bcta, huaian, jiangsu"):
        get_ruleset("moon")


def test_example_toml_files_load() -> None:
    club = resolve_rules(str(EXAMPLES / "club_back_to_two.toml"))
    assert (club.a.failure_limit, club.a.failure_action) == (3, "back_to_two")
    assert club.returns == get_ruleset("national").returns
    app = resolve_rules(str(EXAMPLES / "app_strict.toml"))
    assert app.a.pass_rule == "first_and_second" and app.full_house_joker_pair is False
    assert app.returns.applies_to == "partner_only" and app.returns.exclude_level_cards


def test_json_ruleset_and_typos(tmp_path: Path) -> None:
    good = tmp_path / "r.json"
    good.write_text(json.dumps({"id": "x", "base": "bcta", "returns": {"max_rank": "9"}}))
    r = resolve_rules(str(good))
    assert r.returns.max_rank == "9" and r.returns.exclude_level_cards
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps({"id": "x", "retuns": {}}))
    with pytest.raises(ValueError, match="unknown ruleset keys"):
        resolve_rules(str(bad))
