"""The entry page on an event day (service/): the address's event always wins, a registered
event's every table stays enterable, the next round is refused while a table has no result
(unless overridden, which is recorded), a taken event id is refused, Add deal waits for seat and
result with a message, matches are dated, and the opponents confirm or dispute a table's result
before it counts (the referee decides a dispute)."""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from pathlib import Path

import orjson
import pytest
from entry_app import NEW, PAIRS, match_of, new_event, ok, open_entry, tap
from streamlit.testing.v1 import AppTest

from service import confirmation, registry

Open = Callable[[Path, str], AppTest]
TABLES = [f"ux-cup-r1-t{t}" for t in range(1, 5)]


def _enter(at: AppTest, match: str, submit: bool = True) -> AppTest:
    """The two deals of bcta's format at ``match`` (E's double win, then N's 1-3: E–W win),
    then Submit."""
    at = tap(at, match, "E", "double")
    at = tap(at, match, "N", "one_three")
    if submit:
        at.button(key=f"en_{match}_submit").click()
        at = at.run()
    return at


def _events(store: Path, match: str) -> list[dict[str, object]]:
    path = store / "inbox" / "entry" / f"{match}.jsonl"
    return [orjson.loads(line) for line in path.read_bytes().splitlines()]


def _round_one(open_app: Open, store: Path, tables: int) -> AppTest:
    """A registered event ``ux-cup`` with ``tables`` of its 4 round-1 tables submitted and run."""
    from dashboards.ui import reload_data
    from pipelines.run.runner import run_pipeline

    at = new_event(open_app(store, "entry"), "bcta", event="ux-cup")
    for match in TABLES[:tables]:
        at = _enter(at, match)
    ok(at)
    run_pipeline(store, workers=1)
    reload_data()
    return at


def test_the_address_event_wins_after_a_run(
    open_app: Open, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The reported case: a store with another event (first in the box), a new event entered and
    run while the page's cached tables predate the run; ``/entry?event=ux-cup&round=1`` opens
    ux-cup round 1, and a correction there writes a revision of ux-cup's match, not the other's."""
    from pipelines.run.runner import run_pipeline

    at = new_event(open_app(tmp_path, "entry"), "bcta", event="a-league")
    for match in ("a-league-r1-t1", "a-league-r1-t2", "a-league-r1-t3", "a-league-r1-t4"):
        at = _enter(at, match)
    run_pipeline(tmp_path, workers=1)
    at = new_event(open_entry(tmp_path, monkeypatch), "bcta", event="ux-cup")  # caches a-league only
    for match in TABLES:
        at = _enter(at, match)
    run_pipeline(tmp_path, workers=1)  # no reload: the cached tables know a-league only
    (tmp_path / "service" / "events" / "ux-cup.json").unlink()  # as a store only, not registered

    linked = open_entry(tmp_path, monkeypatch, event="ux-cup", round="1")
    ok(linked)
    assert linked.selectbox(key="en_event").value.startswith("ux-cup")
    assert linked.number_input(key="en_round").value == 1
    assert linked.query_params["event"] in ("ux-cup", ["ux-cup"])
    linked.selectbox(key="en_correct").select("ux-cup-r1-t1")
    linked = linked.run()
    ok(linked)
    fixed = "ux-cup-r1-t1.rev2"
    linked.button(key=f"en_{fixed}_undo").click()
    linked = tap(linked.run(), fixed, "S", "double")
    linked.button(key=f"en_{fixed}_submit").click()
    linked = linked.run()
    ok(linked)
    written = sorted(p.name for p in (tmp_path / "inbox" / "entry").glob("*.rev2.jsonl"))
    assert written == [f"{fixed}.jsonl"]
    assert _events(tmp_path, fixed)[0]["event"] == {"id": "ux-cup", "round": 1, "table": "1"}


def test_a_missing_table_is_enterable_and_blocks_the_next_round(open_app: Open, tmp_path: Path) -> None:
    at = _round_one(open_app, tmp_path, tables=3)
    at = open_app(tmp_path, "entry")
    ok(at)
    assert at.selectbox(key="en_event").value.startswith("ux-cup")
    at.number_input(key="en_round").set_value(1)
    at = at.run()
    assert len(at.dataframe[0].value) == 3  # the 3 tables in the store
    assert [match_of(at, 1)] == [TABLES[3]]  # and table 4, still enterable
    at.number_input(key="en_round").set_value(2)
    at = at.run()
    ok(at)
    (refused,) = at.error
    assert "round 1 of event ux-cup has no result for tables 4" in refused.value
    assert not [w for w in at.segmented_control if w.key and w.key.endswith("_first")]
    assert registry.overrides(tmp_path, "ux-cup") == []
    at.button(key="en_override_ux-cup_2_btn").click()
    at = at.run()
    ok(at)
    assert any("paired although round 1 has no result for table 4" in w.value for w in at.warning)
    assert len([w for w in at.segmented_control if w.key and w.key.endswith("_first")]) == 3
    (override,) = registry.overrides(tmp_path, "ux-cup")
    assert (override.round, override.stamp.by, override.missing_tables) == (2, "anonymous", ("4",))

    # table 4 entered late: round 2 pairs all 8 pairs without an override
    at.number_input(key="en_round").set_value(1)
    at = _enter(at.run(), TABLES[3])
    ok(at)
    assert (tmp_path / "inbox" / "entry" / f"{TABLES[3]}.jsonl").exists()


def test_a_taken_event_id_is_refused(open_app: Open, tmp_path: Path) -> None:
    at = new_event(open_app(tmp_path, "entry"), "bcta", event="ux-cup")
    at.selectbox(key="en_event").select(NEW)
    at = at.run()
    at.text_input(key="en_new_id").input("ux-cup")
    at.text_area(key="en_new_pairs").input(PAIRS)
    at = at.run()
    ok(at)
    (taken,) = at.error
    assert "ux-cup is taken" in taken.value
    assert not [b for b in at.button if b.key == "en_register"]
    assert len(registry.events(tmp_path)) == 1


def test_add_deal_waits_for_seat_and_result_and_matches_are_dated(open_app: Open, tmp_path: Path) -> None:
    at = new_event(open_app(tmp_path, "entry"), "bcta")
    match = "cup-r1-t1"
    assert at.button(key=f"en_{match}_add").disabled
    assert any("Choose the 1st seat" in c.value for c in at.caption)
    next(w for w in at.segmented_control if w.key == f"en_{match}_first").set_value("E")
    at = at.run()
    assert at.button(key=f"en_{match}_add").disabled  # the seat stays chosen, nothing lost
    assert next(w for w in at.segmented_control if w.key == f"en_{match}_first").value == "E"
    next(w for w in at.segmented_control if w.key == f"en_{match}_kind").set_value("double")
    at = at.run()
    assert not at.button(key=f"en_{match}_add").disabled
    at.button(key=f"en_{match}_add").click()
    at = tap(at.run(), match, "N", "one_three")
    at.button(key=f"en_{match}_submit").click()
    at = at.run()
    start = _events(tmp_path, match)[0]
    assert isinstance(start["t"], str) and datetime.fromisoformat(start["t"]).utcoffset() is not None


def test_opponents_confirm_or_dispute_and_the_referee_decides(open_app: Open, tmp_path: Path) -> None:
    at = new_event(open_app(tmp_path, "entry"), "bcta", confirm=True)
    first, second = "cup-r1-t1", "cup-r1-t2"
    at = _enter(at, first)
    ok(at)
    assert not (tmp_path / "inbox" / "entry" / f"{first}.jsonl").exists()  # held, not counted
    assert any("Waiting for Team E–W" in i.value for i in at.info)
    at.button(key=f"en_{first}.1_confirm").click()
    at = at.run()
    ok(at)
    record = _events(tmp_path, first)[0]["confirmation"]
    assert isinstance(record, dict) and record["confirmed"]["by"].startswith("EW ")
    assert record["entered"]["by"] == "anonymous (NS)"

    at = _enter(at, second)
    at.text_input(key=f"en_{second}.1_reason").input("N–S won deal 2")
    at = at.run()
    at.button(key=f"en_{second}.1_dispute").click()
    at = at.run()
    ok(at)
    assert any("N–S won deal 2" in w.value for w in at.warning)
    assert [p.match for p in confirmation.waiting(tmp_path, disputed=True)] == [second]
    fixing = f"{second}.ref"
    at.button(key=f"en_{fixing}_undo").click()
    at = tap(at.run(), fixing, "N", "double")
    at.button(key=f"en_{fixing}_submit").click()
    at = at.run()
    ok(at)
    events = _events(tmp_path, second)
    record = events[0]["confirmation"]
    assert isinstance(record, dict) and record["resolved"]["corrected"] is True
    assert record["disputed"]["reason"] == "N–S won deal 2"
    assert [e["order"] for e in events if e["type"] == "deal_end"] == [["E", "W"], ["N", "S"]]
    assert not confirmation.waiting(tmp_path)


NAMED = "\n".join(f"p{2 * i + 1:02} = 甲{i} @ 南京 / p{2 * i + 2:02} = 乙{i}" for i in range(8))


def test_names_not_ids_in_the_round_standings_and_promotion(open_app: Open, tmp_path: Path) -> None:
    """Registered names reach the log and show instead of ids: the entry page's seat buttons and
    round table, the Tournament page's standings and the Dan page's close-to-promotion (the id
    only inside the link to the player's page)."""
    from urllib.parse import parse_qs, urlsplit

    from dashboards.ui import reload_data
    from pipelines.run.runner import run_pipeline

    at = new_event(open_app(tmp_path, "entry"), "bcta", pairs=NAMED)
    seats = next(w for w in at.segmented_control if w.key == "en_cup-r1-t1_first")
    assert all("甲" in o or "乙" in o for o in seats.options) and not any("p0" in o for o in seats.options)
    for table in range(1, 5):
        at = _enter(at, f"cup-r1-t{table}")
    run_pipeline(tmp_path, workers=1)
    reload_data()
    at = open_app(tmp_path, "entry")
    at.number_input(key="en_round").set_value(1)
    at = at.run()
    stored = at.dataframe[0].value
    assert set(stored["player_E"]) <= {f"甲{i}" for i in range(8)}

    def shown(link: str) -> tuple[str, str]:
        query = parse_qs(urlsplit(link).query)
        return query["player"][0], query["name"][0]

    tournament = open_app(tmp_path, "tournament")
    ok(tournament)
    standings = next(d.value for d in tournament.dataframe if "player_1" in d.value.columns)
    pairs = [shown(link) for link in standings["player_1"]]
    assert all(name.startswith(("甲", "乙")) and pid.startswith("p") for pid, name in pairs)
    assert all("甲" in team for team in standings["team"])
    dan = open_app(tmp_path, "dan")
    ok(dan)
    near = next(d.value for d in dan.dataframe if "points_to_next" in d.value.columns)
    assert not near.empty and all(shown(link)[1][0] in "甲乙" for link in near["player_id"])
