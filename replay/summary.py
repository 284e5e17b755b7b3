"""Per-match rows built once a match is replayed: the ``matches`` row and the ``player_matches`` rows."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from replay.errors import ReplayError
from replay.rows import DealRow, MatchRow, PlayerMatchRow
from replay.state import MatchState
from schemas.times import offset_minutes
from schemas.vocabulary import OTHER_TEAM, PARTNER, SEATS, TEAM

MatchEnd = tuple[str | None, str | None, datetime | None]
"""How a match ended, from its ``match_end``: reason, winning team (None: a draw) and time."""


def _int_or_none(x: Any) -> int | None:
    if isinstance(x, bool):
        return None
    if isinstance(x, int):
        return x
    if isinstance(x, str) and x.strip().lstrip("-").isdigit():
        return int(x)
    return None


def match_row(
    match_id: str,
    m: MatchState | None,
    status: str,
    error: ReplayError | None,
    known_seats: list[str],
    end: MatchEnd,
    n_events: int,
) -> MatchRow:
    """The ``matches`` row; ``m`` is None when the match failed before its ``match_start`` was read."""
    reason, winner, ended_at = end
    outcome = MatchRow(
        match_id=match_id,
        status=status,
        error_seq=error.seq if error else None,
        error_code=str(error.code) if error else None,
        error_message=error.message if error else None,
        n_events=n_events,
        end_reason=reason,
        winner=winner,
        ended_at=ended_at,
    )
    if m is None:
        return outcome
    start = m.start
    event: Any = start.get("event")
    if not isinstance(event, dict):
        event = {}
    dup: Any = start.get("duplicate")
    if not isinstance(dup, dict):
        dup = {}
    started = m.started_at
    return outcome._replace(
        revision=start.get("revision") or 1,
        event_id=_str(event.get("id")),
        event_name=_str(event.get("name")),
        stage=_str(event.get("stage")),
        round=_int_or_none(event.get("round")),
        table=_str(event.get("table")),
        rules=m.rules,
        format_kind=m.format_kind,
        format_deals=m.format_deals,
        format_minutes=m.format_minutes,
        player_E=m.seats.get("E"),
        player_N=m.seats.get("N"),
        player_W=m.seats.get("W"),
        player_S=m.seats.get("S"),
        duplicate_board=_str(dup.get("board")),
        duplicate_room=_str(dup.get("room")),
        known_seats=known_seats,
        deals_played=m.deals_played,
        start_level_EW=m.start_levels["EW"],
        start_level_NS=m.start_levels["NS"],
        final_level_EW=m.levels["EW"],
        final_level_NS=m.levels["NS"],
        passed_a=m.passed_a,
        a_failures_EW=m.a_failures["EW"],
        a_failures_NS=m.a_failures["NS"],
        started_at=started,
        utc_offset_min=offset_minutes(started or m.first_time),
        duration_s=(ended_at - started).total_seconds() if started and ended_at else None,
    )


def _str(x: Any) -> str | None:
    return None if x is None else str(x)


def player_rows(m: MatchState, match: MatchRow, deals: list[DealRow]) -> list[PlayerMatchRow]:
    """One ``player_matches`` row per seat: team, partner, opponents, result and finishing counts."""
    winner = match.winner
    rows = []
    for seat in SEATS:
        team = TEAM[seat]
        opp = OTHER_TEAM[team]
        places = [0, 0, 0, 0]
        for d in deals:
            order = d.finish_order
            if seat in order:
                places[order.index(seat)] += 1
        gained = sum(d.level_gain for d in deals if d.winning_team == team)
        if match.end_reason == "abandoned":
            result = None
        else:
            result = "draw" if winner is None else "win" if winner == team else "loss"
        rows.append(
            PlayerMatchRow(
                match_id=m.match_id,
                player_id=m.seats[seat],
                seat=seat,
                team=team,
                partner_id=m.seats[PARTNER[seat]],
                opponent_ids=[m.seats[s] for s in SEATS if TEAM[s] == opp],
                event_id=match.event_id,
                round=match.round,
                rules=m.rules,
                status=match.status,
                result=result,
                final_level=m.levels[team],
                opp_final_level=m.levels[opp],
                levels_gained=gained,
                deals_played=m.deals_played,
                deals_won=sum(1 for d in deals if d.winning_team == team),
                first_places=places[0],
                second_places=places[1],
                third_places=places[2],
                fourth_places=places[3],
                a_failures=m.a_failures[team],
                started_at=m.started_at,
            )
        )
    return rows
