"""Leaderboard: ratings with uncertainty, dan and results, filtered by club, event, ruleset and
minimum rounds; each player links to the player page."""

from __future__ import annotations

import streamlit as st

from dashboards import charts, queries
from dashboards.roster import clubs, with_names
from dashboards.ui import choice, lang, no_data, run, show_chart, show_table, tr

st.title(tr("page_leaderboard"))

options = run(queries.filter_options)
roster = run(queries.players)
c1, c2, c3, c4 = st.columns(4)
with c1:
    club = choice("club", clubs(roster), "lb_club")
with c2:
    event = choice("event", options["event"], "lb_event")
with c3:
    rules = choice("ruleset", options["rules"], "lb_rules")
with c4:
    min_rounds = int(st.number_input(tr("min_rounds"), min_value=0, value=0, step=1, key="lb_min"))

board = with_names(run(queries.leaderboard, event=event, rules=rules, min_rounds=min_rounds), roster, club)
if board.empty:
    no_data()
    st.stop()

rated = board["rating"].notna().any()
if not rated:
    st.caption(tr("ratings_missing"))
else:
    show_chart(
        charts.ratings(board[board["rating"].notna()], lang(), rating="rating", sigma="sigma"), "ratings"
    )

board = board.assign(link="player?player=" + board["player_id"].astype(str))
show_table(
    board,
    "leaderboard",
    column_order=[
        "link",
        "name",
        "club",
        "rating",
        "sigma",
        "provisional",
        "dan",
        "pro_dan",
        "rounds",
        "wins",
        "draws",
        "losses",
        "win_rate",
        "levels_gained",
    ],
    column_config={
        "link": st.column_config.LinkColumn(tr("player"), display_text=r"player=(.*)$"),
        "name": tr("name"),
        "club": tr("club"),
        "rating": st.column_config.NumberColumn(tr("rating"), format="%.1f"),
        "sigma": st.column_config.NumberColumn(tr("uncertainty"), format="± %.2f"),
        "provisional": st.column_config.CheckboxColumn(tr("provisional")),
        "dan": tr("dan"),
        "pro_dan": f"{tr('dan')} (pro)",
        "rounds": tr("rounds"),
        "wins": tr("wins"),
        "draws": tr("draws"),
        "losses": tr("losses"),
        "win_rate": st.column_config.ProgressColumn(
            tr("win_rate"), format="percent", min_value=0, max_value=1
        ),
        "levels_gained": tr("levels_gained"),
    },
)

picked = st.selectbox(tr("choose_player"), board["player_id"].tolist(), key="lb_pick")
if picked is not None:
    st.page_link(
        "views/player.py",
        label=f"{tr('open_player')}: {picked}",
        query_params={"player": picked},
        icon=":material/person:",
    )
