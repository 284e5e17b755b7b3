"""Bombs (炸弹; rules.md §3–§4): per deal, by type and size, timing against the opponents' cards
left, bombs on the partner, 四大天王 and 同花顺, and deal win rate by bombs held and used."""

from __future__ import annotations

import streamlit as st

from dashboards import charts, queries
from dashboards.ui import choice, lang, no_data, run, show_chart, show_figure, show_table, tr

st.title(tr("page_bombs"))

rules = choice("ruleset", run(queries.filter_options)["rules"], "bm_rules")
summary = run(queries.bomb_summary, rules=rules).iloc[0]
if int(summary["deals"]) == 0:
    no_data()
    st.stop()

deals = int(summary["deals"])
cols = st.columns(5)
cols[0].metric(tr("bombs_total"), f"{int(summary['bombs']):,}")
cols[1].metric(
    tr("bombs_per_deal"),
    f"{summary['bombs'] / deals:.2f}",
    f"n={deals:,}",
    delta_color="off",
    delta_arrow="off",
)
share = f"{summary['on_partner'] / summary['bombs']:.1%}" if summary["bombs"] else None
cols[2].metric(
    tr("bomb_partner"), f"{int(summary['on_partner']):,}", share, delta_color="off", delta_arrow="off"
)
cols[3].metric(tr("joker_bombs"), f"{int(summary['joker_bombs']):,}")
cols[4].metric(tr("straight_flushes"), f"{int(summary['straight_flushes']):,}")

left, right = st.columns(2)
with left:
    show_chart(charts.bombs_per_deal(run(queries.bombs_per_deal, rules=rules), lang()), "bombs_per_deal")
with right:
    by_class = run(queries.bombs_by_class, rules=rules)
    show_figure(by_class, charts.bombs_by_class, "bombs_by_class")

left, right = st.columns(2)
with left:
    timing = run(queries.bomb_timing, rules=rules)
    show_figure(timing, charts.bomb_timing, "bomb_timing")
with right:
    wins = run(queries.win_by_bombs, rules=rules)
    show_figure(wins, charts.win_by_bombs, "win_by_bombs")
show_table(wins, "win_by_bombs")
