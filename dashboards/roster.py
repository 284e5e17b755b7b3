"""Attach player names and clubs to per-player tables.

Names and clubs come from the pipeline's roster (the ``players`` table, read once per store by
``dashboards.queries.players.players``); joining them here keeps every other query free of that join.
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
