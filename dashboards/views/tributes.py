"""Tributes (进贡, 还贡, 抗贡; rules.md §6): frequencies, cards paid and returned, and the level gain
of the paying team in the deal that follows, by ruleset."""

from __future__ import annotations

import streamlit as st

from dashboards import charts, queries
from dashboards.ui import choice, lang, no_data, run, show_chart, show_figure, show_table, tr

st.title(tr("page_tributes"))

rules = choice("ruleset", run(queries.filter_options)["rules"], "tr_rules")
kinds = run(queries.tribute_kinds, rules=rules)
if kinds.empty:
    no_data()
    st.stop()

total = int(kinds["n"].sum())
counts = dict(zip(kinds["kind"], kinds["n"], strict=True))
cols = st.columns(4)
for col, kind in zip(cols, ("single", "double", "anti", "none"), strict=True):
    n = int(counts.get(kind, 0))
    col.metric(
        tr(f"kind_{kind}"),
        f"{n:,}",
        f"{n / total:.1%}" if total else None,
        delta_color="off",
        delta_arrow="off",
    )

left, right = st.columns(2)
with left:
    show_chart(charts.tribute_kinds(kinds, lang()), "tribute_kinds")
with right:
    cards = run(queries.tribute_card_ranks, rules=rules)
    show_figure(cards, charts.tribute_cards, "tribute_cards")

gain = run(queries.level_gain_after_tribute, rules=rules)
show_figure(gain, charts.level_gain, "level_gain")
show_table(
    gain.assign(side=[tr(side) for side in gain["side"]]),
    "level_gain_after_tribute",
    column_config={"side": tr("team"), "gain": tr("level_gain"), "n": tr("deals")},
)
