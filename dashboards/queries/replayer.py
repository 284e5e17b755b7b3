"""The hand Replayer's queries: finding a match, its deals, and one deal's hands, tributes, plays
and decision reviews (exact and single-dummy), and a match's events for a review made on demand."""

from __future__ import annotations

from typing import Any

import orjson
import pandas as pd

from dashboards.queries.common import MATCH_OFFSETS, Con, dataframe
from schemas.times import sql_time_label


def find_matches(con: Con, *, search: str = "", limit: int = 500) -> pd.DataFrame:
    """The first ``limit`` matches with deals whose id, event, players' ids or players' names
    contain ``search`` (case-insensitive), oldest first, with ``started``, the match's start in its
    local time (the Replayer's header), and ``total``, how many matches the search finds in all."""
    return dataframe(
        con,
        f"""
        SELECT match_id, event_id, round, "table", rules, status, deals_played,
               {sql_time_label("started_at", "utc_offset_min")} AS started, count(*) OVER () AS total
        FROM matches m
        WHERE coalesce(deals_played, 0) > 0
          AND ($q = '' OR concat_ws(' ', match_id, event_id, player_E, player_N, player_W, player_S)
                          ILIKE '%' || $q || '%'
               OR EXISTS (SELECT 1 FROM players p
                          WHERE p.player_id IN (m.player_E, m.player_N, m.player_W, m.player_S)
                            AND p.name ILIKE '%' || $q || '%'))
        ORDER BY started_at, match_id LIMIT $limit
        """,
        {"q": search, "limit": limit},
    )


def match_deals(con: Con, *, match: str) -> pd.DataFrame:
    """The deals of one match with their level, declarers, tribute kind and result, and when each
    started (``started``, in the match's local time with its offset)."""
    return dataframe(
        con,
        f"""
        SELECT deal_no, level, declarers, tribute_kind, leader, finish_order, winning_team, level_gain,
               double_win, jie_feng, bombs_EW, bombs_NS,
               {sql_time_label("d.started_at", "o.utc_offset_min")} AS started
        FROM deals d LEFT JOIN {MATCH_OFFSETS} o USING (match_id) WHERE match_id = $match ORDER BY deal_no
        """,
        {"match": match},
    )


def deal_hands(con: Con, *, match: str, deal: int) -> pd.DataFrame:
    """The four dealt hands of one deal (null ``hand`` when unknown)."""
    return dataframe(
        con,
        """
        SELECT seat, player_id, team, hand, finish_position, bombs_played
        FROM deal_hands WHERE match_id = $match AND deal_no = $deal ORDER BY seat
        """,
        {"match": match, "deal": deal},
    )


def deal_tributes(con: Con, *, match: str, deal: int) -> pd.DataFrame:
    """Tributes, returns and resisted tributes of one deal."""
    return dataframe(
        con,
        """
        SELECT kind, giver, receiver, card, return_card, equal_double, anti_seats
        FROM tributes WHERE match_id = $match AND deal_no = $deal ORDER BY giver
        """,
        {"match": match, "deal": deal},
    )


def deal_plays(con: Con, *, match: str, deal: int) -> pd.DataFrame:
    """Every play and pass of one deal, in order, with its derived flags."""
    return dataframe(
        con,
        """
        SELECT seq, trick_no, pos_in_trick, is_lead, seat, player_id, action, cards, combo_type,
               combo_rank, bomb_class, reading_inferred, overtook_partner, could_beat, went_out,
               left_after
        FROM plays WHERE match_id = $match AND deal_no = $deal ORDER BY seq
        """,
        {"match": match, "deal": deal},
    )


def deal_reviews(con: Con, *, match: str, deal: int) -> pd.DataFrame:
    """The decisions of one deal reviewed by the endgame solver (``play_reviews``), in order."""
    return dataframe(
        con,
        """
        SELECT seq, seat, action, cards, cards_left, value_before, value_after, loss, best_moves,
               hand, kind, choice, phase, win_best, win_after, match_loss, severity
        FROM play_reviews WHERE match_id = $match AND deal_no = $deal ORDER BY seq
        """,
        {"match": match, "deal": deal},
    )


def deal_sampled_reviews(con: Con, *, match: str, deal: int) -> pd.DataFrame:
    """The decisions of one deal the opt-in single-dummy job judged from the player's view
    (``single_dummy_reviews``; none until that job has run), in order, with the decider's hand and
    every candidate's mean, interval and match-winning chance."""
    return dataframe(
        con,
        """
        SELECT seq, seat, kind, cards_left, hand, action, best_action, played_mean, played_low, played_high,
               best_mean, loss, win_best, win_played, match_loss, worse_in, layouts, exact_layouts, classes,
               candidates
        FROM single_dummy_reviews WHERE match_id = $match AND deal_no = $deal ORDER BY seq
        """,
        {"match": match, "deal": deal},
    )


def match_entry(con: Con, match: str) -> pd.DataFrame:
    """The audit record of the revision in force of ``match`` (none when it was not entered in the
    browser): who entered it, when, and the revision it replaces."""
    return dataframe(
        con,
        """
        SELECT s.entered_by, s.entered_via, s.entered_at, s.replaces_revision
        FROM submissions s JOIN matches m USING (match_id)
        WHERE s.match_id = $match AND s.revision = coalesce(m.revision, 1)
        ORDER BY s.ingested_at DESC LIMIT 1
        """,
        {"match": match},
    )


def match_events(con: Con, *, match: str) -> list[dict[str, Any]]:
    """The events of ``match`` in force (its latest revision), one per seq, in seq order."""
    df = dataframe(
        con,
        """
        SELECT payload FROM raw_events r
        WHERE match_id = $match AND parse_error IS NULL
          AND coalesce(revision, 1) = (SELECT coalesce(max(revision), 1) FROM matches WHERE match_id = $match)
        ORDER BY seq, source_file, line_no
        """,
        {"match": match},
    )
    seen: dict[int, dict[str, Any]] = {}
    for payload in df["payload"]:
        event = orjson.loads(payload)
        seen.setdefault(int(event["seq"]), event)
    return list(seen.values())
