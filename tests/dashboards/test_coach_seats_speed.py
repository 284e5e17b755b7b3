"""The coach's queries over the slimmer ``seats`` CTE (``dashboards.queries.seats.seats_cte``: only the
filters that are set, ``matches`` joined only when needed) give exactly the
results of the CTE they replaced, which tested every filter on every seat-deal and always joined
the match; and ``coach_play_rates`` over the pipeline's ``seat_patterns`` gives exactly the counts
of the ``plays`` scan it replaced. The filters are those of the Player, Tributes and Bombs pages
(dates in the match's local days, schemas/times.py; seats and partners as rules.md §1; levels §2)."""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator
from dataclasses import asdict
from datetime import date
from pathlib import Path
from typing import Any

import duckdb
import pandas as pd
import pytest

from dashboards.queries.bombs import coach_bombs, coach_bombs_per_deal, coach_win_by_bombs
from dashboards.queries.coach import (
    coach_deal_record,
    coach_finish_positions,
    coach_match_list,
    coach_play_rates,
)
from dashboards.queries.seats import PARTNER_PLAYER, SEAT_DAY, SeatFilters, seats_cte
from dashboards.queries.tributes import coach_level_gain, coach_tribute_cards, coach_tribute_kinds
from pipelines.storage.warehouse import connect
from schemas.vocabulary import sql_partner

_OLD_SEATS = f"""
    seats AS (
        SELECT h.match_id, h.deal_no, h.seat, h.player_id, h.team, h.finish_position, h.bombs_played,
               h.natural_bombs, d.level, d.winning_team, d.double_win, d.level_gain, d.tribute_kind,
               d.rules, d.plays IS NULL AS results_only, m.event_id, m.started_at,
               {PARTNER_PLAYER} AS partner_id
        FROM deal_hands h JOIN deals d USING (match_id, deal_no) JOIN matches m USING (match_id)
        WHERE ($player IS NULL OR h.player_id = $player)
            AND (CAST($start AS DATE) IS NULL OR {SEAT_DAY} >= CAST($start AS DATE))
            AND (CAST($end AS DATE) IS NULL OR {SEAT_DAY} <= CAST($end AS DATE))
            AND (CAST($event AS VARCHAR) IS NULL OR m.event_id = $event)
            AND (CAST($rules AS VARCHAR) IS NULL OR d.rules = $rules)
            AND (CAST($partner AS VARCHAR) IS NULL OR {PARTNER_PLAYER} = $partner)
            AND (CAST($seat AS VARCHAR) IS NULL OR h.seat = $seat)
            AND (CAST($level AS VARCHAR) IS NULL OR d.level = $level)
    )
"""
"""The ``seats`` CTE before the change (main at 0c3ae93), every filter bound, with the
``results_only`` mark the coach queries have needed since (a deal without play data)."""

_QUERIES: list[Callable[..., pd.DataFrame]] = [
    coach_match_list,
    coach_deal_record,
    coach_finish_positions,
    coach_play_rates,
    coach_tribute_kinds,
    coach_tribute_cards,
    coach_level_gain,
    coach_bombs,
    coach_win_by_bombs,
    coach_bombs_per_deal,
]


_OLD_PLAY_RATES = f"""
    WITH {{seats}},
    p AS (
        SELECT p.*,
               last_value(CASE WHEN p.action = 'play' THEN p.seat END IGNORE NULLS) OVER win AS prev_seat,
               last_value(CASE WHEN p.action = 'play' THEN p.went_out END IGNORE NULLS) OVER win AS prev_out
        FROM plays p
        SEMI JOIN (SELECT DISTINCT match_id, deal_no FROM seats) s USING (match_id, deal_no)
        WINDOW win AS (PARTITION BY p.match_id, p.deal_no ORDER BY p.seq
                       ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING)
    ),
    a AS (
        SELECT count(*) FILTER (WHERE action = 'pass' AND could_beat) AS pass_beat,
               count(*) FILTER (WHERE (action = 'pass' AND could_beat)
                                OR (action = 'play' AND NOT is_lead)) AS able_to_beat,
               count(*) FILTER (WHERE overtook_partner) AS overtakes,
               count(*) FILTER (WHERE NOT is_lead AND table_seat = {sql_partner("p.seat")}) AS facing_partner,
               count(*) FILTER (WHERE bomb_class IS NOT NULL) AS bombs,
               count(*) FILTER (WHERE is_lead AND prev_out AND prev_seat = {sql_partner("p.seat")})
                   AS jie_feng
        FROM p SEMI JOIN seats s USING (match_id, deal_no, seat)
    )
    SELECT a.*, (SELECT count(*) FROM seats) AS deals FROM a
"""
"""``coach_play_rates`` before ``seat_patterns`` (main at 155a6d4): a scan of ``plays``, a
``{seats}`` placeholder for the CTE."""


def _old_seats(
    player: str | None, filters: SeatFilters, *, partner_column: bool = False
) -> tuple[str, dict[str, Any]]:
    del partner_column  # the old CTE always had the partner
    return _OLD_SEATS, {"player": player, **asdict(filters)}


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
    player_needed = query is coach_match_list or query is coach_finish_positions
    cases = _cases(con)
    default_player = cases[-1]["player"] if player_needed else None
    new = [query(con.cursor(), **_arguments(case, default_player)) for case in cases]
    monkeypatch.setattr(sys.modules[query.__module__], "seats_cte", _old_seats)
    for case, got in zip(cases, new, strict=True):
        old = query(con.cursor(), **_arguments(case, default_player))
        pd.testing.assert_frame_equal(_sorted(got), _sorted(old), obj=str(case))
    assert len({_sorted(df).to_json() for df in new}) > 1  # the filters change the result


def _arguments(case: dict[str, Any], default_player: str | None) -> dict[str, Any]:
    """A case of :func:`_cases` as a coach query's keyword arguments."""
    filters = {k: v for k, v in case.items() if k != "player"}
    return {"player": case.get("player", default_player), "filters": SeatFilters(**filters)}


def test_play_rates_from_seat_patterns_equal_the_plays_scan(con: duckdb.DuckDBPyConnection) -> None:
    """Every filter case: the sums of ``seat_patterns`` are the counts of :data:`_OLD_PLAY_RATES`."""
    results = []
    for case in _cases(con):
        arguments = _arguments(case, None)
        seats, params = seats_cte(arguments["player"], arguments["filters"])
        old = con.execute(_OLD_PLAY_RATES.format(seats=seats), params).df()
        got = coach_play_rates(con.cursor(), **arguments)
        pd.testing.assert_frame_equal(got, old, obj=str(case))
        results.append(tuple(got.iloc[0]))
    assert len(set(results)) > 3 and any(r[-1] and r[0] and r[-2] for r in results)  # counts, not zeros


def test_unset_filters_are_left_out_of_the_sql() -> None:
    """No condition and no ``matches`` join for filters that are not set; their values are bound."""
    cte, bound = seats_cte(None, SeatFilters(rules="bcta", seat="E"))
    assert bound == {"rules": "bcta", "seat": "E"}
    assert "matches" not in cte and "$rules" in cte and "$seat" in cte and "$event" not in cte
    cte, bound = seats_cte(None, SeatFilters(), partner_column=True)
    assert bound == {} and "JOIN matches" in cte and "partner_id" in cte and "WHERE TRUE" in cte
