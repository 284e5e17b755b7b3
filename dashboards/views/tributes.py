"""Tributes (进贡, 还贡, 抗贡; rules.md §6): frequencies, cards paid and returned, and the level gain
of the paying team against the receiving team in the deal that follows.

Everything follows the coach's filters (one player or all; date range, event, ruleset, partner,
seat, level; :mod:`dashboards.filters`), kept in the address, and every share shows its count.
Results-only deals (no play recorded) are left out, and the page says how many.
"""

from __future__ import annotations

import streamlit as st

from dashboards import charts
from dashboards.filters import filter_bar, low
from dashboards.queries.coach import coach_results_only
from dashboards.queries.players import players
from dashboards.queries.tributes import coach_level_gain, coach_tribute_cards, coach_tribute_kinds
from dashboards.ui import lang, no_data, player_picker, run, show_chart, show_figure, show_table, tr

st.title(tr("page_tributes"))

roster = run(players)
if roster.empty:
    no_data()
    st.stop()
player = player_picker(roster, key="tr_player", all_option=True)
filters, minimum = filter_bar("tr", player, roster)
kinds = run(coach_tribute_kinds, player=player, filters=filters)
excluded = int(run(coach_results_only, player=player, filters=filters).iloc[0]["after_first"])
st.caption(tr("results_only_excluded").format(n=excluded))
if kinds.empty:
    st.info(tr("no_deals_filtered"), icon=":material/search:")
    st.stop()

total = int(kinds["n"].sum())
counts = dict(zip(kinds["kind"], kinds["n"], strict=True))
cols = st.columns(4)
for col, kind in zip(cols, ("single", "double", "anti", "none"), strict=True):
    n = int(counts.get(kind, 0))
    col.metric(
        tr(f"kind_{kind}"),
        f"{n:,}",
        f"{n / total:.1%} ({n:,}/{total:,})" if total else None,
        delta_color="off",
        delta_arrow="off",
    )
if low(total, minimum):
    st.caption(f"⚠ {tr('below_min_sample').format(n=minimum)}")

left, right = st.columns(2)
with left:
    show_chart(charts.tribute_kinds(kinds, lang()), "tribute_kinds")
with right:
    cards = run(coach_tribute_cards, player=player, filters=filters)
    show_figure(cards, charts.tribute_cards, "tribute_cards")

gain = run(coach_level_gain, player=player, filters=filters)
show_figure(gain, charts.level_gain, "level_gain")
sides = gain.groupby("side")["n"].sum() if not gain.empty else None
if sides is not None and any(low(int(n), minimum) for n in sides):
    st.caption(f"⚠ {tr('below_min_sample').format(n=minimum)}")
show_table(
    gain.assign(side=[tr(side) for side in gain["side"]]),
    "level_gain_after_tribute",
    column_config={"side": tr("team"), "gain": tr("level_gain"), "n": tr("deals")},
)
