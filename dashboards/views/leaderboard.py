"""Leaderboard: ratings with their real uncertainty, dan and results, filtered by club, event,
ruleset and minimum rounds and searchable by name or id; every filter is in the address, ties
share a rank and each row links to the player page."""

from __future__ import annotations

import streamlit as st

from dashboards import charts
from dashboards.naming import ruleset_name
from dashboards.queries.players import filter_options, leaderboard, players
from dashboards.roster import clubs, with_names
from dashboards.ui import (
    choice,
    find_players,
    from_url,
    lang,
    no_data,
    no_match,
    page_link,
    player_label,
    player_link,
    player_picker,
    run,
    shared_rank,
    show_chart,
    show_table,
    to_url,
    tr,
    url_text,
)
from scoring.params import RatingParams

st.title(tr("page_leaderboard"))

options = run(filter_options)
roster = run(players)
if roster.empty:
    no_data()
    st.stop()

c1, c2, c3, c4, c5 = st.columns([3, 2, 2, 2, 1])
with c1:
    search = url_text(tr("search_player"), key="lb_search", param="q")
with c2:
    club = choice("club", clubs(roster), "lb_club", param="club")
with c3:
    event = choice("event", options["event"], "lb_event", param="event")
with c4:
    rules = choice(
        "ruleset", options["rules"], "lb_rules", param="rules", name=lambda r: ruleset_name(r, lang())
    )
with c5:
    from_url("lb_min", "min_rounds", parse=int)
    min_rounds = int(st.number_input(tr("min_rounds"), min_value=0, step=1, key="lb_min"))
    to_url("lb_min", "min_rounds", min_rounds, default=0)

board = with_names(run(leaderboard, event=event, rules=rules, min_rounds=min_rounds), roster, club)
board.insert(0, "rank", shared_rank(board["rating"]))  # ranked before the search narrows the rows
found = find_players(board, search)
if board.empty:
    st.info(tr("nothing_filtered"), icon=":material/info:")
    st.stop()
if found.empty:
    no_match(search)
    st.stop()

rated = found[found["rating"].notna()]
if rated.empty:
    st.caption(tr("ratings_missing"))
else:
    show_chart(charts.ratings(rated, lang(), display_k=RatingParams().display_k), "ratings")

show_table(
    found.assign(link=[player_link(p) for p in found["player_id"]]),
    "leaderboard",
    column_order=[
        "rank",
        "link",
        "name",
        "club",
        "rating",
        "mu",
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
        "rank": st.column_config.NumberColumn(tr("standing_rank"), format="%d"),
        "link": st.column_config.LinkColumn(tr("player"), display_text=r"player=([^&]*)"),
        "name": tr("name"),
        "club": tr("club"),
        "rating": st.column_config.NumberColumn(tr("rating"), format="%.1f"),
        "mu": st.column_config.NumberColumn(tr("skill_mu"), format="%.1f"),
        "sigma": st.column_config.NumberColumn(tr("uncertainty"), format="± %.2f"),
        "provisional": st.column_config.CheckboxColumn(tr("provisional")),
        "dan": tr("dan"),
        "pro_dan": tr("pro_dan"),
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

picked = player_picker(found, key="lb_pick")
if picked is not None:
    page_link(
        "player", f"{tr('open_player')}: {player_label(found)(picked)}", player=picked
    )
