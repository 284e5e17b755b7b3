"""Tournament: standings per event and round with every tie-break column (scoring.md §S7), and
the round results (final levels, 级差, match and level-difference points, §S1–§S3)."""

from __future__ import annotations

import streamlit as st

from dashboards import charts, queries
from dashboards.ui import lang, no_data, run, show_chart, show_table, tr

st.title(tr("page_tournament"))

events = run(queries.events)
if events.empty:
    no_data()
    st.stop()

names = dict(zip(events["event_id"], events["event_name"], strict=True))
left, right = st.columns(2)
with left:
    event = st.selectbox(
        tr("event"),
        events["event_id"].tolist(),
        key="tn_event",
        format_func=lambda e: f"{names[e]} ({e})" if names.get(e) else e,
    )
rounds = [int(r) for r in run(queries.event_rounds, event=event)["round"].dropna()]
with right:
    round_no = st.selectbox(
        tr("round"),
        [None, *rounds],
        index=len(rounds),
        key="tn_round",
        format_func=lambda r: tr("all") if r is None else str(r),
    )

shown_round = round_no if round_no is not None else max(rounds, default="")
st.subheader(f"{tr('standings')} · {tr('round')} {shown_round}")
table = run(queries.standings, event=event, round_no=round_no)
if table.empty:
    st.caption(tr("standings_missing"))
else:
    table = table.assign(
        team=[
            " / ".join(p for p in pair if isinstance(p, str))
            for pair in zip(table["player_1"], table["player_2"], strict=True)
        ]
    )
    key = table["primary_key"].dropna()
    points = (
        key.iloc[0] if len(key) and key.iloc[0] in ("match_points", "bcta_round_score") else "match_points"
    )
    show_chart(charts.standings_points(table, lang(), team="team", points=points), "standings_points")
    show_table(
        table,
        "standings",
        column_config={
            "rank": "#",
            "team_id": tr("team"),
            "match_points": tr("match_points"),
            "level_points": tr("level_diff"),
            "wins": tr("wins"),
            "draws": tr("draws"),
            "losses": tr("losses"),
            "rounds": tr("rounds"),
            "levels_gained": tr("levels_gained"),
        },
    )

st.subheader(tr("round_results"))
show_table(
    run(queries.round_results, event=event, round_no=round_no),
    "round_results",
    column_config={
        "round": tr("round"),
        "table": tr("table"),
        "winner": tr("winner"),
        "level_diff": tr("level_diff"),
    },
)
