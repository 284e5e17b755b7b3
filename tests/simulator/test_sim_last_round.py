"""A simulated Jiangsu tournament plays the extra deal in its last round (seed 003, rules.md §7).

Seed 003: "最后一轮不能平局,需加赛一把决定胜负,按比赛首副牌规则加赛,打出头游比赛即结束,获胜方升一级". The
simulator marks the last round's ``match_start.event.last_round``; a last-round match that the
format ends level gets one extra deal (no tribute, no declarers, over at the first player out,
+1 level), and every match replays ``valid`` with the winner the simulator logged.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import orjson
import pytest

from replay import replay_match
from replay.events import LEVELS
from simulator import simulate_to_dir

ROUNDS = 2


def _matches(out: Path) -> dict[str, list[dict[str, Any]]]:
    by_match: dict[str, list[dict[str, Any]]] = {}
    for path in sorted(out.glob("*.jsonl")):
        for line in path.read_bytes().splitlines():
            ev = orjson.loads(line)
            by_match.setdefault(ev["match"], []).append(ev)
    return by_match


@pytest.mark.parametrize("seed", [0, 1, 4])
def test_jiangsu_tournament_breaks_level_last_rounds_with_the_extra_deal(tmp_path: Path, seed: int) -> None:
    """Seed 003 最后一轮不能平局: no last-round draw, each level last round decided by one extra deal
    (打出头游比赛即结束, 获胜方升一级); earlier rounds may still end level (seeds 1 and 4 do)."""
    simulate_to_dir(
        tmp_path, "tournament", pairs=4, rounds=ROUNDS, rules="jiangsu", format="deals:2", seed=seed
    )
    extra_deals = draws = 0
    for match_id, events in _matches(tmp_path).items():
        start, end = events[0], events[-1]
        last = start["event"]["round"] == ROUNDS
        assert start["event"].get("last_round", False) is last
        r = replay_match(events)
        assert r.status == "valid", (match_id, r.error)
        match = r.rows["matches"][0]
        assert match["winner"] == end["winner"]
        extra = [d for d in r.rows["deals"] if d["extra_deal"]]
        if not last:
            assert extra == []
            draws += match["winner"] is None
            continue
        assert match["winner"] is not None, match_id
        if extra:
            (deal,) = extra
            extra_deals += 1
            assert deal["deal_no"] == 3 and deal is r.rows["deals"][-1]
            assert (deal["declarers"], deal["tribute_kind"]) == (None, "none")
            assert deal["level_EW_before"] == deal["level_NS_before"] == deal["level"]
            assert len(deal["finish_order"]) == 1 and deal["level_gain"] == 1
            assert deal["winning_team"] == match["winner"]
            winners = deal["winning_team"]
            assert LEVELS.index(deal[f"level_{winners}_after"]) == LEVELS.index(deal["level"]) + 1
    if seed == 0:
        assert extra_deals == 1  # jiangsu-swiss-s0-r2-t1 ends its two deals level
    else:
        assert draws == 1  # a level first round stays a draw
