"""A duplicate (複式) round entered on an event day (scoring.md §S9): each drawn table's board is
played in an open and a closed room with the pairs' directions swapped, both rooms are entered
(by a referee or by each room's table token), each submission records who entered it, and the
standings compare the rooms deal by deal and count them as one match."""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import orjson
import pytest
from entry_app import NEW, PAIRS, ok, tap
from streamlit.testing.v1 import AppTest

from dashboards.entry import TableEntry, derive, order_of, table_spec
from dashboards.entry_inbox import NotAllowed, submit
from pipelines.reads.pairing_sheet import duplicate_rooms
from replay import BUILTIN
from replay.rulesets import RoundFormat
from service import registry
from service.accounts import Role, add_account, assign, get_account
from service.principals import for_account, for_grant
from service.tokens import issue_round_tokens, redeem

Open = Callable[[Path, str], AppTest]
NOW = datetime(2026, 5, 1, 9, 30, tzinfo=UTC)
EVENT = "dup-cup"
A, B, C, D = ("a1", "a2"), ("b1", "b2"), ("c1", "c2"), ("d1", "d2")
DRAWN = {  # round 1 as drawn: the first pair E–W, the second N–S
    1: {"E": A[0], "W": A[1], "N": B[0], "S": B[1]},
    2: {"E": C[0], "W": C[1], "N": D[0], "S": D[1]},
}
# Per room table, each deal as (the seat 1st, the result type): the outcome classes of §S9 are
# +3 for a double win, +2 for 1-3, +1 for 1-4 (rules.md §5.8).
DEALS = {
    "1": [("E", "double"), ("N", "one_three")],  # open, A E–W: A +3, then B +2
    "2": [("N", "one_four"), ("N", "double")],  # closed, A N–S: A +1, then A +3
    "3": [("E", "double"), ("E", "one_four")],  # open, C E–W: C +3, C +1
    "4": [("E", "double"), ("E", "one_four")],  # closed, D E–W: D +3, D +1
}


def _events(table: str, room: Any) -> list[dict[str, Any]]:
    spec = table_spec(EVENT, None, None, 1, table, room.seats, {}, duplicate=room.duplicate)
    orders = tuple(tuple(order_of(first, kind)) for first, kind in DEALS[table])
    derived = derive(TableEntry(spec, BUILTIN["national"], RoundFormat("deals", deals=2), orders))
    assert derived.over, derived.refusal
    return derived.events


def test_rooms_of_a_drawn_table() -> None:
    """§S9 / national Art. 29 二: board k at table 2k − 1 (open, seats as drawn) and 2k (closed:
    the E–W pair sits N–S)."""
    rooms = duplicate_rooms(EVENT, None, 1, DRAWN)
    assert list(rooms) == ["1", "2", "3", "4"]
    assert rooms["1"].seats == DRAWN[1] and rooms["1"].duplicate == {"board": "dup-cup-r1-b1", "room": "open"}
    assert rooms["2"].seats == {"E": "b1", "N": "a1", "W": "b2", "S": "a2"}
    assert rooms["2"].duplicate == {"board": "dup-cup-r1-b1", "room": "closed"}
    assert rooms["4"].seats == {"E": "d1", "N": "c1", "W": "d2", "S": "c2"}
    assert rooms["4"].duplicate == {"board": "dup-cup-r1-b2", "room": "closed"}


def test_both_rooms_are_entered_and_count_as_one_match(open_app: Open, tmp_path: Path) -> None:
    """A referee enters the open rooms, the closed rooms' table tokens their own; each file says
    who entered it; after the run the MP table (hand-computed from §S9) counts one match each,
    and the entry page seats round 2 by it (snake seating), again room by room."""
    from pipelines.reads.tournament_data import connect, duplicate_ranking, stage_of
    from pipelines.run.runner import run_pipeline

    rooms = duplicate_rooms(EVENT, None, 1, DRAWN)
    stamp = registry.Stamp("admin", registry.now())
    pairs = tuple(registry.Pair((registry.Player(p), registry.Player(q))) for p, q in (A, B, C, D))
    event = registry.Event(EVENT, None, "national", {"kind": "deals", "deals": 2}, stamp,
                           duplicate=True, pairs=pairs)
    registry.create(tmp_path, event, in_store=())
    registry.record_draw(tmp_path, EVENT, 1, {t: r.seats for t, r in rooms.items()}, None,
                         {t: r.duplicate for t, r in rooms.items()})
    assert registry.load(tmp_path, EVENT).rounds[1].rooms["2"] == rooms["2"].duplicate  # type: ignore[union-attr]

    add_account(tmp_path, "ref", "long enough", Role.REFEREE)
    assign(tmp_path, "ref", [EVENT])
    referee = for_account(get_account(tmp_path, "ref"), NOW)  # type: ignore[arg-type]
    tokens = {t.table: t for t in issue_round_tokens(tmp_path, EVENT, "", 1, [1, 2, 3, 4], "admin", now=NOW)}
    closed = {t: redeem(tmp_path, tokens[t].pin, now=NOW) for t in (2, 4)}
    with pytest.raises(NotAllowed, match="table 1"):  # a closed room's token writes its own table only
        submit(tmp_path, _events("1", rooms["1"]), principal=for_grant(closed[2], NOW), now=NOW)  # type: ignore[arg-type]
    for room in ("1", "3"):
        submit(tmp_path, _events(room, rooms[room]), principal=referee, now=NOW)
    for number, grant in closed.items():
        assert grant is not None
        submit(tmp_path, _events(str(number), rooms[str(number)]), principal=for_grant(grant, NOW), now=NOW)

    starts = {}
    for room in rooms:
        path = tmp_path / "inbox" / "entry" / f"{EVENT}-r1-t{room}.jsonl"
        starts[room] = orjson.loads(path.read_bytes().splitlines()[0])
    assert starts["2"]["duplicate"] == {"board": "dup-cup-r1-b1", "room": "closed"}
    assert starts["2"]["seats"] == {"E": "b1", "N": "a1", "W": "b2", "S": "a2"}
    assert (starts["1"]["entry"]["by"], starts["1"]["entry"]["via"]) == ("ref", "account")
    assert (starts["4"]["entry"]["by"], starts["4"]["entry"]["via"]) == (tokens[4].token_id, "table_token")

    run_pipeline(tmp_path, workers=1, reviews=False)
    con = connect(tmp_path)
    try:
        ranked = duplicate_ranking(con, stage_of(con, EVENT, None))
    finally:
        con.close()
    got = {(r["player_1"], r["player_2"]): r for r in ranked}
    # Board 1, E–W cards: deal 1 A +3 (open) v B −1 (closed), deal 2 A −2 v B −3; N–S cards:
    # deal 1 B −3 v A +1, deal 2 B +2 v A +3: A beats B on all four, 2 MP each. Board 2: every
    # result ties (C and D each +3/+1 E–W, −3/−1 N–S): 1 MP each, both placed 1st four times.
    assert {p: (r["rank"], r["mp"], r["mp_max"]) for p, r in got.items()} == {
        A: (1, 8, 8), C: (2, 4, 8), D: (2, 4, 8), B: (4, 0, 8)
    }
    assert {r["matches"] for r in ranked} == {1}  # the two rooms of a board are one match
    assert got[B]["place_counts"] == [0, 4] and got[C]["place_counts"] == got[D]["place_counts"]

    at = open_app(tmp_path, "entry")
    ok(at)
    assert at.number_input(key="en_round").value == 2
    draw = registry.load(tmp_path, EVENT).rounds[2]  # type: ignore[union-attr]
    pair = {s: (draw.tables[t]["E"], draw.tables[t]["W"]) for t, s in (("1", "EW1"), ("3", "EW2"))}
    rivals = {(draw.tables[t]["N"], draw.tables[t]["S"]) for t in ("1", "3")}
    # §S9 snake: table 1 = ranks 1 v 2 (A v C or D, who share rank 2), table 2 = ranks 4 v 3 (B v …)
    assert (pair["EW1"], pair["EW2"], rivals) == (A, B, {C, D})
    assert [draw.rooms[t]["room"] for t in ("1", "2", "3", "4")] == ["open", "closed"] * 2
    at.number_input(key="en_round").set_value(1)
    at = at.run()
    shown = at.dataframe[0].value  # round 1's rooms as stored
    assert list(shown["room"]) == ["open", "closed"] * 2 and shown["board"].nunique() == 2


def test_the_page_lists_both_rooms_of_each_board(open_app: Open, tmp_path: Path) -> None:
    """A new duplicate event of 8 pairs: 4 drawn tables, so 8 room tables on the page, each
    saying its board and room; the closed room's table enters its own result, seats turned."""
    at = open_app(tmp_path, "entry")
    at.selectbox(key="en_event").select(NEW)
    at = at.run()
    at.text_input(key="en_new_id").input("dup")
    at.text_input(key="en_new_format").input("deals:1")
    at.text_area(key="en_new_pairs").input(PAIRS)
    at.checkbox(key="en_new_duplicate").check()
    at = at.run()
    at.button(key="en_register").click()
    at = at.run()
    ok(at)
    draw = registry.load(tmp_path, "dup").rounds[1]  # type: ignore[union-attr]
    assert sorted(draw.tables, key=int) == [str(t) for t in range(1, 9)]
    assert [draw.rooms[t]["room"] for t in ("1", "2")] == ["open", "closed"]
    heads = [m.value for m in at.markdown if m.value.startswith("**Table")]
    assert heads[:2] == [
        "**Table 1** · Board dup-r1-b1 · Room: open",
        "**Table 2** · Board dup-r1-b1 · Room: closed",
    ]
    at = tap(at, "dup-r1-t2", "N", "double")
    at.button(key="en_dup-r1-t2_submit").click()
    at = at.run()
    ok(at)
    start = orjson.loads((tmp_path / "inbox" / "entry" / "dup-r1-t2.jsonl").read_bytes().splitlines()[0])
    assert start["duplicate"] == {"board": "dup-r1-b1", "room": "closed"}
    opened = draw.tables["1"]
    assert start["seats"] == {"E": opened["N"], "N": opened["E"], "W": opened["S"], "S": opened["W"]}
