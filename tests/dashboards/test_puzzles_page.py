"""The Puzzles page: an empty store shows the empty state; on the simulated store each puzzle is a
verified one (its solution answered as the best play, another play as worse), a link opens the
puzzle it names, and the page speaks Chinese too."""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path

import pytest
from dash_app import APP, SCRIPT_TIMEOUT_S
from streamlit.testing.v1 import AppTest

Open = Callable[[Path, str], AppTest]


def test_empty_store(open_app: Open, empty_store: Path) -> None:
    at = open_app(empty_store, "puzzles")
    assert not at.exception, [e.message for e in at.exception]
    assert any("No puzzle yet" in i.value for i in at.info)


def test_solution_is_answered_best(open_app: Open, sim_store: Path) -> None:
    at = open_app(sim_store, "puzzles")
    assert not at.exception, [e.message for e in at.exception]
    if any("No puzzle yet" in i.value for i in at.info):
        pytest.skip("the simulated store holds no reviewed mistake with a single winning play")
    chosen = at.selectbox(key="pz_id").value
    plays = at.selectbox(key=f"pz_play:{chosen}")
    answers = []
    for i in range(len(plays.options)):
        at.selectbox(key=f"pz_play:{chosen}").set_value(i).run()
        at.button(key=f"pz_go:{chosen}").click().run()
        assert not at.exception, [e.message for e in at.exception]
        answers.append(bool(at.success))
    assert answers.count(True) == 1


def test_link_opens_the_named_puzzle(monkeypatch: pytest.MonkeyPatch, sim_store: Path) -> None:
    monkeypatch.setenv("GDAN_STORE", str(sim_store))
    at = AppTest.from_file(str(APP), default_timeout=SCRIPT_TIMEOUT_S).run()
    at.switch_page("views/puzzles.py").run()
    options = at.selectbox(key="pz_id").options if at.selectbox else []
    if len(options) < 2:
        pytest.skip("fewer than two puzzles in the simulated store")
    label = options[-1]
    assert re.fullmatch(rf"{len(options)}\. [^·]+ · .+ · deal \d+ · levels lost: [1-9]\d*", label), label
    last = at.selectbox(key="pz_id").select_index(len(options) - 1).run().selectbox(key="pz_id").value
    assert last not in label  # names, not the puzzle's id
    at = AppTest.from_file(str(APP), default_timeout=SCRIPT_TIMEOUT_S)
    at.query_params["puzzle"] = last
    at.query_params["lang"] = "zh"
    at.run()
    at.switch_page("views/puzzles.py").run()
    assert not at.exception, [e.message for e in at.exception]
    assert at.selectbox(key="pz_id").value == last
    assert at.title[0].value == "残局练习"
