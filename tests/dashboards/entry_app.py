"""Helpers of the results entry page's AppTest tests: the page opened at an address, a new event
registered from its form, deals tapped in."""

from __future__ import annotations

from pathlib import Path

import pytest
from dash_app import APP, SCRIPT_TIMEOUT_S
from streamlit.testing.v1 import AppTest

NEW = "\0new"
PAIRS = "\n".join(f"p{2 * i + 1:02}/p{2 * i + 2:02}" for i in range(8))


SWISS, LEAGUE = "national-swiss-s11", "bcta-league-s12"  # the sim store's (tests/conftest.py)


def open_entry(store: Path, monkeypatch: pytest.MonkeyPatch, **params: str) -> AppTest:
    """The entry page opened at ``/entry?params``, as a copied link would."""
    monkeypatch.setenv("GDAN_STORE", str(store))
    at = AppTest.from_file(str(APP), default_timeout=SCRIPT_TIMEOUT_S)
    for key, value in params.items():
        at.query_params[key] = value
    at.run()
    at.switch_page("views/entry.py")
    for key, value in params.items():
        at.query_params[key] = value
    return at.run()


def ok(at: AppTest) -> None:
    """The run raised nothing."""
    assert not at.exception, [e.message for e in at.exception]


def new_event(
    at: AppTest, rules: str, event: str = "cup", confirm: bool = False, pairs: str = PAIRS
) -> AppTest:
    """Register a new event of 8 pairs from the form; the page then shows its round 1."""
    at.selectbox(key="en_event").select(NEW)
    at = at.run()
    at.text_input(key="en_new_id").input(event)
    at.selectbox(key="en_new_rules").select(rules)
    at.text_area(key="en_new_pairs").input(pairs)
    if confirm:
        at.checkbox(key="en_new_confirm").check()
    at = at.run()
    at.button(key="en_register").click()
    return at.run()


def match_of(at: AppTest, table: int) -> str:
    """The match id of the ``table``-th table box with taps on the page."""
    seats = [w for w in at.segmented_control if w.key and w.key.endswith("_first")]
    return str(seats[table - 1].key).removeprefix("en_").removesuffix("_first")


def tap(at: AppTest, match: str, first: str, kind: str) -> AppTest:
    """Enter one deal: the 1st seat, the result type, then Add deal (enabled once both are chosen)."""
    next(w for w in at.segmented_control if w.key == f"en_{match}_first").set_value(first)
    next(w for w in at.segmented_control if w.key == f"en_{match}_kind").set_value(kind)
    at = at.run()  # Add deal is enabled once both are chosen
    at.button(key=f"en_{match}_add").click()
    return at.run()
