"""``seat_patterns`` through the real pipeline: re-derived from the events on
every run, a corrected match's replaced revision leaves it as it leaves ``plays``
(docs/event-extensions.md "Corrections"), a match ingested twice under two ids is in it twice,
as in ``plays`` and ``player_patterns`` (``duplicate_matches`` only leaves it out of scoring), and
``player_patterns`` is its sum per player."""

from __future__ import annotations

import shutil
import sys
from pathlib import Path
from typing import Any

import orjson
import pytest

from pipelines.run.runner import run_pipeline
from pipelines.storage.store import Store
from pipelines.storage.warehouse import connect

sys.path.insert(0, str(Path(__file__).parents[1] / "replay"))
from replay_builder import Log

SUMS = (
    "pass_beat, able_to_beat, overtakes, facing_partner, bombs, bomb_opp_left_sum, bomb_opp_left_n, jie_feng"
)


def _match(match_id: str, order: list[str], revision: int = 1) -> list[dict[str, Any]]:
    """A valid one-deal match in which the seats go out in ``order`` (E leads); the first out's
    team wins it. When the partner goes out second, the partner's lead after it is a 接风 (rules.md §5.6)."""
    log = Log(match=match_id, format={"kind": "deals", "deals": 1}, revision=revision)
    log.deal(leader="E", seed=1)
    log.play_out(order, leader="E")
    log.end_deal()
    log.end("deals", "EW" if order[0] in "EW" else "NS")
    return log.events


def _write(store: Path, name: str, events: list[dict[str, Any]]) -> None:
    inbox = Store(store).inbox
    inbox.mkdir(parents=True, exist_ok=True)
    (inbox / name).write_bytes(b"\n".join(orjson.dumps(e) for e in events) + b"\n")


def _rows(store: Path, sql: str, params: list[Any] | None = None) -> list[tuple[Any, ...]]:
    con = connect(store)
    try:
        return [tuple(r) for r in con.execute(sql, params or []).fetchall()]
    finally:
        con.close()


FROM_PLAYS = """
    SELECT match_id, count(DISTINCT (deal_no, seat)) AS seat_deals,
           count(*) FILTER (WHERE action = 'pass' AND could_beat) AS pass_beat
    FROM plays GROUP BY match_id ORDER BY match_id
"""
FROM_SEATS = """
    SELECT match_id, count(*) AS seat_deals, sum(pass_beat) AS pass_beat
    FROM seat_patterns GROUP BY match_id ORDER BY match_id
"""


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """m1, m2 and a copy of m1 under another id, run once."""
    root = tmp_path_factory.mktemp("seat_patterns") / "store"
    _write(root, "day.jsonl", _match("m1", ["E", "W"]) + _match("m2", ["N", "E", "S"]))
    _write(root, "copy.jsonl", _match("m1-copy", ["E", "W"]))
    run_pipeline(root, workers=1)
    return root


def test_seat_patterns_hold_every_seat_deal_of_plays(store: Path) -> None:
    assert _rows(store, FROM_SEATS) == _rows(store, FROM_PLAYS)
    jie_feng = _rows(store, "SELECT match_id, deal_no, seat FROM seat_patterns WHERE jie_feng > 0 ORDER BY 1")
    assert jie_feng == [("m1", 1, "W"), ("m1-copy", 1, "W")]  # W leads after partner E went out


def test_a_copy_is_kept_as_in_plays(store: Path) -> None:
    assert _rows(store, "SELECT match_id, excluded FROM duplicate_matches") == [("m1-copy", True)]
    of = f"SELECT deal_no, seat, {SUMS} FROM seat_patterns WHERE match_id = ? ORDER BY ALL"
    assert _rows(store, of, ["m1-copy"]) == _rows(store, of, ["m1"])


def test_player_patterns_sum_seat_patterns(store: Path) -> None:
    sums = ", ".join(f"sum({c})::BIGINT" for c in SUMS.split(", "))
    by_seat = _rows(store, f"SELECT player_id, {sums} FROM seat_patterns GROUP BY ALL ORDER BY ALL")
    assert by_seat == _rows(store, f"SELECT player_id, {SUMS} FROM player_patterns ORDER BY ALL")


def test_a_correction_replaces_the_revisions_rows(store: Path, tmp_path: Path) -> None:
    corrected = tmp_path / "store"
    shutil.copytree(store, corrected, symlinks=True)
    of_m1 = f"SELECT deal_no, seat, {SUMS} FROM seat_patterns WHERE match_id = 'm1' ORDER BY ALL"
    before = _rows(corrected, of_m1)
    _write(corrected, "fix.jsonl", _match("m1", ["N", "S"], revision=2))  # N–S 1st and 2nd
    run_pipeline(corrected, workers=1)
    assert _rows(corrected, "SELECT revision FROM matches WHERE match_id = 'm1'") == [(2,)]
    assert _rows(corrected, FROM_SEATS) == _rows(corrected, FROM_PLAYS)
    after = _rows(corrected, of_m1)
    assert after != before and [(d, s) for d, s, *_ in after] == [(1, s) for s in "ENSW"]
    jie_feng = _rows(corrected, "SELECT seat FROM seat_patterns WHERE match_id = 'm1' AND jie_feng > 0")
    assert jie_feng == [("S",)], "revision 2's 接风 (S after partner N), not revision 1's (W)"
    assert _rows(corrected, "SELECT match_id FROM duplicate_matches") == []  # m1 no longer repeats
