"""``pipelines.steps.player_patterns``: the per-seat-deal and per-player counts equal a plain-Python
count of the same definitions on random plays (property), ``player_patterns`` is the sum of
``seat_patterns``, and unknown players keep the population sums whole."""

from __future__ import annotations

from collections import Counter
from typing import Any

import duckdb
import pyarrow as pa
from hypothesis import given, settings
from hypothesis import strategies as st
from pipeline_helpers import pattern_tables

from schemas.tables import DEAL_HANDS, PLAYS, TRIBUTES

SEATS = "ENWS"
PARTNER = {"E": "W", "W": "E", "N": "S", "S": "N"}  # rules.md §1: partners sit opposite
RANKS = "23456789TJQKA"  # natural rank 2..14 of a return card (rules.md §6)
PLAYER_OF = {"E": "p1", "N": "p2", "W": "p3", "S": None}  # S: an unknown player

play_rows = st.lists(
    st.fixed_dictionaries({
        "deal_no": st.integers(1, 3),
        "seat": st.sampled_from(SEATS),
        "action": st.sampled_from(["play", "pass"]),
        "is_lead": st.booleans(),
        "could_beat": st.none() | st.booleans(),
        "overtook_partner": st.none() | st.booleans(),
        "table_seat": st.none() | st.sampled_from(SEATS),
        "bomb_class": st.none() | st.sampled_from(["bomb4", "joker_bomb"]),
        "opp_min_left": st.none() | st.integers(0, 27),
        "went_out": st.booleans(),
        "combo_type": st.none() | st.sampled_from(["single", "pair", "bomb"]),
    }),
    max_size=40,
)
hand_deals = st.sets(st.tuples(st.integers(1, 3), st.sampled_from(SEATS)))
returns = st.lists(st.tuples(st.sampled_from(SEATS), st.sampled_from([*RANKS, "B", "R"]),
                             st.sampled_from(["single", "double", "anti"])), max_size=6)


def _con(plays: list[dict[str, Any]], hands: set[tuple[int, str]],
         tributes: list[tuple[str, str, str]]) -> duckdb.DuckDBPyConnection:
    con = duckdb.connect()
    for i, row in enumerate(plays):
        row.update(match_id="m", trick_no=1, seq=i, pos_in_trick=0, player_id=PLAYER_OF[row["seat"]])
    hand_rows = [{"match_id": "m", "deal_no": d, "seat": s, "player_id": PLAYER_OF[s]} for d, s in hands]
    card = {"B": "SB", "R": "HR"}
    tribute_rows = [{"match_id": "m", "deal_no": 1, "kind": kind, "receiver_player": PLAYER_OF[seat],
                     "return_card": None if kind == "anti" else card.get(rank, f"H{rank}")}
                    for seat, rank, kind in tributes]
    for name, rows, schema in (("plays", plays, PLAYS), ("deal_hands", hand_rows, DEAL_HANDS),
                               ("tributes", tribute_rows, TRIBUTES)):
        full = [{f.name: r.get(f.name) for f in schema} for r in rows]
        con.register(name, pa.Table.from_pylist(full, schema=schema))
    return con


def _per_seat_deal(plays: list[dict[str, Any]],
                   hands: set[tuple[int, str]]) -> dict[tuple[int, str], Counter[str]]:
    """The play-pattern definitions of ``pipelines.steps.player_patterns``, one play at a time, per
    seat-deal (deal_no, seat) with at least one action."""
    out: dict[tuple[int, str], Counter[str]] = {}
    last_play: dict[int, dict[str, Any]] = {}
    for row in plays:
        c = out.setdefault((row["deal_no"], row["seat"]), Counter())
        is_play = row["action"] == "play"
        pass_beat = row["action"] == "pass" and row["could_beat"] is True
        c["pass_beat"] += pass_beat
        c["able_to_beat"] += pass_beat or (is_play and not row["is_lead"])
        c["overtakes"] += row["overtook_partner"] is True
        c["facing_partner"] += not row["is_lead"] and row["table_seat"] == PARTNER[row["seat"]]
        if row["bomb_class"] is not None:
            c["bombs"] += 1
            if row["opp_min_left"] is not None:
                c["bomb_opp_left_sum"] += row["opp_min_left"]
                c["bomb_opp_left_n"] += 1
        prev = last_play.get(row["deal_no"])
        if (row["is_lead"] and prev is not None and prev["went_out"]
                and prev["seat"] == PARTNER[row["seat"]] and (row["deal_no"], row["seat"]) in hands):
            c["jie_feng"] += 1  # rules.md §5.6
        if is_play:
            last_play[row["deal_no"]] = row
    return out


def _expected(plays: list[dict[str, Any]], hands: set[tuple[int, str]],
              tributes: list[tuple[str, str, str]]) -> dict[str | None, Counter[str]]:
    """The definitions of ``pipelines.steps.player_patterns``, counted one row at a time, per player."""
    out: dict[str | None, Counter[str]] = {}
    for _, seat in hands:
        out.setdefault(PLAYER_OF[seat], Counter())["deals"] += 1
    for (_, seat), counts in _per_seat_deal(plays, hands).items():
        out.setdefault(PLAYER_OF[seat], Counter()).update(counts)
    for seat, rank, kind in tributes:
        if kind != "anti":
            c = out.setdefault(PLAYER_OF[seat], Counter())
            c["returns"] += 1
            if rank in RANKS:
                c["return_rank_sum"] += RANKS.index(rank) + 2
                c["return_rank_n"] += 1
    return out


@settings(max_examples=40, deadline=None)
@given(play_rows, hand_deals, returns)
def test_counts_follow_the_definitions(plays: list[dict[str, Any]], hands: set[tuple[int, str]],
                                       tributes: list[tuple[str, str, str]]) -> None:
    got = pattern_tables(_con(plays, hands, tributes))["player_patterns"].to_pylist()
    expected = _expected(plays, hands, tributes)
    assert {r["player_id"] for r in got} == set(expected)
    for row in got:
        want = expected[row["player_id"]]
        counts = {k: v for k, v in row.items() if k != "player_id" and v}
        assert counts == {k: v for k, v in want.items() if v}


@settings(max_examples=40, deadline=None)
@given(play_rows, hand_deals)
def test_seat_patterns_count_each_seat_deal(plays: list[dict[str, Any]], hands: set[tuple[int, str]]) -> None:
    tables = pattern_tables(_con(plays, hands, []))
    got = tables["seat_patterns"].to_pylist()
    keys = [(r["deal_no"], r["seat"]) for r in got]
    assert keys == sorted(keys), "sorted by match and deal"
    expected = _per_seat_deal(plays, hands)
    assert set(keys) == set(expected) and len(keys) == len(set(keys))
    for row in got:
        assert row["match_id"] == "m" and row["player_id"] == PLAYER_OF[row["seat"]]
        counts = {k: v for k, v in row.items() if k not in {"match_id", "deal_no", "seat", "player_id"} and v}
        assert counts == {k: v for k, v in expected[(row["deal_no"], row["seat"])].items() if v}


@settings(max_examples=25, deadline=None)
@given(play_rows)
def test_leads_per_type_sum_to_every_lead(plays: list[dict[str, Any]]) -> None:
    leads = pattern_tables(_con(plays, set(), []))["player_leads"].to_pylist()
    want = Counter((r["player_id"], r["combo_type"] or "?")
                   for r in plays if r["is_lead"] and r["action"] == "play")
    assert {(r["player_id"], r["combo_type"]): r["leads"] for r in leads} == dict(want)
