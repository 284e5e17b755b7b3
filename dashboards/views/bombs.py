"""Bombs (炸弹; rules.md §3–§4): per deal, by type and size, timing against the opponents' cards
left, bombs on the partner, 四大天王 and 同花顺, and deal win rate by bombs held and used.

Everything follows the coach's filters (one player or all; date range, event, ruleset, partner,
seat, level; :mod:`dashboards.filters`), kept in the address; every rate shows its numerator and
denominator, greyed below the minimum sample. Results-only deals (no play recorded) are left out,
and the page says how many.
"""

from __future__ import annotations

import streamlit as st

from dashboards import charts
from dashboards.filters import filter_bar, rate_metric
from dashboards.queries.bombs import coach_bombs, coach_bombs_per_deal, coach_win_by_bombs
from dashboards.queries.coach import coach_deal_record, coach_results_only
from dashboards.queries.players import players
from dashboards.ui import flag_low_data, no_data, player_picker, run, show_figure, show_table, tr

st.title(tr("page_bombs"))

roster = run(players)
if roster.empty:
    no_data()
    st.stop()
player = player_picker(roster, key="bm_player", all_option=True)
filters, minimum = filter_bar("bm", player, roster)
record = run(coach_deal_record, player=player, filters=filters).iloc[0]
excluded = int(run(coach_results_only, player=player, filters=filters).iloc[0]["deals"])
st.caption(tr("results_only_excluded").format(n=excluded))
seats = int(record["deals"])
if seats == 0:
    st.info(tr("no_deals_filtered"), icon=":material/search:")
    st.stop()

bombs = run(coach_bombs, player=player, filters=filters)
played = int(bombs["n"].sum())
known = int(record["deals_known"])
cols = st.columns(5)
cols[0].metric(tr("bombs_total"), f"{played:,}")
rate_metric(cols[1], tr("bombs_per_seat"), played, known, minimum, percent=False)
rate_metric(
    cols[2], tr("bomb_partner"), int(bombs.loc[bombs["on_partner"].fillna(False), "n"].sum()), played, minimum
)
cols[3].metric(tr("joker_bombs"), f"{int(bombs.loc[bombs['bomb_class'] == 'joker_bomb', 'n'].sum()):,}")
cols[4].metric(
    tr("straight_flushes"), f"{int(bombs.loc[bombs['bomb_class'] == 'straight_flush', 'n'].sum()):,}"
)

left, right = st.columns(2)
with left:
    per_deal = run(coach_bombs_per_deal, player=player, filters=filters)
    show_figure(per_deal, charts.bombs_per_deal, "bombs_per_deal")
with right:
    by_class = bombs.groupby(["bomb_class", "size"], as_index=False)["n"].sum()
    show_figure(by_class, charts.bombs_by_class, "bombs_by_class")

left, right = st.columns(2)
with left:
    timing = bombs.dropna(subset=["opp_min_left"]).groupby("opp_min_left", as_index=False)["n"].sum()
    show_figure(timing, charts.bomb_timing, "bomb_timing")
with right:
    wins = run(coach_win_by_bombs, player=player, filters=filters)
    wins = wins.assign(win_rate=wins["wins"] / wins["n"])
    show_figure(wins, charts.win_by_bombs, "win_by_bombs")
shown = wins.assign(
    kind=flag_low_data(wins["kind"].map(tr), wins["n"] < minimum),
    won=[f"{int(w):,}/{int(n):,}" for w, n in zip(wins["wins"], wins["n"], strict=True)],
)
show_table(
    shown[["kind", "bombs", "win_rate", "won", "n"]],
    "win_by_bombs",
    column_config={"kind": tr("bomb_kind"), "bombs": tr("bombs_n"), "won": tr("won_of_n"), "n": tr("n")},
)
st.caption(f"⚠ {tr('below_min_sample').format(n=minimum)}")
