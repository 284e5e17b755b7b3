"""The results entry page (dashboards/views/entry.py) through ``streamlit.testing.v1.AppTest``:
a new event's round 1 is paired (scoring.md §S8), deals are tapped in, the replay's levels and
refusals show, finished tables are submitted to the inbox, and after the pipeline the event's
next round is paired from its standings."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import orjson
import pytest
from entry_app import LEAGUE, SWISS
from entry_app import match_of as _match_of
from entry_app import new_event as _new_event
from entry_app import ok as _ok
from entry_app import open_entry as _link
from entry_app import tap as _tap
from streamlit.testing.v1 import AppTest

Open = Callable[[Path, str], AppTest]


def test_new_event_is_paired_entered_and_submitted(open_app: Open, tmp_path: Path) -> None:
    at = open_app(tmp_path, "entry")
    _ok(at)
    at = _new_event(at, "bcta")
    _ok(at)
    assert len([w for w in at.segmented_control if w.key.endswith("_first")]) == 4  # 8 pairs, 4 tables
    match = _match_of(at, 1)
    assert match == "cup-r1-t1"
    assert at.button(key=f"en_{match}_submit").disabled  # nothing entered yet
    at = _tap(at, match, "E", "double")
    at = _tap(at, match, "N", "one_three")
    _ok(at)
    shown = at.dataframe[0].value
    assert shown["Level"].tolist() == ["2", "5"]  # deal 2 at E–W's level (rules.md §2)
    assert shown["Levels after (E–W : N–S)"].tolist() == ["5 : 2", "5 : 4"]
    assert any("Round over" in s.value and "Team E–W" in s.value for s in at.success)
    at.button(key=f"en_{match}_submit").click()
    at = at.run()
    _ok(at)
    path = tmp_path / "inbox" / "entry" / f"{match}.jsonl"
    events = [orjson.loads(line) for line in path.read_bytes().splitlines()]
    assert [e["type"] for e in events] == ["match_start", *["deal_start", "deal_end"] * 2, "match_end"]
    assert events[-1]["winner"] == "EW" and events[0]["rules"] == "bcta"
    assert any("Submitted" in i.value for i in at.info)


def test_refused_entry_shows_the_rule(open_app: Open, tmp_path: Path) -> None:
    """until_a (national): the fifth double win passes A; a sixth deal is refused by the replay."""
    at = _new_event(open_app(tmp_path, "entry"), "national")
    match = _match_of(at, 2)
    for _ in range(6):
        at = _tap(at, match, "S", "double")
    _ok(at)
    (error,) = at.error
    assert "match already over" in error.value and "Deal 6" in error.value  # the code in words
    assert at.button(key=f"en_{match}_submit").disabled
    at.button(key=f"en_{match}_undo").click()
    at = at.run()
    assert not at.error and any("Round over" in s.value for s in at.success)


def test_existing_event_pairs_the_next_round_and_corrects(open_app: Open, tmp_path: Path) -> None:
    from dashboards.ui import reload_data
    from pipelines.run.runner import run_pipeline

    at = _new_event(open_app(tmp_path, "entry"), "bcta")
    for table in range(1, 5):
        match = f"cup-r1-t{table}"
        at = _tap(at, match, "E" if table % 2 else "N", "double")
        at.button(key=f"en_{match}_submit").click()
        at = at.run()
    run_pipeline(tmp_path, workers=1)
    reload_data()  # as the sidebar's button: the cached connection predates the run
    at = open_app(tmp_path, "entry")
    _ok(at)
    assert at.selectbox(key="en_event").value.startswith("cup")
    assert at.number_input(key="en_round").value == 2  # the round after the last with results
    assert len([w for w in at.segmented_control if w.key.endswith("_first")]) == 4
    at.number_input(key="en_round").set_value(1)
    at = at.run()
    assert len(at.dataframe[0].value) == 4  # round 1's matches, from the store
    at.button(key="en_pair_next").click()
    at = at.run()
    _ok(at)
    pairing = next(d.value for d in at.dataframe if "ew_team" in d.value.columns)
    assert pairing["table"].tolist() == [1, 2, 3, 4]
    assert any(b.key == "en_next_csv" for b in at.get("download_button"))

    # a correction: table 1's deal was N–S's double win, not E–W's (docs/event-extensions.md)
    at.selectbox(key="en_correct").select("cup-r1-t1")
    at = at.run()
    _ok(at)
    fixed = "cup-r1-t1.rev2"
    loaded = next(d.value for d in at.dataframe if "Level" in d.value.columns)
    assert loaded["Finishing order"].tolist() == ["E W"]  # the deals as stored
    at.button(key=f"en_{fixed}_undo").click()
    at = _tap(at.run(), fixed, "N", "double")
    at.button(key=f"en_{fixed}_submit").click()
    at = at.run()
    _ok(at)
    path = tmp_path / "inbox" / "entry" / f"{fixed}.jsonl"
    start = orjson.loads(path.read_bytes().splitlines()[0])
    assert (start["match"], start["revision"]) == ("cup-r1-t1", 2)
    run_pipeline(tmp_path, workers=1)
    from pipelines.storage.warehouse import connect

    con = connect(tmp_path)
    row = con.execute("SELECT revision, winner FROM matches WHERE match_id = 'cup-r1-t1'").fetchone()
    superseded = con.execute("SELECT revision FROM superseded WHERE match_id = 'cup-r1-t1'").fetchall()
    con.close()
    assert row == (2, "NS") and superseded == [(1,)]


def _choose(at: AppTest, event: str) -> AppTest:
    box = at.selectbox(key="en_event")
    box.select_index(next(i for i, o in enumerate(box.options) if f"({event})" in o))
    return at.run()


def test_round_follows_the_event_and_the_address(sim_store: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The Round box is the chosen event's next round, also after switching event (not the last
    event's), and the event and round are in the address like the other pages' choices."""
    at = _link(sim_store, monkeypatch)
    at = _choose(at, LEAGUE)
    _ok(at)
    assert at.number_input(key="en_round").value == 3  # the league has 2 rounds
    at = _choose(at, SWISS)
    _ok(at)
    assert at.number_input(key="en_round").value == 4  # the Swiss event has 3 rounds
    assert at.query_params["event"] in (SWISS, [SWISS]) and "round" not in at.query_params
    assert not at.error  # round 4 is paired from the standings after round 3
    at.number_input(key="en_round").set_value(2)
    at = at.run()
    assert at.query_params["round"] in ("2", ["2"])
    at = _choose(at, LEAGUE)
    assert at.number_input(key="en_round").value == 3 and "round" not in at.query_params

    linked = _link(sim_store, monkeypatch, event=SWISS, round="2")
    _ok(linked)
    assert linked.selectbox(key="en_event").value.startswith(SWISS)
    assert linked.number_input(key="en_round").value == 2
    assert len(linked.dataframe[0].value) == 4  # round 2's matches, from the store
    stale = _link(sim_store, monkeypatch, event="gone", round="x")
    _ok(stale)
    (refused,) = stale.error  # an unknown event is refused, never replaced by another one
    assert "gone" in refused.value and not stale.selectbox and not stale.segmented_control


def test_the_default_event_can_be_entered(sim_store: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Without an address the page opens on a pair event, not on the league whose pairing is
    refused (partners rotate)."""
    at = _link(sim_store, monkeypatch)
    _ok(at)
    assert at.selectbox(key="en_event").value.startswith(SWISS) and not at.error


def test_individual_event_is_refused_without_tables(sim_store: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The league's partners rotate: no one-player teams, and the refusal in the page's language
    (the CLI's English only on the English page)."""
    at = _link(sim_store, monkeypatch, event=LEAGUE)
    _ok(at)
    (error,) = at.error
    assert f"{LEAGUE} is an individual event" in error.value and "needs fixed pairs" in error.value
    assert not [w for w in at.segmented_control if w.key.endswith("_first")]  # no tables to enter
    assert not at.info  # not "press Pair next round to see the pairing"
    at.button(key="en_pair_next").click()
    at = at.run()
    _ok(at)
    assert [e.value for e in at.error] == [error.value, error.value]
    assert not any("ew_team" in d.value.columns for d in at.dataframe)  # no pairing table

    # (AppTest formats the event box's options in English when it runs the page again, so the
    # Chinese page is only opened, not clicked)
    chinese = _link(sim_store, monkeypatch, lang="zh", event=LEAGUE)
    _ok(chinese)
    (error,) = chinese.error
    assert error.value.startswith(f"无法编排: {LEAGUE} 是个人赛") and "individual" not in error.value
    assert not [w for w in chinese.segmented_control if w.key.endswith("_first")]


def test_first_out_buttons_name_the_seats_in_the_pages_language(open_app: Open, tmp_path: Path) -> None:
    """The 上游 buttons say 东/北/西/南 on the Chinese page, as the table headers do (E/N/W/S in English)."""
    at = _new_event(open_app(tmp_path, "entry"), "bcta")
    _ok(at)
    first = next(w for w in at.segmented_control if w.key.endswith("_first"))
    assert [label.split()[0] for label in first.options] == ["E", "N", "W", "S"]
    at = at.sidebar.radio(key="lang").set_value("zh").run()
    _ok(at)
    first = next(w for w in at.segmented_control if w.key.endswith("_first"))
    assert [label.split()[0] for label in first.options] == ["东", "北", "西", "南"]
