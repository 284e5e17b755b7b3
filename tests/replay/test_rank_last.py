"""The ``rank_last`` ruling (docs/event-extensions.md): the offender is ranked last (下遊/末游) in the
deal, the finishing places of the others stand and everyone behind the offender moves up.

Rule books (they win over rules.md, whose §8 knows only the forfeiting foul):
- seed 002 (``national``) Art. 11 報牌, 判罰 2(3): "違規者出完全手牌的，判違規者下遊。如搭檔先其出完全手牌，
  搭檔成績保留。" (the partner not yet out: the deal is lost as a double win — the existing ``foul``);
- seed 000 (``huaian``) Art. 18 ④: "判其該局比賽作為下游處理。如該選手在該局比賽中獲得上游，則判二游選手成為
  上游，以下類推。";
- seed 003 (``jiangsu``) 报牌: "判违规者末游 … 已经产生的头游、二游有效,如违规者头游,则二游变头游,依次类推。"
The amended order decides the level gain (rules.md §5.8) and the next deal's tribute (rules.md §6).
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
from replay_builder import TEAM, Log

from replay import replay_match
from replay.events import RULING_KINDS

BOOKS = ("national", "huaian", "jiangsu")
ROOT = Path(__file__).resolve().parents[2]


def _played(rules: str, out: list[str], leader: str = "W") -> Log:
    """Deal 1 of a match played until the seats ``out`` went out (the deal is over)."""
    log = Log(rules)
    log.deal(leader=leader, seed=11)
    log.play_out(out, leader=leader)
    return log


def _insert(log: Log, index: int, **payload: Any) -> None:
    """Insert a ruling event at ``index`` of the stream and renumber ``seq``."""
    log.events.insert(index, {"v": 1, "match": log.match, "seq": 0, "type": "ruling", **payload})
    for seq, ev in enumerate(log.events):
        ev["seq"] = seq


def _last_play_of(log: Log, seat: str) -> int:
    return max(i for i, e in enumerate(log.events) if e["type"] == "play" and e["seat"] == seat)


@pytest.mark.parametrize("rules", BOOKS)
@pytest.mark.parametrize("when", ["before_going_out", "after_the_deal"])
def test_book_example_partner_out_first(rules: str, when: str) -> None:
    """national Art. 11 判罰 2(3) (搭檔先其出完全手牌，搭檔成績保留), jiangsu 报牌, rules.md §5.8/§6: W goes
    out 1st, his partner E 2nd without having reported. W keeps 上遊, E is 下遊: EW win 1st+4th, +1
    (2 → 3), and the next deal is a single tribute E → W, E leading."""
    log = _played(rules, ["W", "E"])
    ruling = {"kind": "rank_last", "seat": "E", "note": "did not report 10 cards"}
    _insert(log, _last_play_of(log, "E") if when == "before_going_out" else len(log.events), **ruling)
    log.end_deal(["W", "N", "S", "E"], levels={"EW": "3", "NS": "2"})
    log.deal("3", "EW", seed=12)
    log.tribute("E", "W")
    log.give_back("W", "E")
    log.play_out(["E", "N", "S"], leader="E")
    log.end_deal(levels={"EW": "4", "NS": "2"})
    log.end("abandoned")
    r = log.replay()
    assert r.status == "valid", r.error
    d1, d2 = r.rows["deals"]
    assert d1["finish_order"] == ["W", "N", "S", "E"]
    assert (d1["winning_team"], d1["level_gain"], d1["double_win"], d1["foul"]) == ("EW", 1, False, False)
    assert (d1["level_EW_after"], d1["level_NS_after"]) == ("3", "2")
    assert (d2["tribute_kind"], d2["leader"]) == ("single", "E")
    assert [(h["seat"], h["finish_position"]) for h in r.rows["deal_hands"] if h["deal_no"] == 1] == [
        ("E", 4), ("N", 2), ("W", 1), ("S", 3)
    ]
    row = r.rows["rulings"][0]
    assert (row["kind"], row["seat"], row["team"], row["deal_no"]) == ("rank_last", "E", "EW", 1)


@pytest.mark.parametrize("rules", BOOKS)
def test_first_place_offender_next_tribute(rules: str) -> None:
    """huaian Art. 18 ④ (如該選手…獲得上游，則判二游選手成為上游), jiangsu (如违规者头游,则二游变头游),
    rules.md §6: W went out 1st and E 2nd; W ranked last makes E 上遊 and W 下遊: EW +1, and the next deal's
    single tribute goes W → E, W leading."""
    log = _played(rules, ["W", "E"])
    log.ruling("rank_last", seat="W")
    log.end_deal(["E", "S", "N", "W"], levels={"EW": "3", "NS": "2"})
    log.deal("3", "EW", seed=12)
    log.tribute("W", "E")
    log.give_back("E", "W")
    log.play_out(["W", "N", "S"], leader="W")
    log.end_deal(levels={"EW": "4", "NS": "2"})
    log.end("abandoned")
    r = log.replay()
    assert r.status == "valid", r.error
    d1, d2 = r.rows["deals"]
    assert (d1["finish_order"], d1["winning_team"], d1["level_gain"]) == (["E", "S", "N", "W"], "EW", 1)
    assert (d2["tribute_kind"], d2["leader"]) == ("single", "W")


@pytest.mark.parametrize("rules", BOOKS)
@pytest.mark.parametrize(
    ("out", "ruled", "logged", "recorded", "gain", "double"),
    [
        # national Art. 11 判罰 2(3): partner out first keeps 上遊; the two never out in either order
        (["W", "E"], ["E"], ["W", "N", "S", "E"], ["W", "N", "S", "E"], 1, False),
        (["W", "E"], ["E"], ["W", "S", "N"], ["W", "S", "N", "E"], 1, False),  # 3 seats: the 4th implied
        # huaian Art. 18 ④ / jiangsu: the 上遊 offender — 二遊 becomes 上遊, 三遊 二遊, …
        (["W", "N", "E"], ["W"], ["N", "E", "S", "W"], ["N", "E", "S", "W"], 2, False),
        # everyone behind moves up: W 1st, E (3rd → 2nd): a double win for EW (rules.md §5.7)
        (["W", "N", "E"], ["N"], ["W", "E"], ["W", "E", "S", "N"], 3, True),
        # the seat ruled last was last anyway: the play's order stands
        (["W", "N", "E"], ["S"], ["W", "N", "E"], ["W", "N", "E", "S"], 2, False),
        # a seat that never went out, after a double win: the winners keep 1st and 2nd
        (["N", "S"], ["E"], ["N", "S"], ["N", "S", "W", "E"], 3, True),
        # both winners ruled last (in ruling order): the two never out win 1st and 2nd
        (["W", "E"], ["E", "W"], ["S", "N"], ["S", "N", "E", "W"], 3, True),
    ],
)
def test_amended_orders(
    rules: str,
    out: list[str],
    ruled: list[str],
    logged: list[str],
    recorded: list[str],
    gain: int,
    double: bool,
) -> None:
    """national Art. 11 判罰 2(3), huaian Art. 18 ④, jiangsu 报牌; rules.md §5.7–§5.8: the order
    ``deal_end`` must give, the order recorded, and the level gain and double win it implies."""
    log = _played(rules, out, leader=out[0])
    for seat in ruled:
        log.ruling("rank_last", seat=seat)
    winner = TEAM[recorded[0]]
    levels = {"EW": "2", "NS": "2", winner: str(2 + gain)}
    log.end_deal(logged, levels=levels)
    log.end("abandoned")
    r = log.replay()
    assert r.status == "valid", r.error
    d = r.rows["deals"][0]
    got = (d["finish_order"], d["winning_team"], d["level_gain"], d["double_win"])
    assert got == (recorded, winner, gain, double)


@pytest.mark.parametrize(
    ("out", "logged", "expected"),
    [
        (["W", "E"], ["W", "E"], "['W', 'N', 'S', 'E'], N and S (who did not go out) in either order"),
        (["W", "E"], ["W", "N", "E", "S"], "expected ['W', 'N', 'S', 'E']"),
        (["W", "N", "E"], ["W", "N", "E", "S"], "expected ['W', 'N', 'S', 'E']"),
    ],
)
def test_unamended_order_names_the_ruling(out: list[str], logged: list[str], expected: str) -> None:
    """national Art. 11 判罰 2(3) / events.md ``deal_end``: after a rank_last ruling, an order that does
    not place the offender last (e.g. the order of play) is ``wrong_finish_order``, whose message
    names the ruling and the order expected."""
    log = _played("national", out, leader=out[0])
    log.ruling("rank_last", seat="E")
    log.end_deal(logged)
    log.end("abandoned")
    r = log.replay()
    assert r.error is not None and r.error.code == "wrong_finish_order"
    assert r.error.seq == len(log.events) - 2
    assert "rank_last ruling against E" in r.error.message and expected in r.error.message


@pytest.mark.parametrize(
    ("payload", "code", "words"),
    [
        ({}, "bad_ruling", "needs `seat`"),
        ({"team": "EW"}, "bad_ruling", "needs `seat`"),
        ({"seat": "X"}, "bad_ruling", "ruling seat 'X' is not E, N, W or S"),
        ({"seat": "E", "team": "NS"}, "bad_ruling", "not E's team EW"),
    ],
)
def test_malformed_rank_last(payload: dict[str, Any], code: str, words: str) -> None:
    """events.md ``ruling`` (docs/event-extensions.md): a rank_last ruling names the offender's seat;
    without one, or with a seat or team that does not fit, it is ``bad_ruling`` like any sided kind."""
    log = _played("national", ["W", "E"])
    log.ruling("rank_last", **payload)
    r = log.replay()
    assert r.error is not None and (r.error.code, r.error.seq) == (code, len(log.events) - 1)
    assert words in r.error.message


def test_rank_last_outside_a_deal() -> None:
    """docs/event-extensions.md: a rank_last ruling ranks a seat in the deal in play; between deals it
    is ``event_out_of_place``."""
    log = _played("national", ["W", "E"])
    log.end_deal()
    log.ruling("rank_last", seat="E")
    r = log.replay()
    assert r.error is not None and (r.error.code, r.error.seq) == ("event_out_of_place", len(log.events) - 1)
    assert "rank_last" in r.error.message


@pytest.mark.parametrize(
    ("order", "ok"), [(["W", "N", "S", "E"], True), (["W", "N", "S"], True), (["W", "E"], False)]
)
def test_results_only_deal(order: list[str], ok: bool) -> None:
    """docs/event-extensions.md (results-only deals) with national Art. 11 判罰 2(3): a score sheet's
    order is the referee's amended order, so it must place the seat ruled last last."""
    log = Log("national")
    log.add("deal_start", deal=1, level="2", declarers=None)
    log.ruling("rank_last", seat="E")
    log.end_deal(order)
    log.end("abandoned")
    r = replay_match(log.events)
    if ok:
        assert r.status == "results_only", r.error
        assert r.rows["deals"][0]["finish_order"] == ["W", "N", "S", "E"]
        assert r.rows["deals"][0]["level_gain"] == 1
    else:
        assert r.error is not None and r.error.code == "wrong_finish_order"


def test_foul_decides_a_forfeited_deal() -> None:
    """national Art. 11 判罰 2(3) (搭檔尚未出完牌的，直接判負，違規方按雙下記分), rules.md §8: when the
    referee forfeits the deal with a ``foul``, the foul decides it; a rank_last ruling in the same
    deal changes nothing."""
    log = Log("national")
    log.deal(leader="W", seed=11)
    log.ruling("rank_last", seat="E")
    log.ruling("foul", seat="E")
    log.end_deal(["N", "S"], levels={"EW": "2", "NS": "5"})
    log.end("abandoned")
    r = log.replay()
    assert r.status == "valid", r.error
    d = r.rows["deals"][0]
    assert (d["foul"], d["double_win"], d["winning_team"]) == (True, True, "NS")
    assert [x["kind"] for x in r.rows["rulings"]] == ["rank_last", "foul"]


def test_rank_last_is_documented_with_every_ruling_kind() -> None:
    """events.md ``ruling``, docs/event-extensions.md: ``rank_last`` is a ruling kind, and the
    README's rulings table and the ``rulings`` table's doc list every ruling kind the replayer accepts."""
    assert "rank_last" in RULING_KINDS
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    row = next(line for line in readme.splitlines() if line.startswith("| `kind` |") and "`foul`" in line)
    assert set(re.findall(r"`(\w+)`", row)) - {"kind"} == RULING_KINDS
    from schemas.tables import RULINGS

    doc = RULINGS.metadata[b"doc"].decode()
    assert set(re.search(r"kind ([\w|]+)", doc).group(1).split("|")) == RULING_KINDS  # type: ignore[union-attr]
