# ---
# jupyter:
#   jupytext:
#     formats: ipynb,py:percent
#     text_representation:
#       extension: .py
#       format_name: percent
#       format_version: '1.3'
#       jupytext_version: 1.19.6
#   kernelspec:
#     display_name: Python 3 (ipykernel)
#     language: python
#     name: python3
# ---

# %% [markdown]
# # A coach's review of one player
#
# One player's habits against everyone else in the store, each with its sample size and a
# 95 % interval, and the deals where the player most often lost control.
#
# **Lost control** (失去牌權): the player *led* a trick and an opponent won it (made the
# last play of that trick, rules.md §5.4), so the initiative passed to the other team. A
# lost lead is "to a bomb" when that winning play was a bomb (§4). Per deal we count the
# player's led tricks and lost leads, and flag two aggravating outcomes: the lead was lost
# to a bomb, and the player's team were the declarers (the deal was played at their level,
# §2) yet the player finished last: 4th (下游), or one of the two unranked losers of a
# double win (雙下, §5.7).
#
# Set `PLAYER` in the cell tagged `parameters` below the imports (papermill can set it);
# `None` reviews the player with the most deals in the store. `TOP_DEALS` is how many deals
# the last section lists.

# %%
import plotly.express as px
import polars as pl
from lens import newcombe_diff, no_data_figure, open_store, player_name, query, rate_bar, with_wilson

from schemas.scoring import PLAYER_RESULTS
from schemas.times import sql_time_label
from schemas.vocabulary import sql_partner

# %% tags=["parameters"]
PLAYER = None
TOP_DEALS = 10

# %%
con, STORE = open_store()
print(f"store: {STORE.resolve()}")
deal_counts = query(con, """
    SELECT player_id, count(*) AS deals FROM deal_hands
    WHERE player_id IS NOT NULL GROUP BY ALL ORDER BY deals DESC, player_id
""")
if PLAYER is None:
    player = deal_counts["player_id"][0] if deal_counts.height else None
elif PLAYER in deal_counts["player_id"].to_list():
    player = PLAYER
else:
    known = ", ".join(deal_counts["player_id"].head(10).to_list()) or "none"
    raise ValueError(f"PLAYER {PLAYER!r} has no deals in {STORE}; players with most deals: {known}")
player_deals = int(deal_counts.filter(pl.col("player_id") == player)["deals"].sum()) if player else 0
name = player_name(con, player)
label = f"{player} · {name}" if name else player
print(f"player: {label} ({player_deals} deals)" if player else "no players in this store")

# %% [markdown]
# ## Matches
#
# Results from `player_matches` (one row per player per valid or partial match), each with its
# scored result (`schemas.scoring.PLAYER_RESULTS`: a round ended level is a draw, as in the
# standings); `started` is the match's local time with its UTC offset, as the dashboards show it
# (`schemas/times.py`).

# %%
matches = query(con, f"""
    SELECT pm.match_id, pm.rules, pm.seat, pm.partner_id, pm.result, pm.final_level, pm.opp_final_level,
           pm.levels_gained, pm.deals_played, pm.deals_won, pm.first_places, pm.fourth_places,
           {sql_time_label("pm.started_at", "m.utc_offset_min")} AS started
    FROM {PLAYER_RESULTS} pm LEFT JOIN matches m USING (match_id)
    WHERE pm.player_id = ? ORDER BY pm.started_at, pm.match_id
""", [player])
matches

# %%
query(con, f"""
    SELECT player_id = ? AS is_player, count(*) AS matches,
           avg((result = 'win')::INT) AS win_share, avg((result = 'draw')::INT) AS draw_share,
           avg(levels_gained) AS mean_levels_gained,
           sum(deals_won) / nullif(sum(deals_played), 0) AS deal_win_share
    FROM {PLAYER_RESULTS} GROUP BY ALL ORDER BY is_player DESC
""", [player])

# %% [markdown]
# ## Patterns against the population
#
# Each metric is a proportion over its own unit (deals, passes, turns, led tricks), so the
# sample sizes differ. `everyone else` pools every other player's units. `difference` is the
# player minus everyone else, with Newcombe's 95 % interval: an interval spanning 0 is no
# evidence of a difference.
#
# - *passed when able to beat*: passes where the player held a combination that beat the table
#   (`could_beat`, known only when the hand is known);
# - *overtook partner*: turns with the partner's combination on the table where the player
#   beat it anyway;
# - *led trick lost to an opponent* / *… to an opponent bomb*: the lost-control measure above.

# %%
units = query(con, f"""
    WITH hands AS (
        SELECT h.player_id, h.team, h.finish_position, h.bombs_played, d.winning_team,
               coalesce(h.finish_position = 4 OR (h.finish_position IS NULL AND d.double_win
                                                  AND d.winning_team <> h.team), FALSE) AS last
        FROM deal_hands h JOIN deals d USING (match_id, deal_no)
        WHERE h.player_id IS NOT NULL AND d.winning_team IS NOT NULL
    ), trick_win AS (
        SELECT match_id, deal_no, trick_no, team AS winner_team, bomb_class AS winning_bomb
        FROM plays WHERE action = 'play'
        QUALIFY row_number() OVER (PARTITION BY match_id, deal_no, trick_no ORDER BY seq DESC) = 1
    ), leads AS (
        SELECT p.player_id, p.team, w.winner_team, w.winning_bomb
        FROM plays p JOIN trick_win w USING (match_id, deal_no, trick_no)
        WHERE p.is_lead AND p.action = 'play' AND p.player_id IS NOT NULL
    )
    SELECT 'deal won by the team' AS metric, player_id, (winning_team = team)::INT AS success FROM hands
    UNION ALL
    SELECT 'finished 1st (上游)', player_id, coalesce(finish_position = 1, FALSE)::INT FROM hands
    UNION ALL
    SELECT 'finished last (4th or 雙下)', player_id, last::INT FROM hands
    UNION ALL
    SELECT 'bombed at least once', player_id, (bombs_played > 0)::INT FROM hands
    WHERE bombs_played IS NOT NULL
    UNION ALL
    SELECT 'passed when able to beat', player_id, could_beat::INT FROM plays
    WHERE action = 'pass' AND could_beat IS NOT NULL AND player_id IS NOT NULL
    UNION ALL
    SELECT 'overtook partner', player_id, coalesce(overtook_partner, FALSE)::INT FROM plays
    WHERE player_id IS NOT NULL AND NOT is_lead
      AND table_seat = {sql_partner("seat")}
    UNION ALL
    SELECT 'led trick lost to an opponent', player_id, (winner_team <> team)::INT FROM leads
    UNION ALL
    SELECT 'led trick lost to an opponent bomb', player_id,
           (winner_team <> team AND winning_bomb IS NOT NULL)::INT FROM leads
""").with_columns(who=pl.when(pl.col("player_id") == pl.lit(player, dtype=pl.Utf8)).then(pl.lit("player"))
                  .otherwise(pl.lit("everyone else")))
METRICS = units["metric"].unique(maintain_order=True).to_list()
rates = with_wilson(
    units.group_by("metric", "who").agg(k=pl.col("success").sum(), n=pl.len()).sort("metric", "who"),
    "k", "n", "rate",
)


def compare(metric: str) -> dict[str, object]:
    """One row of the comparison table: both rates, their sizes and the difference's interval."""
    def counts(who: str) -> tuple[int, int]:
        row = rates.filter((pl.col("metric") == metric) & (pl.col("who") == who))
        return (int(row["k"].sum()), int(row["n"].sum()))

    (k1, n1), (k2, n2) = counts("player"), counts("everyone else")
    diff, low, high = newcombe_diff(k1, n1, k2, n2)
    return {"metric": metric, "player_n": n1, "player_rate": k1 / n1 if n1 else None,
            "others_n": n2, "others_rate": k2 / n2 if n2 else None,
            "difference": diff, "diff_low": low, "diff_high": high}


comparison = pl.DataFrame([compare(m) for m in METRICS],
                          schema={"metric": pl.Utf8, "player_n": pl.Int64, "player_rate": pl.Float64,
                                  "others_n": pl.Int64, "others_rate": pl.Float64, "difference": pl.Float64,
                                  "diff_low": pl.Float64, "diff_high": pl.Float64})
comparison

# %%
rate_bar(rates, x="metric", color="who", title=f"{player}: patterns against everyone else (95 % Wilson)",
         x_title="metric (each over its own unit; see the table for sample sizes)", y_title="rate (%)").show()

# %% [markdown]
# ## What the player leads
#
# Share of the player's leads by combination type, against everyone else's leads.

# %%
lead_mix = query(con, """
    SELECT CASE WHEN player_id = ? THEN 'player' ELSE 'everyone else' END AS who, combo_type,
           count(*) AS leads
    FROM plays WHERE is_lead AND action = 'play' AND player_id IS NOT NULL AND combo_type IS NOT NULL
    GROUP BY ALL
""", [player])
lead_mix = lead_mix.with_columns(share=pl.col("leads") / pl.col("leads").sum().over("who") * 100)
lead_mix = lead_mix.sort("who", "combo_type")
if lead_mix.is_empty():
    fig = no_data_figure("Lead types")
else:
    fig = px.bar(lead_mix, x="combo_type", y="share", color="who", barmode="group", hover_data=["leads"],
                 labels={"combo_type": "combination led", "share": "share of leads (%)", "who": ""},
                 title=f"{player}: combinations led")
fig.show()

# %% [markdown]
# ## Deals where the player lost control most often
#
# Ranked by lost leads, then leads lost to a bomb, then "declarers but last". `lost_share` is
# lost leads over led tricks in that deal.

# %%
control = query(con, """
    WITH trick_win AS (
        SELECT match_id, deal_no, trick_no, team AS winner_team, bomb_class AS winning_bomb
        FROM plays WHERE action = 'play'
        QUALIFY row_number() OVER (PARTITION BY match_id, deal_no, trick_no ORDER BY seq DESC) = 1
    ), led AS (
        SELECT p.match_id, p.deal_no, count(*) AS led_tricks,
               count(*) FILTER (WHERE w.winner_team <> p.team) AS lost_leads,
               count(*) FILTER (WHERE w.winner_team <> p.team AND w.winning_bomb IS NOT NULL) AS lost_to_bomb
        FROM plays p JOIN trick_win w USING (match_id, deal_no, trick_no)
        WHERE p.is_lead AND p.action = 'play' AND p.player_id = ?
        GROUP BY ALL
    )
    SELECT h.match_id, h.deal_no, d.rules, d.level, d.declarers, h.team, h.finish_position,
           d.winning_team = h.team AS team_won, coalesce(l.led_tricks, 0) AS led_tricks,
           coalesce(l.lost_leads, 0) AS lost_leads, coalesce(l.lost_to_bomb, 0) AS lost_to_bomb,
           coalesce(d.declarers = h.team AND (h.finish_position = 4 OR (h.finish_position IS NULL
                    AND d.double_win AND d.winning_team <> h.team)), FALSE) AS declarers_but_last
    FROM deal_hands h
    JOIN deals d USING (match_id, deal_no)
    LEFT JOIN led l USING (match_id, deal_no)
    WHERE h.player_id = ?
""", [player, player]).with_columns(
    lost_share=pl.when(pl.col("led_tricks") > 0).then(pl.col("lost_leads") / pl.col("led_tricks"))
)
worst = control.sort(["lost_leads", "lost_to_bomb", "declarers_but_last", "match_id", "deal_no"],
                     descending=[True, True, True, False, False]).head(TOP_DEALS)
print(f"{control.height} deals reviewed; {int(control['lost_leads'].sum() or 0)} lost leads; "
      f"{int(control['declarers_but_last'].sum() or 0)} deals as declarers finishing last")
worst

# %%
if worst.is_empty():
    fig = no_data_figure("Deals with the most lost leads")
else:
    labelled = worst.with_columns(deal=pl.format("{} #{}", "match_id", "deal_no"))
    fig = px.bar(labelled, x="deal", y=["lost_leads", "lost_to_bomb"], barmode="group",
                 labels={"deal": "match and deal", "value": "led tricks lost (count)", "variable": ""},
                 title=f"{player}: deals with the most lost leads")
fig.show()

# %% [markdown]
# ## Cards or play: results against what the cards led one to expect
#
# Part of every result is the cards. `luck_model` (`scoring/luck.py`) is a ridge regression of a
# deal's signed level result on the team-minus-opponents difference of the dealt hands' features
# (jokers, wild cards, level cards, natural bombs, straight-flush chances), tributes paid and the
# declaring side, validated on held-out matches (`r2_holdout`). `player_luck` gives each player
# the mean result per deal, the mean the cards led one to expect, and the difference — *levels
# above expectation* — with a 95 % interval. Players with fewer than 30 deals are marked
# `low_data`.

# %%
luck_model = query(con, "SELECT feature, coefficient, r2_holdout, test_rows FROM luck_model ORDER BY feature")
luck = query(con, """
    SELECT player_id, deals, actual_mean, expected_mean, above_expectation, ci_low, ci_high, low_data
    FROM player_luck ORDER BY above_expectation DESC, player_id
""").with_columns(rank=pl.int_range(1, pl.len() + 1))
player_luck = luck.filter(pl.col("player_id") == player)
luck_model

# %%
player_luck

# %%
if luck.is_empty():
    fig = no_data_figure("Levels above expectation")
else:
    shown = luck.with_columns(who=pl.when(pl.col("player_id") == player).then(pl.lit(player))
                              .otherwise(pl.lit("everyone else")))
    fig = px.scatter(shown, x="rank", y="above_expectation", color="who", hover_data=["player_id", "deals"],
                     error_y=shown["ci_high"] - shown["above_expectation"],
                     error_y_minus=shown["above_expectation"] - shown["ci_low"],
                     labels={"rank": "rank (most above expectation first)",
                             "above_expectation": "levels per deal above expectation (95 % interval)", "who": ""},
                     title=f"{player}: results against what the cards led one to expect")
fig.show()

# %% [markdown]
# ## Critical moments: the largest losses found by the exact endgame solver
#
# `play_reviews` scores the player's decisions near the end of each fully known deal with the
# exact endgame solver. Every verdict there is **exact, all hands visible (double-dummy)**: the
# solver sees the four hands, which the player did not. For each decision: the position's value
# before it, the value after the action taken (levels for the player's team, rules.md §5.8), the
# *loss* between them (0 for a best move), and the same in match terms: the team's chance to win
# the match after the deal with best play and with the action taken (`win_best`, `win_after`,
# `match_loss`; a simple model, `replay/match_value.py`: the cap at A, passing and failing A and
# the format's end, rules.md §7). Only **real choices** are scored: a pass with no legal play
# (`forced`) and a position where every action is equal (`all_equal`) are counted apart. Below
# are the player's `TOP_DEALS` costliest real choices (match chance first, then levels), each
# with the player's hand, the best move(s) and a link that opens the hand replayer on that
# decision (`DASHBOARD_URL`, the `gdan dashboard` address).

# %%
DASHBOARD_URL = "http://localhost:8501"
critical = query(con, """
    SELECT match_id, deal_no, seq, seat, phase, hand, action, cards, loss, match_loss, severity, best_moves
    FROM play_reviews WHERE player_id = ? AND choice = 'real' AND loss > 0
    ORDER BY match_loss DESC NULLS LAST, loss DESC, match_id, deal_no, seq LIMIT ?
""", [player, TOP_DEALS]).with_columns(
    replayer=pl.format(DASHBOARD_URL + "/replayer?match={}&deal={}&seq={}", "match_id", "deal_no", "seq")
)
reviewed = query(con, """
    SELECT count(*) AS decisions, count(*) FILTER (WHERE choice = 'real') AS real,
           count(*) FILTER (WHERE choice = 'forced') AS forced,
           count(*) FILTER (WHERE choice = 'all_equal') AS all_equal,
           count(*) FILTER (WHERE choice = 'real' AND loss > 0) AS mistakes
    FROM play_reviews WHERE player_id = ?""", [player])
r = reviewed.row(0, named=True)
print(f"exact, all hands visible (double-dummy): {r['decisions']} decisions reviewed: {r['real']} real "
      f"choices scored ({r['mistakes']} lost levels); {r['forced']} forced passes and {r['all_equal']} "
      "positions with every action equal counted, not scored")
critical

# %% [markdown]
# ## Going further
#
# - Replay a listed deal move by move: `query(con, "SELECT * FROM plays WHERE match_id = ? AND
#   deal_no = ? ORDER BY seq", [match_id, deal_no])`.
# - Restrict the population to the player's opponents (`player_matches.opponent_ids`) or to one
#   ruleset to make the comparison sharper.
