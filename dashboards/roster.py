"""Attach player names and clubs (from ``match_start.players``) to per-player tables.

Names and clubs are read once per store (``queries.players``, the only query that parses the
raw ``match_start`` payloads); joining them here keeps that parse out of every other query.
"""

from __future__ import annotations

import pandas as pd


def with_names(board: pd.DataFrame, roster: pd.DataFrame, club: str | None = None) -> pd.DataFrame:
    """``board`` with ``name`` and ``club`` after ``player_id``, order kept; one club's rows if given."""
    named = board.merge(roster[["player_id", "name", "club"]], on="player_id", how="left")
    if club is not None:
        named = named[named["club"] == club]
    rest = [c for c in board.columns if c != "player_id"]
    return named[["player_id", "name", "club", *rest]].reset_index(drop=True)


def clubs(roster: pd.DataFrame) -> list[str]:
    """The clubs of the roster, sorted."""
    return sorted(roster["club"].dropna().unique().tolist())
