"""Overview: size and time span of the store and the validation status of its matches."""

from __future__ import annotations

import streamlit as st

from dashboards import charts
from dashboards.i18n import LABELS
from dashboards.naming import ruleset_name
from dashboards.queries.overview import (
    MATCH_STATUSES,
    matches_by_ruleset,
    matches_per_day,
    overview_totals,
    status_counts,
)
from dashboards.ui import lang, no_data, run, show_chart, show_figure, show_table, tr

st.title(f"🃏 {tr('app_title')} · {tr('page_overview')}")

totals = run(overview_totals).iloc[0]
if totals["matches"] == 0 and totals["raw_events"] == 0:
    no_data()
    st.stop()

cols = st.columns(5)
for col, key in zip(cols, ("matches", "deals", "players", "events", "raw_events"), strict=True):
    col.metric(tr(key), f"{int(totals[key]):,}")

first, last = totals["first_day"], totals["last_day"]
if first is not None and str(first) != "NaT":
    st.caption(f"{tr('date_range')}: {first:%Y-%m-%d} → {last:%Y-%m-%d} ({tr('local_days')})")

status = run(status_counts)
counts = dict(zip(status["status"], status["n"], strict=True))
shown = [*MATCH_STATUSES, *sorted(set(counts) - set(MATCH_STATUSES))]
for col, key in zip(st.columns(len(shown)), shown, strict=True):
    col.metric(tr(f"status_{key}") if f"status_{key}" in LABELS else key, f"{int(counts.get(key, 0)):,}")

left, right = st.columns(2)
with left:
    per_day = run(matches_per_day)
    show_figure(per_day, charts.matches_per_day, "per_day")
with right:
    by_rules = run(matches_by_ruleset)
    if not by_rules.empty:
        show_chart(charts.matches_by_ruleset(by_rules, lang()), "by_ruleset")
show_table(
    by_rules.assign(
        rules=[ruleset_name(r, lang()) for r in by_rules["rules"]],
        status=[tr(f"status_{s}") if f"status_{s}" in LABELS else s for s in by_rules["status"]],
    ),
    "matches_by_ruleset",
    column_config={"rules": tr("ruleset"), "n": tr("matches")},
)
