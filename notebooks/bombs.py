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
# # Bombs (炸彈), straight flushes (同花順) and the joker bomb (天王炸)
#
# Questions:
# 1. How often is each kind and size of bomb played?
# 2. When in a deal are bombs played, and against what?
# 3. How many bombs are dealt but never played?
# 4. How do bombs relate to winning the deal?
# 5. Straight flushes and joker bombs: how often held, how often used, what they beat.
#
# Rules (spec `rules.md` §3, §4): strength classes, high to low — joker bomb, bombs of 6+
# cards, straight flushes, 5-card bombs, 4-card bombs, then every other combination.
# `plays.bomb_class` is one of `bomb4`, `bomb5`, `straight_flush`, `bomb6plus`, `joker_bomb`.
#
# Data: `plays`, `deals` and `deal_hands` (see `schemas/tables.py`) from `$GDAN_STORE`
# (default `./data`). Intervals are 95 % Wilson intervals; every rate shows its sample size.

# %%
import plotly.express as px
import polars as pl
from lens import no_data_figure, open_store, query, rate_bar, with_wilson

BOMB_CLASSES = ["bomb4", "bomb5", "straight_flush", "bomb6plus", "joker_bomb"]
"""Weakest to strongest (rules.md §4)."""
POSITIONS = ["1", "2", "3", "4", "3/4 (雙下)"]
"""Finishing positions; the two losers of a double win are not ranked (rules.md §5.7)."""

con, STORE = open_store()
print(f"store: {STORE.resolve()}")
n_deals = query(con, "SELECT count(*) AS n FROM deals")["n"][0]
bombs = query(con, """
    SELECT p.match_id, p.deal_no, p.trick_no, p.seat, p.player_id, p.team, p.is_lead, p.bomb_class,
           p.combo_size, p.wilds_used, p.table_combo_type, p.opp_min_left,
           CASE p.seat WHEN 'E' THEN p.left_E WHEN 'N' THEN p.left_N WHEN 'W' THEN p.left_W
                       ELSE p.left_S END AS cards_held,
           d.rules, d.tricks, (p.trick_no - 1) / nullif(d.tricks, 0) AS deal_progress,
           (d.winning_team = p.team)::INT AS team_won, h.finish_position
    FROM plays p
    JOIN deals d USING (match_id, deal_no)
    LEFT JOIN deal_hands h USING (match_id, deal_no, seat)
    WHERE p.action = 'play' AND p.bomb_class IS NOT NULL
""")
print(f"{n_deals} deals, {bombs.height} bombs played")

# %% [markdown]
# ## 1. Frequency by kind and size
#
# `per_deal` is bombs of that kind per deal; `deal_share` is the share of deals with at least
# one, with its Wilson interval.

# %%
frequency = with_wilson(
    bombs.group_by("bomb_class").agg(bombs=pl.len(), deals_with=pl.struct("match_id", "deal_no").n_unique())
    .with_columns(per_deal=pl.col("bombs") / max(n_deals, 1), deals=pl.lit(n_deals))
    .sort(pl.col("bomb_class").replace_strict(BOMB_CLASSES, list(range(5)), default=5)),
    "deals_with", "deals", "deal_share",
)
frequency

# %%
rate_bar(frequency, x="bomb_class", title="Deals with at least one bomb of each kind (95 % Wilson)",
         x_title="bomb kind", y_title="share of deals (%)", prefix="deal_share").show()

# %%
sizes = bombs.group_by("bomb_class", "combo_size").agg(bombs=pl.len()).sort("combo_size")
if sizes.is_empty():
    fig = no_data_figure("Bombs by number of cards")
else:
    fig = px.bar(sizes, x="combo_size", y="bombs", color="bomb_class",
                 category_orders={"bomb_class": BOMB_CLASSES},
                 labels={"combo_size": "cards in the bomb", "bombs": "bombs played (count)",
                         "bomb_class": "bomb kind"},
                 title="Bombs by number of cards")
fig.show()

# %% [markdown]
# ## 2. Timing
#
# `deal_progress` is (trick number − 1) / tricks in the deal: 0 = the first trick, near 1 = the
# last. `cards_held` is how many cards the bomber held just before bombing. A bomb "against a
# near-out opponent" is one played while some opponent held 5 cards or fewer.

# %%
timed = bombs.filter(pl.col("deal_progress").is_not_null())
if timed.is_empty():
    fig = no_data_figure("When bombs are played")
else:
    fig = px.histogram(timed, x="deal_progress", color="bomb_class", nbins=10, barmode="stack",
                       category_orders={"bomb_class": BOMB_CLASSES},
                       labels={"deal_progress": "point in the deal (0 = first trick, 1 = last)",
                               "bomb_class": "bomb kind"},
                       title="When bombs are played")
    fig.update_layout(yaxis_title="bombs played (count)")
fig.show()

# %%
if bombs.is_empty():
    fig = no_data_figure("Cards held by the bomber")
else:
    fig = px.box(bombs, x="bomb_class", y="cards_held", category_orders={"bomb_class": BOMB_CLASSES},
                 labels={"bomb_class": "bomb kind", "cards_held": "cards held before the bomb"},
                 title="Cards held by the bomber just before bombing")
fig.show()

# %%
timing = bombs.group_by("bomb_class").agg(
    bombs=pl.len(),
    led=pl.col("is_lead").sum(),
    median_progress=pl.col("deal_progress").median(),
    median_cards_held=pl.col("cards_held").median(),
    vs_near_out_opponent=(pl.col("opp_min_left") <= 5).sum(),
).sort(pl.col("bomb_class").replace_strict(BOMB_CLASSES, list(range(5)), default=5))
with_wilson(timing, "vs_near_out_opponent", "bombs", "near_out_share")

# %% [markdown]
# What each bomb was played on (`table_combo_type`; empty when the bomb was led):

# %%
played_on = (
    bombs.with_columns(played_on=pl.col("table_combo_type").fill_null("(led)"))
    .pivot(on="bomb_class", index="played_on", values="trick_no", aggregate_function="len")
    .fill_null(0).sort("played_on")
)
played_on.select("played_on", *(c for c in BOMB_CLASSES if c in played_on.columns))

# %% [markdown]
# ## 3. Bombs held but never used
#
# `deal_hands.natural_bombs` counts the bombs in the **dealt** hand (before tribute; natural
# cards only, wilds not counted) and `bombs_played` the bombs that seat played. "Unused" is
# max(natural_bombs − bombs_played, 0) — an estimate: a player may split a bomb into other
# plays, or build extra bombs with wilds. A hand's bombs stay unused when the player goes out
# without needing them (1st) or is stuck with them (4th). After a double win the two losers
# are not ranked (the deal ends, rules.md §5.7): they show as `3/4 (雙下)`.

# %%
hands = query(con, """
    SELECT match_id, deal_no, seat, player_id, finish_position,
           coalesce(finish_position::VARCHAR, '3/4 (雙下)') AS position, natural_bombs, bombs_played,
           greatest(natural_bombs - bombs_played, 0) AS unused_bombs
    FROM deal_hands WHERE natural_bombs IS NOT NULL AND bombs_played IS NOT NULL
""")
unused = with_wilson(
    hands.group_by("position").agg(
        hands=pl.len(), with_unused=(pl.col("unused_bombs") > 0).sum(),
        mean_dealt=pl.col("natural_bombs").mean(), mean_played=pl.col("bombs_played").mean(),
        mean_unused=pl.col("unused_bombs").mean(),
    ).sort("position"),
    "with_unused", "hands", "unused_share",
)
unused

# %%
rate_bar(unused, x="position", title="Hands finishing with a dealt bomb unplayed (95 % Wilson)",
         x_title="finishing position (1 = 上游; 3/4 = the losers of a double win)",
         y_title="hands with an unplayed bomb (%)", prefix="unused_share").show()

# %% [markdown]
# ## 4. Bombs and winning the deal
#
# One row per team per deal: the team's bombs, the opponents' bombs, and whether the team won
# the deal (its player was 1st). This is association, not cause: strong hands both hold bombs
# and win.

# %%
teams = query(con, """
    SELECT match_id, deal_no, team, team_bombs, opp_bombs, (winning_team = team)::INT AS won
    FROM (SELECT match_id, deal_no, winning_team, 'EW' AS team, bombs_EW AS team_bombs, bombs_NS AS opp_bombs
          FROM deals
          UNION ALL
          SELECT match_id, deal_no, winning_team, 'NS', bombs_NS, bombs_EW FROM deals)
    WHERE winning_team IS NOT NULL AND team_bombs IS NOT NULL AND opp_bombs IS NOT NULL
""").with_columns(bomb_lead=(pl.col("team_bombs") - pl.col("opp_bombs")).clip(-3, 3))
by_lead = with_wilson(
    teams.group_by("bomb_lead").agg(won=pl.col("won").sum(), team_deals=pl.len()).sort("bomb_lead"),
    "won", "team_deals", "win_rate",
)
by_lead

# %%
rate_bar(by_lead.with_columns(pl.col("bomb_lead").cast(pl.Utf8)), x="bomb_lead",
         title="Deal win rate by bombs played minus opponents' bombs (clipped to ±3; 95 % Wilson)",
         x_title="team bombs − opponent bombs", y_title="deals won (%)", prefix="win_rate").show()

# %% [markdown]
# Per player: finishing positions by how many bombs the player played in the deal.

# %%
positions = (
    hands.with_columns(bombs=pl.col("bombs_played").clip(0, 3).cast(pl.Utf8).replace("3", "3+"))
    .group_by("bombs", "position").agg(hands=pl.len())
    .with_columns(share=pl.col("hands") / pl.col("hands").sum().over("bombs") * 100)
    .sort("bombs", "position")
)
if positions.is_empty():
    fig = no_data_figure("Finishing position by bombs played")
else:
    fig = px.bar(positions, x="bombs", y="share", color="position", category_orders={"position": POSITIONS},
                 labels={"bombs": "bombs the player played in the deal", "share": "share of hands (%)",
                         "position": "finishing position"},
                 title="Finishing position by bombs played", hover_data=["hands"])
fig.show()

# %% [markdown]
# ## 5. Straight flushes and joker bombs
#
# Holding: a dealt hand with all four jokers holds the joker bomb; `straight_flush_chances > 0`
# means the dealt hand contains at least one straight flush. Used: the seat played one in that
# deal. Rates are over holding hands. Holding is read from the *dealt* hand, so "played" can
# exceed "held": a straight flush may be completed with a wild, and a tribute can hand a
# player the jokers it lacked (rules.md §6).

# %%
special = query(con, """
    WITH played AS (
        SELECT match_id, deal_no, seat,
               count(*) FILTER (WHERE bomb_class = 'joker_bomb') AS joker_bombs,
               count(*) FILTER (WHERE bomb_class = 'straight_flush') AS straight_flushes
        FROM plays WHERE action = 'play' AND bomb_class IN ('joker_bomb', 'straight_flush')
        GROUP BY ALL
    )
    SELECT h.match_id, h.deal_no, h.seat, h.finish_position,
           h.jokers = 4 AS holds_joker_bomb, h.straight_flush_chances > 0 AS holds_straight_flush,
           coalesce(p.joker_bombs, 0) AS joker_bombs, coalesce(p.straight_flushes, 0) AS straight_flushes
    FROM deal_hands h LEFT JOIN played p USING (match_id, deal_no, seat)
""")
usage = pl.DataFrame([
    {"kind": "joker_bomb", "held": int(special["holds_joker_bomb"].sum() or 0),
     "held_and_played": int(special.filter(pl.col("holds_joker_bomb") & (pl.col("joker_bombs") > 0)).height),
     "played_total": int(special["joker_bombs"].sum() or 0)},
    {"kind": "straight_flush", "held": int(special["holds_straight_flush"].sum() or 0),
     "held_and_played": int(special.filter(pl.col("holds_straight_flush")
                                           & (pl.col("straight_flushes") > 0)).height),
     "played_total": int(special["straight_flushes"].sum() or 0)},
])
with_wilson(usage, "held_and_played", "held", "use_rate")

# %%
special_finish = with_wilson(
    pl.concat([
        special.filter(pl.col("joker_bombs") > 0).select(group=pl.lit("played a joker bomb"),
                                                         finish_position="finish_position"),
        special.filter(pl.col("straight_flushes") > 0).select(group=pl.lit("played a straight flush"),
                                                              finish_position="finish_position"),
        special.select(group=pl.lit("all hands"), finish_position="finish_position"),
    ])
    .group_by("group").agg(first=(pl.col("finish_position") == 1).fill_null(False).sum(), hands=pl.len())
    .sort("group"),
    "first", "hands", "first_rate",
)
special_finish

# %%
rate_bar(special_finish, x="group", title="Player finishes 1st (上游) (95 % Wilson)", x_title="hands",
         y_title="hands finishing 1st (%)", prefix="first_rate").show()

# %% [markdown]
# ## Going further
#
# - Split section 2 by `wilds_used` to see how often wilds complete a bomb or straight flush.
# - `plays.could_beat` marks passes by a player who could have beaten the table: join it with
#   `deal_hands.natural_bombs` to study bombs kept back on purpose.
