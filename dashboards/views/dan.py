"""Dan promotion: players close to their next dan, recent promotions and window resets, the dan
distribution and the rules in force (BCTA Appendix A, scoring.md §S5)."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from dashboards import charts
from dashboards.queries.dan import close_to_promotion, dan_distribution, dan_events, promotion_forecast
from dashboards.queries.players import players
from dashboards.ui import (
    NAMED_LINK,
    flag_low_data,
    lang,
    no_data,
    player_link,
    printout_downloads,
    run,
    show_chart,
    show_table,
    tr,
)
from pipelines.reads.printout_documents import dan_document
from scoring.params import BCTA_DAN, DanParams

st.title(tr("page_dan"))

distribution = run(dan_distribution)
if distribution.empty:
    no_data()
else:
    left, right = st.columns([2, 3])
    with left:
        show_chart(charts.dan_distribution(distribution, lang(), dan="dan"), "dan_distribution")
    with right:
        st.subheader(tr("close_to_promotion"))
        near = run(close_to_promotion)
        roster = run(players)
        named = {p: n for p, n in zip(roster["player_id"], roster["name"], strict=True) if isinstance(n, str)}
        show_table(
            near.assign(player_id=[player_link(p, named.get(p, p)) for p in near["player_id"]]),
            "close_to_promotion",
            column_config={
                "player_id": st.column_config.LinkColumn(tr("player"), display_text=NAMED_LINK),
                "dan": tr("dan"),
                "points": tr("dan_points"),
                "next_threshold": tr("next_threshold"),
                "points_to_next": tr("points_to_next"),
                "window_points": tr("window_points"),
                "window_needed": tr("window_needed"),
                "progress": st.column_config.ProgressColumn(
                    tr("window_progress"), format="percent", min_value=0, max_value=1
                ),
                "window_rounds_used": tr("window_used"),
                "rounds_left": tr("rounds_left"),
                "last_played": tr("last_played_local"),
            },
        )
        st.caption(tr("window_progress_note"))
    st.subheader(tr("forecast"))
    st.caption(tr("forecast_intro"))
    forecast = run(promotion_forecast)
    if not forecast.empty:
        forecast = forecast.assign(player_id=flag_low_data(forecast["player_id"], forecast["low_data"]))
        st.caption(tr("low_data_warning"))
    show_table(
        forecast.drop(columns="low_data"),
        "promotion_forecast",
        column_config={
            "player_id": tr("player"),
            "dan": tr("dan"),
            "next_dan": tr("next_dan"),
            "points": tr("dan_points"),
            "points_to_next": tr("points_to_next"),
            "rounds_left": tr("rounds_left"),
            "p_promote": st.column_config.ProgressColumn(
                tr("p_promote"), format="percent", min_value=0, max_value=1
            ),
            "expected_rounds": st.column_config.NumberColumn(tr("expected_rounds"), format="%.1f"),
            "win_chance": st.column_config.NumberColumn(tr("win_chance"), format="percent"),
            "rated_rounds": tr("rated_rounds"),
        },
    )
    st.subheader(tr("recent_changes"))
    changes = run(dan_events)
    show_table(
        changes.assign(event=[tr(f"dan_{e}") for e in changes["event"]]),
        "dan_events",
        column_config={
            "event": tr("dan_change"),
            "player_id": tr("player"),
            "window_rounds_used": tr("window_used"),
            "match_id": tr("match_id"),
            "started_at": tr("started_local"),
        },
    )

    st.subheader(tr("printouts"))
    # one player by default: the all-players ledger reads every player's rounds
    ids = run(players)["player_id"].tolist()
    who = st.selectbox(
        tr("dan_printout_player"),
        [*ids, None],
        key="dan_print_player",
        format_func=lambda p: tr("all") if p is None else str(p),
    )
    printout_downloads(
        dan_document, f"dan-ledger-{who or 'all'}", tr("dan_printout"), [who] if who else None, None
    )

st.subheader(tr("rules_in_force"))
params = DanParams()
rules = pd.DataFrame(
    {
        tr("dan"): list(range(1, params.max_dan + 1)),
        tr("points_from"): list(params.thresholds),
        tr("window"): list(params.windows),
    }
)
show_table(rules, "dan_rules")
st.markdown(
    f"- {tr('round_points')}: {BCTA_DAN.win} / {BCTA_DAN.draw} / {BCTA_DAN.loss}\n"
    f"- {tr('deal_points')}: " + " / ".join(f"+{p}" for p in BCTA_DAN.per_deal_gain) + "\n"
    f"- {tr('a_fail_points')}: "
    + " / ".join(f"+{p}" for p in BCTA_DAN.a_failure_points)
    + f" / {tr('a_fail_third')}\n"
    f"- {tr('same_dan_note_' + params.same_dan)}"
)
