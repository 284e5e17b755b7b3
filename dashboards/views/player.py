"""Player: rating, skill from decisions beside it (``decision_skill``: mistakes on real choices,
and combined with the rating), rating history, dan ledger, results by partner and opponent,
finishing positions, play-pattern statistics and decision-review accuracy by phase, exact
(``player_reviews``) and sampled from the player's view (``single_dummy_reviews``, when the opt-in
job has run), next to the population's, each with its sample size.

For coaches: the player (searchable by name or id) and every filter are in the address;
the filters (date range, event, ruleset, partner, seat, level) narrow the deal record, the match
list (each row opens the replayer at that deal), the finishing positions and the play patterns,
and every rate shows its numerator and denominator, greyed below the minimum sample.
"""

from __future__ import annotations

import pandas as pd
import streamlit as st

from dashboards import charts
from dashboards.filters import filter_bar, rate_metric
from dashboards.naming import combo_type_name
from dashboards.patterns import low_sample_marks, pattern_table, rates_table
from dashboards.queries.coach import (
    coach_deal_record,
    coach_finish_positions,
    coach_match_list,
    coach_play_rates,
)
from dashboards.queries.dan import dan_ledger, player_dan, player_forecast
from dashboards.queries.play_patterns import jie_feng_received, lead_types, play_stats, return_ranks
from dashboards.queries.players import (
    decision_skill,
    luck_population,
    player_luck,
    player_summary,
    players,
    rating_history,
    results_by_opponent,
    results_by_partner,
    review_accuracy,
    sampled_accuracy,
)
from dashboards.ui import (
    lang,
    no_data,
    percent,
    player_label,
    player_picker,
    replayer_link,
    run,
    show_chart,
    show_table,
    tr,
)
from schemas.vocabulary import DISPLAY_RANKS
from scoring.params import DanParams

st.title(tr("page_player"))

roster = run(players)
if roster.empty:
    no_data()
    st.stop()

picked = player_picker(roster, key="player_pick")
if picked is None:
    no_data()
    st.stop()
player: str = picked
name_of = player_label(roster)
filters, minimum = filter_bar("pl", player, roster)

row = run(player_summary, player=player).iloc[0]
dan = run(player_dan, player=player)
cols = st.columns(5)
cols[0].metric(
    tr("rating"),
    "—" if pd.isna(row["rating"]) else f"{row['rating']:.1f}",
    None if pd.isna(row["sigma"]) else f"± {row['sigma']:.2f}",
    delta_color="off",
    delta_arrow="off",
)
cols[1].metric(tr("dan"), "—" if dan.empty or pd.isna(dan["dan"].iloc[0]) else int(dan["dan"].iloc[0]))
cols[2].metric(
    tr("pro_dan"), "—" if dan.empty or pd.isna(dan["pro_dan"].iloc[0]) else int(dan["pro_dan"].iloc[0])
)
cols[3].metric(tr("rounds"), int(row["rounds"]))
rate_metric(cols[4], tr("win_rate"), row["wins"] + 0.5 * row["draws"], row["rounds"], minimum)
if pd.notna(row["provisional"]) and bool(row["provisional"]):
    st.caption(f"{tr('provisional')} ({tr('uncertainty')})")


def per_100(rate: float) -> str:
    """Mistakes per real choice as mistakes per 100 real choices, one decimal."""
    return f"{100 * rate:.1f}"


def rate_interval(low: float, high: float) -> str:
    """A 95 % interval of mistakes per 100 real choices."""
    return f"{tr('ci_95')} {per_100(low)} … {per_100(high)}"


st.subheader(tr("decision_skill"))
skill = run(decision_skill, player=player)
if skill.empty:
    st.caption(tr("no_decision_skill"))
else:
    own_skill = skill.iloc[0]
    skill_cols = st.columns(4)
    skill_cols[0].metric(
        tr("decision_estimate"),
        per_100(-own_skill["estimate"]),
        rate_interval(-own_skill["high"], -own_skill["low"]),
        delta_color="off",
        delta_arrow="off",
    )
    skill_cols[1].metric(
        tr("decision_observed"),
        per_100(own_skill["mistake_rate"]),
        rate_interval(own_skill["rate_low"], own_skill["rate_high"]),
        delta_color="off",
        delta_arrow="off",
    )
    skill_cols[2].metric(tr("real_choices_reviewed"), int(own_skill["choices"]))
    rated = pd.notna(own_skill["combined"])
    rank = int(own_skill["combined_rank"]) if rated else 0
    skill_cols[3].metric(
        tr("combined_skill"),
        f"{own_skill['combined']:+.2f}" if rated else "—",
        tr("combined_rank").format(rank=rank, n=int(own_skill["ranked"])) if rated else None,
        delta_color="off",
        delta_arrow="off",
    )
    st.caption(
        tr("decision_skill_note").format(
            population=per_100(own_skill["population_rate"]),
            reliability=percent(own_skill["reliability"]),
            rating_reliability=percent(own_skill["rating_reliability"]),
        )
    )

record = run(coach_deal_record, player=player, filters=filters).iloc[0]
deals = int(record["deals"])
st.subheader(tr("deal_record"))
if deals == 0:
    st.info(tr("no_deals_filtered"), icon=":material/search:")
else:
    record_cols = st.columns(5)
    record_cols[0].metric(tr("deals_in_filter"), f"{deals:,}")
    rate_metric(record_cols[1], tr("deal_win_rate"), record["deals_won"], deals, minimum)
    rate_metric(record_cols[2], tr("double_win_rate"), record["double_wins"], deals, minimum)
    rate_metric(record_cols[3], tr("double_loss_rate"), record["double_losses"], deals, minimum)
    rate_metric(
        record_cols[4], tr("bombs_per_deal"), record["bombs"], record["deals_known"], minimum, percent=False
    )

st.subheader(tr("match_list"))
games = run(coach_match_list, player=player, filters=filters)
if games.empty:
    st.info(tr("no_deals_filtered"), icon=":material/search:")
else:
    games = games.assign(
        partner_name=games["partner"].map(lambda p: name_of(p) if isinstance(p, str) else ""),
        opponents=[
            " · ".join(name_of(p) for p in o.split(" · ")) if isinstance(o, str) and o else ""
            for o in games["opponents"]
        ],
        result=[tr(f"result_{r}") if isinstance(r, str) else "" for r in games["result"]],
        replay=[replayer_link(m, int(d)) for m, d in zip(games["match_id"], games["deal"], strict=True)],
    )
    show_table(
        games[
            [
                "replay",
                "started",
                "event_id",
                "round",
                "partner_name",
                "opponents",
                "result",
                "levels",
                "levels_gained",
                "deals",
            ]
        ],
        f"matches_{player}",
        column_config={
            "started": tr("date"),
            "event_id": tr("event"),
            "round": tr("round"),
            "partner_name": tr("partner"),
            "opponents": tr("opponents"),
            "result": tr("result"),
            "levels": tr("final_levels"),
            "levels_gained": tr("levels_gained"),
            "deals": tr("deals_in_filter"),
            "replay": st.column_config.LinkColumn(tr("open_replay"), display_text=tr("open_replay")),
        },
    )

st.subheader(tr("forecast"))
forecast = run(player_forecast, player=player)
if forecast.empty:
    st.caption(tr("no_forecast"))
else:
    f = forecast.iloc[0]
    forecast_cols = st.columns(4)
    forecast_cols[0].metric(f"{tr('p_promote')} → {int(f['next_dan'])}", percent(f["p_promote"]))
    forecast_cols[1].metric(
        tr("expected_rounds"), "—" if pd.isna(f["expected_rounds"]) else f"{f['expected_rounds']:.1f}"
    )
    forecast_cols[2].metric(tr("win_chance"), percent(f["win_chance"]))
    forecast_cols[3].metric(tr("rounds_left"), "—" if pd.isna(f["rounds_left"]) else int(f["rounds_left"]))
    st.caption(tr("forecast_intro"))
    if bool(f["low_data"]):
        st.warning(
            f"{tr('low_data')}: {tr('rated_rounds')} {int(f['rated_rounds'])}", icon=":material/warning:"
        )

st.subheader(tr("luck"))
luck = run(player_luck, player=player)
if luck.empty:
    st.caption(tr("no_luck"))
else:
    own = luck.iloc[0]
    luck_cols = st.columns(4)
    luck_cols[0].metric(
        tr("above_expectation"),
        f"{own['above_expectation']:+.2f}",
        f"{tr('ci_95')} {own['ci_low']:+.2f} … {own['ci_high']:+.2f}",
        delta_color="off",
        delta_arrow="off",
    )
    luck_cols[1].metric(tr("actual_mean"), f"{own['actual_mean']:+.2f}")
    luck_cols[2].metric(tr("expected_mean"), f"{own['expected_mean']:+.2f}")
    luck_cols[3].metric(tr("deals"), int(own["deals"]))
    if bool(own["low_data"]):
        st.warning(tr("low_data"), icon=":material/warning:")
    show_chart(charts.luck_vs_population(run(luck_population), lang(), player=player), "luck")
    st.caption(tr("luck_intro"))

left, right = st.columns(2)
with left:
    history = run(rating_history, player=player)
    if history.empty:
        st.subheader(tr("rating_history"))
        no_data("no_data_table")
    else:
        show_chart(
            charts.rating_history(
                history, lang(), x="round_index", rating="rating_after", sigma="sigma_after"
            ),
            "rating_history",
        )
with right:
    ledger = run(dan_ledger, player=player)
    if ledger.empty:
        st.subheader(tr("dan_ledger"))
        no_data("no_data_table")
    else:
        thresholds = DanParams().thresholds
        ledger = ledger.assign(
            next_threshold=[
                thresholds[int(d)] if pd.notna(d) and int(d) < len(thresholds) else None
                for d in ledger["dan_after"]
            ]
        )
        show_chart(
            charts.dan_ledger(
                ledger,
                lang(),
                x="seq",
                points="total_after",
                threshold="next_threshold",
                window="window_rounds_used",
            ),
            "dan_ledger",
        )

left, right = st.columns(2)
with left:
    st.subheader(tr("by_partner"))
    show_table(run(results_by_partner, player=player), "by_partner")
with right:
    st.subheader(tr("by_opponent"))
    show_table(run(results_by_opponent, player=player), "by_opponent")

positions = run(coach_finish_positions, player=player, filters=filters)
position_labels = {str(i): tr(f"pos_{i}") for i in range(1, 5)} | {"double_loss": tr("pos_double_loss")}
st.subheader(tr("play_patterns"))
left, right = st.columns(2)
with left:
    if positions.empty:
        no_data("no_data_table")
    else:
        show_chart(
            charts.compare_shares(
                positions,
                lang(),
                category="position",
                title_key="finish_dist",
                x_key="position",
                labels=position_labels,
                order=[*position_labels],
            ),
            "finish_positions",
        )
        lost = positions.loc[positions["position"] == "double_loss", "player_n"].sum()
        counted = int(positions["player_n"].sum())
        st.caption(f"{tr('double_losses')}: {int(lost)} · {tr('deals')}: {counted}")
        if counted < minimum:
            st.caption(f"⚠ {tr('below_min_sample').format(n=minimum)}")
with right:
    leads = run(lead_types, player=player)
    if leads.empty:
        no_data("no_data_table")
    else:
        show_chart(
            charts.compare_shares(
                leads,
                lang(),
                category="combo_type",
                title_key="lead_types",
                x_key="combo_type",
                labels={str(c): combo_type_name(c, lang()) for c in leads["combo_type"]},
            ),
            "lead_types",
        )

if filters.is_set():
    stats = rates_table(
        run(coach_play_rates, player=player, filters=filters),
        run(play_stats, player=None),
        run(jie_feng_received, player=None),
    )
    st.caption(tr("population_unfiltered"))
else:
    stats = pattern_table(
        run(play_stats, player=player),
        run(play_stats, player=None),
        run(jie_feng_received, player=player),
        run(jie_feng_received, player=None),
    )
stats = stats.assign(
    metric=[tr(k) for k in stats["metric"]],
    sample=["⚠" if flag else "" for flag in low_sample_marks(stats, minimum)],
)
show_table(
    stats,
    "play_patterns",
    column_config={
        "metric": tr("metric"),
        "player_value": st.column_config.NumberColumn(tr("this_player"), format="%.3f"),
        "player_n": st.column_config.NumberColumn(f"{tr('this_player')} · {tr('n')}"),
        "population_value": st.column_config.NumberColumn(tr("population"), format="%.3f"),
        "population_n": st.column_config.NumberColumn(f"{tr('population')} · {tr('n')}"),
        "sample": tr("low_sample"),
    },
)
st.caption(f"⚠ {tr('below_min_sample').format(n=minimum)}")

def interval(row: pd.Series) -> str:
    """A 95 % interval as text, a dash without real choices."""
    low, high = row["accuracy_low"], row["accuracy_high"]
    return "—" if pd.isna(low) else f"{low:.0f}–{high:.0f}"


def accuracy_columns(figure: str, figure_format: str) -> dict[str, object]:
    """The column settings shared by both accuracy tables; ``figure``: the i18n key of the last
    column of each side (a loss per 100 real choices), shown with ``figure_format``."""
    return {
        "phase": tr("review_phase"),
        "player_value": st.column_config.NumberColumn(f"{tr('this_player')} · {tr('accuracy')}",
                                                      format="%.1f"),
        "player_interval": f"{tr('this_player')} · {tr('ci_95')}",
        "player_n": st.column_config.NumberColumn(f"{tr('this_player')} · {tr('real_choices')}"),
        "not_scored": st.column_config.NumberColumn(f"{tr('this_player')} · {tr('not_scored')}"),
        "player_figure": st.column_config.NumberColumn(f"{tr('this_player')} · {tr(figure)}",
                                                       format=figure_format),
        "population_value": st.column_config.NumberColumn(f"{tr('population')} · {tr('accuracy')}",
                                                          format="%.1f"),
        "population_interval": f"{tr('population')} · {tr('ci_95')}",
        "population_n": st.column_config.NumberColumn(f"{tr('population')} · {tr('real_choices')}"),
        "population_figure": st.column_config.NumberColumn(f"{tr('population')} · {tr(figure)}",
                                                           format=figure_format),
    }


st.subheader(tr("review_accuracy"))
st.markdown(f"**{tr('review_kind_double_dummy').capitalize()}**")
st.caption(tr("review_accuracy_note"))
mine = run(review_accuracy, player=player).set_index("phase")
everyone = run(review_accuracy, player=None).set_index("phase")
if everyone.empty or int(everyone.loc["all", "decisions"]) == 0:
    no_data("no_data_table")
else:
    phases = list(everyone.index)
    mine = mine.reindex(phases)
    accuracy = pd.DataFrame(
        {
            "phase": [tr(f"phase_{p}") for p in phases],
            "player_value": mine["accuracy"].to_numpy(),
            "player_interval": [interval(r) for _, r in mine.iterrows()],
            "player_n": mine["real"].fillna(0).astype(int).to_numpy(),
            "not_scored": (mine["forced"].fillna(0) + mine["all_equal"].fillna(0)).astype(int).to_numpy(),
            "player_figure": mine["match_loss"].to_numpy(),
            "population_value": everyone.loc[phases, "accuracy"].to_numpy(),
            "population_interval": [interval(everyone.loc[p]) for p in phases],
            "population_n": everyone.loc[phases, "real"].astype(int).to_numpy(),
            "population_figure": everyone.loc[phases, "match_loss"].to_numpy(),
        }
    )
    show_table(accuracy, "review_accuracy", column_config=accuracy_columns("match_loss_per_100", "%.2f"))

st.markdown(f"**{tr('review_kind_single_dummy').capitalize()}**")
sampled_everyone = run(sampled_accuracy, player=None).set_index("phase")
if sampled_everyone.empty or int(sampled_everyone.loc["all", "real"]) == 0:
    st.caption(tr("sampled_accuracy_none"))
else:
    st.caption(tr("sampled_accuracy_note"))
    phases = list(sampled_everyone.index)
    sampled_mine = run(sampled_accuracy, player=player).set_index("phase").reindex(phases)
    sampled = pd.DataFrame(
        {
            "phase": [tr(f"phase_{p}") for p in phases],
            "player_value": sampled_mine["accuracy"].to_numpy(),
            "player_interval": [interval(r) for _, r in sampled_mine.iterrows()],
            "player_n": sampled_mine["real"].fillna(0).astype(int).to_numpy(),
            "player_figure": sampled_mine["levels_lost"].to_numpy(),
            "population_value": sampled_everyone["accuracy"].to_numpy(),
            "population_interval": [interval(r) for _, r in sampled_everyone.iterrows()],
            "population_n": sampled_everyone["real"].astype(int).to_numpy(),
            "population_figure": sampled_everyone["levels_lost"].to_numpy(),
        }
    )
    show_table(sampled, "sampled_accuracy", column_config=accuracy_columns("levels_lost_per_100", "%.1f"))

returns = run(return_ranks, player=player)
if not returns.empty:
    show_chart(
        charts.compare_shares(
            returns,
            lang(),
            category="rank",
            title_key="returns_by_rank",
            x_key="rank",
            order=list(DISPLAY_RANKS),
            labels={r: charts.rank_label(r, lang()) for r in "BR"},
        ),
        "return_ranks",
    )
