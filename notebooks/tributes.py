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
# # Tributes (進貢), double tributes and resistance (抗貢)
#
# Questions:
# 1. How often is a tribute paid, a double tribute paid, or the tribute resisted?
# 2. Which cards are paid, and which are returned (還貢)?
# 3. Does paying tribute change the outcome of the deal it is paid into?
# 4. How do the rulesets differ?
#
# Rules (spec `rules.md` §6): from the second deal on, the previous 4th pays the previous 1st
# their highest card (a heart level card excepted); after a double win both losers pay
# (double tribute); a tributer holding both big jokers (or two double-tribute givers holding
# them between them) resists and nothing is paid. The receiver returns a card whose allowed
# ranks depend on the ruleset.
#
# Data: the `deals` and `tributes` tables (see `schemas/tables.py`); the store comes from
# `$GDAN_STORE` (default `./data`). Intervals are 95 %: Wilson for proportions, Newcombe for
# differences of proportions, and a bootstrap that resamples whole matches (fixed seed).

# %%
import plotly.express as px
import polars as pl
from lens import (
    CARD_CLASS_ORDER,
    card_class,
    card_rank,
    cluster_bootstrap_diff,
    newcombe_diff,
    no_data_figure,
    open_store,
    query,
    rate_bar,
    with_wilson,
    within_ten,
)

from replay.rulesets import BUILTIN
from schemas.vocabulary import DISPLAY_RANKS, sql_team

con, STORE = open_store()
print(f"store: {STORE.resolve()}")
query(con, "SELECT count(*) AS matches, (SELECT count(*) FROM deals) AS deals, "
           "(SELECT count(*) FROM tributes) AS tribute_rows FROM matches")

# %% [markdown]
# ## 1. How often
#
# Every deal after the first is eligible. `tribute_kind` is `single`, `double`, `anti`
# (resisted) or `none` (e.g. after a foul, §8: the next deal has no tribute). The share is of
# eligible deals per ruleset, with its Wilson interval and the sample size `eligible`.

# %%
kinds = query(con, """
    SELECT rules, coalesce(tribute_kind, 'none') AS kind, count(*) AS deals
    FROM deals WHERE deal_no > 1 GROUP BY ALL ORDER BY rules, kind
""")
kinds_all = kinds.group_by("kind").agg(pl.col("deals").sum()).with_columns(rules=pl.lit("all rulesets"))
frequency = with_wilson(
    pl.concat([kinds, kinds_all.select(kinds.columns)])
    .with_columns(eligible=pl.col("deals").sum().over("rules"))
    .sort("rules", "kind"),
    "deals", "eligible", "share",
)
frequency

# %%
rate_bar(frequency, x="kind", color="rules", title="Tribute outcome per eligible deal (95 % Wilson)",
         x_title="tribute kind", y_title="share of eligible deals (%)", prefix="share").show()

# %% [markdown]
# Double tributes follow a double win, so their share mirrors how often deals end 1-2. Among
# double tributes, `equal_double` marks the case where both cards were of equal rank (each giver
# pays the winner on their left, 貢左還右).

# %%
query(con, """
    SELECT d.rules, count(*) AS double_tributes, count(*) FILTER (WHERE t.equal_double) AS equal_rank
    FROM (SELECT match_id, deal_no, bool_or(equal_double) AS equal_double
          FROM tributes WHERE kind = 'double' GROUP BY ALL) t
    JOIN deals d USING (match_id, deal_no)
    GROUP BY ALL ORDER BY d.rules
""")

# %% [markdown]
# ## 2. Which cards are paid and returned
#
# A paid card is classed by its strength in that deal: big joker, small joker, level card
# (rank = the deal's level, §2) or its natural rank. Returns are shown by natural rank; the
# constraint "rank ≤ 10" is what most rule books ask of a return (§6 table).

# %%
paid = query(con, """
    SELECT t.match_id, t.deal_no, t.kind, t.card, t.return_card, coalesce(t.level, d.level) AS level,
           d.rules
    FROM tributes t JOIN deals d USING (match_id, deal_no)
    WHERE t.kind IN ('single', 'double')
""").with_columns(
    paid_class=card_class(pl.col("card"), pl.col("level")),
    returned_rank=card_rank(pl.col("return_card")),
    return_le_ten=within_ten(pl.col("return_card")),
    return_is_level=card_rank(pl.col("return_card")) == pl.col("level"),
)
paid_counts = (
    paid.group_by("paid_class", "kind").agg(pl.len().alias("cards"))
    .with_columns(share=pl.col("cards") / pl.col("cards").sum().over("kind"))
    .sort(pl.col("paid_class").replace_strict(CARD_CLASS_ORDER, list(range(len(CARD_CLASS_ORDER))),
                                              default=len(CARD_CLASS_ORDER)), "kind")
)
paid_counts

# %%
if paid_counts.is_empty():
    fig = no_data_figure("Cards paid as tribute")
else:
    fig = px.bar(paid_counts, x="paid_class", y="cards", color="kind", barmode="group",
                 category_orders={"paid_class": CARD_CLASS_ORDER},
                 labels={"paid_class": "card paid (strength in that deal)", "cards": "cards paid (count)",
                         "kind": "tribute"},
                 title="Cards paid as tribute")
fig.show()

# %%
returns = paid.filter(pl.col("returned_rank").is_not_null())
if returns.is_empty():
    fig = no_data_figure("Card returned for each card paid")
else:
    fig = px.density_heatmap(
        returns, x="paid_class", y="returned_rank",
        category_orders={"paid_class": CARD_CLASS_ORDER, "returned_rank": list(DISPLAY_RANKS)},
        labels={"paid_class": "card paid", "returned_rank": "card returned (natural rank)"},
        title="Card returned for each card paid (count of tributes)",
    )
    fig.update_layout(coloraxis_colorbar_title="tributes")
fig.show()

# %% [markdown]
# ## 3. Does paying tribute change the deal it is paid into?
#
# Outcome: does the **paying team** (the previous losers) win the deal that follows the
# tribute? Paid tributes are compared with resisted ones. Caveat: resistance is not random —
# it needs both big jokers — so the raw difference mixes the effect of paying with the effect
# of holding the jokers. The second table compares like with like: deals where the paying team
# held both big jokers in its dealt hands (from `deal_hands`, before the tribute).

# %%
outcomes = query(con, f"""
    WITH t AS (
        SELECT match_id, deal_no, any_value(kind) AS kind,
               any_value({sql_team("giver")}) AS payer_team
        FROM tributes GROUP BY match_id, deal_no
    ), jokers AS (
        SELECT match_id, deal_no, team, sum(big_jokers) AS team_big_jokers
        FROM deal_hands GROUP BY ALL
    )
    SELECT d.match_id, d.deal_no, d.rules, t.kind,
           CASE WHEN t.kind = 'anti' THEN 'resisted' ELSE 'paid' END AS tribute,
           t.payer_team, j.team_big_jokers,
           (d.winning_team = t.payer_team)::INT AS payer_won,
           CASE WHEN d.winning_team = t.payer_team THEN d.level_gain ELSE 0 END AS payer_levels
    FROM deals d
    JOIN t USING (match_id, deal_no)
    LEFT JOIN jokers j ON j.match_id = d.match_id AND j.deal_no = d.deal_no AND j.team = t.payer_team
    WHERE d.winning_team IS NOT NULL
""")
by_kind = with_wilson(
    outcomes.group_by("kind").agg(won=pl.col("payer_won").sum(), deals=pl.len(),
                                  mean_levels=pl.col("payer_levels").mean()).sort("kind"),
    "won", "deals", "win_rate",
)
by_kind

# %%
rate_bar(by_kind, x="kind", title="Paying team wins the next deal (95 % Wilson)", x_title="tribute kind",
         y_title="deals won by the paying team (%)", prefix="win_rate").show()


# %%
def paid_vs_resisted(frame: pl.DataFrame) -> dict[str, float | int]:
    """Win rate of the paying team, paid minus resisted: Newcombe and match-bootstrap intervals."""
    per_match = frame.group_by("match_id").agg(
        k_a=(pl.col("payer_won") * (pl.col("tribute") == "paid")).sum(),
        n_a=(pl.col("tribute") == "paid").sum(),
        k_b=(pl.col("payer_won") * (pl.col("tribute") == "resisted")).sum(),
        n_b=(pl.col("tribute") == "resisted").sum(),
    )
    k_a, n_a, k_b, n_b = (int(per_match[c].sum()) for c in ("k_a", "n_a", "k_b", "n_b"))
    diff, low, high = newcombe_diff(k_a, n_a, k_b, n_b)
    _, boot_low, boot_high = cluster_bootstrap_diff(per_match)
    return {"paid_n": n_a, "resisted_n": n_b, "difference": diff, "newcombe_low": low,
            "newcombe_high": high, "bootstrap_low": boot_low, "bootstrap_high": boot_high}


comparison = pl.DataFrame([
    {"comparison": "all deals", **paid_vs_resisted(outcomes)},
    {"comparison": "paying team held both big jokers",
     **paid_vs_resisted(outcomes.filter(pl.col("team_big_jokers") >= 2))},
])
comparison

# %% [markdown]
# Read the difference as "percentage points more often the paying team wins when it pays than
# when it resists". An interval that spans 0 means this store cannot tell the two apart; `nan`
# means one of the groups is empty here.

# %% [markdown]
# ## 4. Rulesets
#
# The rule books differ in what may be returned and who leads after a double tribute
# (`rules.md` §6, §10; parameters in `replay/rulesets.py`). Note that a return always goes to
# the tributer, an opponent, so `huaian`'s "≤ 10 to one's partner" never binds a return.

# %%
parameters = pl.DataFrame([
    {"rules": r.id, "return_max_rank": r.returns.max_rank, "fallback_lowest": r.returns.fallback_lowest,
     "no_level_card_return": r.returns.exclude_level_cards, "not_tribute_card": r.returns.not_tribute_card,
     "return_rule_applies_to": r.returns.applies_to, "double_tribute_leader": r.double_tribute_leader}
    for r in BUILTIN.values()
])
eligible = kinds.group_by("rules").agg(
    eligible=pl.col("deals").sum(),
    tributes=pl.col("deals").filter(pl.col("kind").is_in(["single", "double"])).sum(),
    doubles=pl.col("deals").filter(pl.col("kind") == "double").sum(),
    resisted=pl.col("deals").filter(pl.col("kind") == "anti").sum(),
)
return_stats = paid.group_by("rules").agg(
    returns=pl.col("return_le_ten").is_not_null().sum(),
    returns_le_ten=pl.col("return_le_ten").sum(),
    returns_level_card=pl.col("return_is_level").sum(),
)
win_stats = outcomes.filter(pl.col("tribute") == "paid").group_by("rules").agg(
    payer_won=pl.col("payer_won").sum(), paid_deals=pl.len()
)
by_rules = with_wilson(
    with_wilson(
        eligible.join(return_stats, on="rules", how="left").join(win_stats, on="rules", how="left")
        .fill_null(0).sort("rules"),
        "returns_le_ten", "returns", "le_ten",
    ),
    "payer_won", "paid_deals", "payer_win",
)
parameters.join(by_rules, on="rules", how="full", coalesce=True).sort("rules")

# %%
rate_bar(by_rules, x="rules", title="Paying team wins the deal, by ruleset (95 % Wilson)",
         x_title="ruleset", y_title="deals won by the paying team (%)", prefix="payer_win").show()
rate_bar(by_rules, x="rules", title="Returned cards of rank ≤ 10, by ruleset (95 % Wilson)",
         x_title="ruleset", y_title="returns of natural rank 2–10 (%)", prefix="le_ten").show()

# %% [markdown]
# ## Going further
#
# - Split §3 by the deal's level or by whether the payers were declarers in the previous deal.
# - `tributes.return_card` against the receiver's dealt hand (`deal_hands.hand`) shows whether
#   receivers return their lowest card or keep a low single.
# - All tables are plain DuckDB views: `query(con, "DESCRIBE tributes")` lists the columns.
