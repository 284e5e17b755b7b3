"""The coach's filters: :class:`SeatFilters` (date range, event, ruleset, partner, seat, level),
the options they offer, and :func:`seats_cte`, the seat-deals passing them that every ``coach_*``
query reads. Seats and teams follow rules.md §1 (partners sit opposite: E–W, N–S)."""

from __future__ import annotations

from dataclasses import asdict, astuple, dataclass
from datetime import date
from typing import Any

import pandas as pd

from dashboards.queries.common import MATCH_DAY, Con, dataframe
from schemas.times import sql_local_day
from schemas.vocabulary import PARTNER, sql_level_order


@dataclass(frozen=True)
class SeatFilters:
    """The filters of the Player, Tributes and Bombs pages, passed whole to every coach query:
    date range (local days of the matches, schemas/times.py; both ends included), event, ruleset,
    partner (a player id), seat and the deal's level (rules.md §1–§2). ``None`` means "all".

    Frozen, so the dashboards' query cache (``dashboards.ui.run``) hashes it like any parameter.
    """

    start: date | None = None
    end: date | None = None
    event: str | None = None
    rules: str | None = None
    partner: str | None = None
    seat: str | None = None
    level: str | None = None

    def is_set(self) -> bool:
        """Whether any filter is set (the pipeline's unfiltered population tables then do not apply)."""
        return any(value is not None for value in astuple(self))


NO_FILTERS = SeatFilters()
"""Every seat-deal: no filter set."""


PARTNER_PLAYER = (
    "CASE h.seat "
    + " ".join(f"WHEN '{seat}' THEN m.player_{partner}" for seat, partner in PARTNER.items())
    + " END"
)
"""SQL: the player id of the partner of seat ``h.seat`` in match ``m`` (rules.md §1)."""


SEAT_DAY = sql_local_day("m.started_at", "m.utc_offset_min")
"""SQL: the local day of the match ``m`` of a seat-deal: what the date filters compare."""


_SEAT_PREDICATES: dict[str, str] = {
    "player": "h.player_id = $player",
    "start": f"{SEAT_DAY} >= CAST($start AS DATE)",
    "end": f"{SEAT_DAY} <= CAST($end AS DATE)",
    "event": "m.event_id = $event",
    "rules": "d.rules = $rules",
    "partner": f"{PARTNER_PLAYER} = $partner",
    "seat": "h.seat = $seat",
    "level": "d.level = $level",
}
"""SQL: the condition on a seat-deal (``deal_hands h`` of ``deals d`` of ``matches m``) of each
filter (and ``player``), for the filters that are set."""


_MATCH_FILTERS = frozenset({"start", "end", "event", "partner"})
"""The filters that read the seat-deal's match (``matches m``)."""


def seats_cte(
    player: str | None, filters: SeatFilters, *, partner_column: bool = False
) -> tuple[str, dict[str, Any]]:
    """The CTE ``seats`` (one row per seat per deal of ``player``, or of everyone for ``None``,
    passing ``filters``) and its bound parameters. ``results_only`` marks a deal recorded by its
    result alone (docs/event-extensions.md: no play, so no tribute cards, bombs or tricks).

    Only the filters that are set become conditions (their values are bound, never written into
    the SQL), and ``matches`` is joined only when a filter or the ``partner_id`` column
    (``partner_column``) needs it: on the 100k-deal store an unfiltered ``seats`` is 400k rows,
    and evaluating every unset filter and joining every match on each cost more than the rest of
    most coach queries.
    """
    params = {"player": player, **asdict(filters)}
    bound = {name: value for name, value in params.items() if value is not None}
    with_match = partner_column or not _MATCH_FILTERS.isdisjoint(bound)
    partner = f", {PARTNER_PLAYER} AS partner_id" if partner_column else ""
    match = " JOIN matches m USING (match_id)" if with_match else ""
    where = " AND ".join(_SEAT_PREDICATES[name] for name in bound) or "TRUE"
    cte = f"""
    seats AS (
        SELECT h.match_id, h.deal_no, h.seat, h.player_id, h.team, h.finish_position, h.bombs_played,
               h.natural_bombs, d.level, d.winning_team, d.double_win, d.level_gain, d.tribute_kind,
               d.rules, d.plays IS NULL AS results_only{partner}
        FROM deal_hands h JOIN deals d USING (match_id, deal_no){match}
        WHERE {where}
    )
    """
    return cte, bound


def coach_options(con: Con) -> pd.DataFrame:
    """One row: the events, rulesets and deal levels present and the first and last (local) day
    played, for the coach's filters."""
    return dataframe(
        con,
        f"""
        SELECT (SELECT list(DISTINCT event_id ORDER BY event_id) FROM matches WHERE event_id IS NOT NULL)
                   AS events,
               (SELECT list(DISTINCT rules ORDER BY rules) FROM matches WHERE rules IS NOT NULL) AS rules,
               (SELECT list(DISTINCT level ORDER BY {sql_level_order("level")}) FROM deals
                WHERE level IS NOT NULL) AS levels,
               (SELECT min({MATCH_DAY}) FROM matches) AS first_day,
               (SELECT max({MATCH_DAY}) FROM matches) AS last_day
        """,
    )


def coach_partners(con: Con, *, player: str) -> pd.DataFrame:
    """The partners ``player`` has played with, most rounds first (the partner filter's options)."""
    return dataframe(
        con,
        """
        SELECT partner_id AS partner, count(*) AS rounds FROM player_matches
        WHERE player_id = $player AND partner_id IS NOT NULL
        GROUP BY ALL ORDER BY rounds DESC, partner
        """,
        {"player": player},
    )
