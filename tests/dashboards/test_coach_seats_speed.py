"""The coach's queries over the slimmer ``seats`` CTE (``dashboards.queries._seats``: only the
filters that are set, ``matches`` joined only when needed; issue 18 "Speed") give exactly the
results of the CTE they replaced, which tested every filter on every seat-deal and always joined
the match. The filters are those of the Player, Tributes and Bombs pages (dates in the match's
local days, schemas/times.py; seats and partners as rules.md §1; levels §2)."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from datetime import date
from pathlib import Path
from typing import Any

import duckdb
import pandas as pd
import pytest

from dashboards import queries
from pipelines.warehouse import connect

_OLD_SEATS = f"""
    seats AS (
        SELECT h.match_id, h.deal_no, h.seat, h.player_id, h.team, h.finish_position, h.bombs_played,
               h.natural_bombs, d.level, d.winning_team, d.double_win, d.level_gain, d.tribute_kind,
               d.rules, m.event_id, m.started_at, {queries._PARTNER_PLAYER} AS partner_id
        FROM deal_hands h JOIN deals d USING (match_id, deal_no) JOIN matches m USING (match_id)
        WHERE ($player IS NULL OR h.player_id = $player)
            AND (CAST($start AS DATE) IS NULL OR {queries._SEAT_DAY} >= CAST($start AS DATE))
            AND (CAST($end AS DATE) IS NULL OR {queries._SEAT_DAY} <= CAST($end AS DATE))
            AND (CAST($event AS VARCHAR) IS NULL OR m.event_id = $event)
            AND (CAST($rules AS VARCHAR) IS NULL OR d.rules = $rules)
            AND (CAST($partner AS VARCHAR) IS NULL OR {queries._PARTNER_PLAYER} = $partner)
            AND (CAST($seat AS VARCHAR) IS NULL OR h.seat = $seat)
            AND (CAST($level AS VARCHAR) IS NULL OR d.level = $level)
    )
"""
"""The ``seats`` CTE before the change (main at 0c3ae93), every filter bound."""

_QUERIES: list[Callable[..., pd.DataFrame]] = [
    queries.coach_match_list,
    queries.coach_deal_record,
    queries.coach_finish_positions,
    queries.coach_play_rates,
    queries.coach_tribute_kinds,
    queries.coach_tribute_cards,
    queries.coach_level_gain,
    queries.coach_bombs,
    queries.coach_win_by_bombs,
    queries.coach_bombs_per_deal,
]


def _old_seats(params: dict[str, Any], *, partner_column: bool = False) -> tuple[str, dict[str, Any]]:
    del partner_column  # the old CTE always had the partner
    return _OLD_SEATS, dict(params)


@pytest.fixture
def con(any_store: Path) -> Iterator[duckdb.DuckDBPyConnection]:
    connection = connect(any_store)
    yield connection
    connection.close()


def _cases(con: duckdb.DuckDBPyConnection) -> list[dict[str, Any]]:
    """Filter sets over the store's own values: none, each filter alone, and combinations."""
    row = con.execute(
        """
        SELECT pm.player_id, pm.partner_id, pm.event_id, pm.rules, CAST(m.started_at AS DATE) AS day
        FROM player_matches pm JOIN matches m USING (match_id)
        WHERE pm.partner_id IS NOT NULL AND pm.event_id IS NOT NULL
        ORDER BY pm.player_id, pm.match_id LIMIT 1
        """
    ).fetchone()
    assert row is not None
    player, partner, event, rules, day = row
    level = con.execute("SELECT min(level) FROM deals").fetchone()
    assert level is not None
    late = date(day.year + 1, 1, 1)
    return [
        {},
        {"seat": "E"},
        {"level": level[0]},
        {"seat": "E", "level": level[0]},
        {"event": event},
        {"rules": rules},
        {"partner": partner},
        {"start": day},
        {"end": day},
        {"start": late},
        {"start": day, "end": day, "seat": "N"},
        {"event": event, "rules": rules, "partner": partner, "seat": "S", "level": level[0]},
        {"player": player},
        {"player": player, "seat": "E", "level": level[0]},
        {"player": player, "partner": partner, "start": day, "end": late},
        {"player": player, "event": event},
    ]


def _sorted(df: pd.DataFrame) -> pd.DataFrame:
    return df.sort_values(list(df.columns)).reset_index(drop=True) if len(df) else df.reset_index(drop=True)


@pytest.mark.parametrize("query", _QUERIES, ids=lambda q: q.__name__)
def test_coach_query_equals_the_full_filter_cte(
    query: Callable[..., pd.DataFrame], con: duckdb.DuckDBPyConnection, monkeypatch: pytest.MonkeyPatch
) -> None:
    player_needed = query is queries.coach_match_list or query is queries.coach_finish_positions
    cases = _cases(con)
    default_player = cases[-1]["player"]
    new = []
    for case in cases:
        kwargs = {"player": default_player if player_needed else None, **case}
        new.append(query(con.cursor(), **kwargs))
    monkeypatch.setattr(queries, "_seats", _old_seats)
    for case, got in zip(cases, new, strict=True):
        kwargs = {"player": default_player if player_needed else None, **case}
        pd.testing.assert_frame_equal(_sorted(got), _sorted(query(con.cursor(), **kwargs)), obj=str(case))
    assert len({_sorted(df).to_json() for df in new}) > 1  # the filters change the result


def test_unset_filters_are_left_out_of_the_sql() -> None:
    """No condition and no ``matches`` join for filters that are not set; their values are bound."""
    cte, bound = queries._seats(queries._filters(None, None, None, None, "bcta", None, "E", None))
    assert bound == {"rules": "bcta", "seat": "E"}
    assert "matches" not in cte and "$rules" in cte and "$seat" in cte and "$event" not in cte
    cte, bound = queries._seats(queries._filters(None, *[None] * 7), partner_column=True)
    assert bound == {} and "JOIN matches" in cte and "partner_id" in cte and "WHERE TRUE" in cte
