"""Head-to-head and partners: one player against another, as partners and as
opponents; the player's nemesis and best partner; period leaderboards (month, season) with
"most improved".

Every rate shows its numerator and denominator; nemesis and best partner are chosen only among
those met at least the minimum sample of rounds (``?min_n=``, default :data:`H2H_MIN_ROUNDS`, said
on the page), so one lucky round never names either. Players, period and minimum are in the address.
"""

from __future__ import annotations

import pandas as pd
import streamlit as st

from dashboards.filters import min_sample, rate_text
from dashboards.queries.head_to_head import PERIODS, head_to_head, period_leaderboard, periods, rivals
from dashboards.queries.players import players
from dashboards.ui import (
    flag_low_data,
    no_data,
    player_label,
    player_link,
    player_picker,
    run,
    show_table,
    tr,
    url_choice,
)
from scoring.params import RatingParams

# Default minimum of rounds met for nemesis, best partner and the leaderboards' greying. Two players
# meet far less often than one player plays: in the demo league (96 players, 40 sessions, partners
# drawn each round) a player's most frequent partner is met 2–4 times (median 3) and most frequent
# opponent 2–6, so the coach pages' 30 named nobody; at 3, 54 of 96 players have a best partner and
# 93 a nemesis. A fixed pair of a tournament meets its partner every round.
H2H_MIN_ROUNDS = 3

st.title(tr("page_head_to_head"))

roster = run(players)
if roster.empty:
    no_data()
    st.stop()
name_of = player_label(roster)
left, right, setting = st.columns([2, 2, 1])
with left:
    player = player_picker(roster, key="h2h_player")
with right:
    other = player_picker(roster, key="h2h_other", param="other", label_key="choose_other", all_option=True)
with setting:
    minimum = min_sample("h2h", default=H2H_MIN_ROUNDS)
st.caption(tr("h2h_minimum_note").format(n=minimum, default=H2H_MIN_ROUNDS))
if player is None:
    no_data()
    st.stop()


def win_rate(frame: pd.DataFrame) -> pd.Series:
    """(wins + ½ draws) / rounds of each row (rules of ``dashboards.queries.players.leaderboard``)."""
    return (frame["wins"] + 0.5 * frame["draws"]) / frame["rounds"]


if other is not None and other != player:
    st.subheader(f"{name_of(player)} · {name_of(other)}")
    pair = run(head_to_head, player=player, other=other).set_index("relation")
    cols = st.columns(2)
    for col, relation in zip(cols, ("partner", "opponent"), strict=True):
        with col:
            st.markdown(f"**{tr(f'as_{relation}')}**")
            if relation not in pair.index:
                st.caption(tr("never_met"))
                continue
            row = pair.loc[relation]
            rounds = int(row["rounds"])
            score = float(row["wins"] + 0.5 * row["draws"])
            text = (
                f"{tr('win_rate')}: {rate_text(score, rounds)} · {int(row['wins'])}–{int(row['draws'])}–"
                f"{int(row['losses'])} · {tr('levels_gained')} {int(row['levels_gained'] or 0):+d}"
            )
            st.markdown(f":gray[{text}]" if rounds < minimum else text)
            if rounds < minimum:
                st.caption(f"⚠ {tr('below_min_sample').format(n=minimum)}")

met = run(rivals, player=player)
if met.empty:
    st.caption(tr("never_met"))
else:
    met = met.assign(win_rate=win_rate(met), enough=met["rounds"] >= minimum)
    cols = st.columns(2)
    for col, relation, key, pick in (
        (cols[0], "partner", "best_partner", "idxmax"),
        (cols[1], "opponent", "nemesis", "idxmin"),
    ):
        part = met[(met["relation"] == relation) & met["enough"]]
        with col:
            if part.empty:
                st.metric(tr(key), "—")
                st.caption(tr("none_enough_rounds").format(n=minimum))
                continue
            best = part.loc[getattr(part["win_rate"], pick)()]
            score = float(best["wins"] + 0.5 * best["draws"])
            st.metric(
                tr(key),
                name_of(str(best["other"])),
                rate_text(score, int(best["rounds"])),
                delta_color="off",
                delta_arrow="off",
            )
    table = met.assign(
        relation=[tr(f"as_{r}") for r in met["relation"]],
        other_name=flag_low_data(met["other"].map(name_of), ~met["enough"]),
        link=met["other"].map(player_link),
    )
    show_table(
        table[["relation", "other_name", "rounds", "wins", "draws", "losses", "win_rate", "link"]],
        f"rivals_{player}",
        column_config={
            "relation": tr("relation"),
            "other_name": tr("player"),
            "link": st.column_config.LinkColumn(tr("open_player"), display_text=tr("open_player")),
        },
    )
    st.caption(f"⚠ {tr('below_min_sample').format(n=minimum)}")

st.subheader(tr("period_leaderboard"))
kinds = list(PERIODS)
c1, c2 = st.columns(2)
with c1:
    period = url_choice(
        st.radio,
        tr("period"),
        kinds,
        key="h2h_period",
        param="period",
        default=kinds[0],
        format_func=lambda k: tr(f"period_{k}"),
        horizontal=True,
    )
names = run(periods, period=period)["period"].tolist()
if not names:
    no_data("no_data_table")
    st.stop()
with c2:
    name = url_choice(st.selectbox, tr("period_name"), names, key="h2h_period_name", param="when")
board = run(period_leaderboard, period=period, name=name, scale=RatingParams().display_deals)
board = board.assign(
    player=flag_low_data(board["player_id"].map(name_of), board["rounds"] < minimum),
    link=board["player_id"].map(player_link),
)
show_table(
    board[["player", "rounds", "wins", "draws", "losses", "win_rate", "levels_gained", "link"]],
    f"period_{period}_{name}",
    column_config={"link": st.column_config.LinkColumn(tr("open_player"), display_text=tr("open_player"))},
)

st.subheader(tr("most_improved"))
improved = board[board["rated_rounds"] >= minimum].dropna(subset=["skill_change"])
improved = improved.sort_values(["skill_change", "player_id"], ascending=[False, True])
if improved.empty:
    st.caption(tr("none_enough_rated_rounds").format(n=minimum))
else:
    show_table(
        improved[["player", "rated_rounds", "skill_change", "levels_gained", "link"]],
        f"improved_{period}_{name}",
        column_config={
            "skill_change": st.column_config.NumberColumn(tr("skill_change"), format="%+.2f"),
            "link": st.column_config.LinkColumn(tr("open_player"), display_text=tr("open_player")),
        },
    )
st.caption(tr("most_improved_intro").format(n=minimum))
