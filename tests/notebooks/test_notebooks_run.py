"""Every notebook runs top to bottom, and what it computes matches an independent count.

On the tiny store each notebook runs once, with a probe, and the run itself is checked too
(no errors, no warnings on stderr, axis titles on every chart).

The cross-checks recount, in plain Python over the tiny store's rows, the figures a notebook
derives with SQL (tribute frequencies and outcomes, bombs per kind, lost leads), so a wrong
join or filter in a notebook fails here.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from pathlib import Path
from typing import Any

import nbformat
import pytest
from nb_runner import NAMES, run_notebook
from nbclient.exceptions import CellExecutionError
from tiny_store import FOCUS_PLAYER, team_of

from pipelines.storage.store import Store
from schemas.times import local_time, time_label

PLOTLY = "application/vnd.plotly.v1+json"


def rows(store: Path, table: str) -> list[dict[str, Any]]:
    """All rows of one table of the tiny store."""
    return Store(store).read_table(table).to_pylist()


def outputs(nb: nbformat.NotebookNode) -> list[nbformat.NotebookNode]:
    return [o for cell in nb.cells if cell.cell_type == "code" for o in cell.get("outputs", [])]


def assert_clean_run(nb: nbformat.NotebookNode) -> None:
    """No errors, nothing on stderr (warnings), and every chart with data has both axis titles."""
    outs = outputs(nb)
    assert not [o for o in outs if o.output_type == "error"]
    assert not [o.text for o in outs if o.output_type == "stream" and o.name == "stderr"]
    figures = [o.data[PLOTLY] for o in outs if PLOTLY in o.get("data", {})]
    assert figures, "the notebook shows no chart"
    for fig in figures:
        if fig["data"]:
            layout = fig["layout"]
            assert layout["xaxis"]["title"]["text"], layout.get("title")
            assert layout["yaxis"]["title"]["text"], layout.get("title")


@pytest.mark.parametrize("name", NAMES)
def test_notebook_runs_on_an_empty_store(name: str, empty_store: Path) -> None:
    """Small data must not crash a notebook: every group may be empty."""
    nb, _ = run_notebook(name, empty_store)
    assert not [o for o in outputs(nb) if o.output_type == "error"]


@pytest.mark.parametrize("name", NAMES)
def test_notebook_runs_on_the_simulated_store(name: str, sim_store: Path) -> None:
    """Against the pipeline's simulated store (``sim_store`` in tests/conftest.py)."""
    nb, _ = run_notebook(name, sim_store)
    assert_clean_run(nb)


def test_tributes_counts_match_the_tables(tiny_store: Path) -> None:
    """rules.md §6: frequencies over eligible deals (deal 2 on) and the paying team's results."""
    nb, probe = run_notebook("tributes", tiny_store, probe=(
        "{'freq': frequency.filter(pl.col('rules') == 'all rulesets').select('kind', 'deals', 'eligible')"
        ".to_dicts(), 'by_kind': by_kind.select('kind', 'won', 'deals').to_dicts(),"
        " 'paid_n': int(comparison['paid_n'][0]), 'resisted_n': int(comparison['resisted_n'][0])}"
    ))
    assert_clean_run(nb)
    deals = {(d["match_id"], d["deal_no"]): d for d in rows(tiny_store, "deals")}
    eligible = [d for d in deals.values() if d["deal_no"] > 1]
    kinds = Counter(d["tribute_kind"] for d in eligible)
    assert probe["freq"] == [{"kind": k, "deals": n, "eligible": len(eligible)}
                             for k, n in sorted(kinds.items())]

    payer = {(t["match_id"], t["deal_no"]): (t["kind"], team_of(t["giver"]))
             for t in rows(tiny_store, "tributes")}
    won: Counter[str] = Counter()
    played: Counter[str] = Counter()
    for key, (kind, team) in payer.items():
        played[kind] += 1
        won[kind] += deals[key]["winning_team"] == team
    assert probe["by_kind"] == [{"kind": k, "won": won[k], "deals": played[k]} for k in sorted(played)]
    assert probe["paid_n"] == played["single"] + played["double"]
    assert probe["resisted_n"] == played["anti"]


def test_bombs_counts_match_the_tables(tiny_store: Path) -> None:
    """rules.md §4 bomb classes: bombs per kind, deals with one, and win rate by bomb lead."""
    nb, probe = run_notebook("bombs", tiny_store, probe=(
        "{'frequency': frequency.select('bomb_class', 'bombs', 'deals_with').to_dicts(),"
        " 'by_lead': by_lead.select('bomb_lead', 'won', 'team_deals').to_dicts()}"
    ))
    assert_clean_run(nb)
    bombs = [p for p in rows(tiny_store, "plays") if p["action"] == "play" and p["bomb_class"]]
    per_class = Counter(p["bomb_class"] for p in bombs)
    deals_with = {c: len({(p["match_id"], p["deal_no"]) for p in bombs if p["bomb_class"] == c})
                  for c in per_class}
    got = {r["bomb_class"]: (r["bombs"], r["deals_with"]) for r in probe["frequency"]}
    assert got == {c: (per_class[c], deals_with[c]) for c in per_class}

    lead_won: Counter[int] = Counter()
    lead_n: Counter[int] = Counter()
    for d in rows(tiny_store, "deals"):
        sides = (("EW", d["bombs_EW"], d["bombs_NS"]), ("NS", d["bombs_NS"], d["bombs_EW"]))
        for team, mine, theirs in sides:
            lead = max(-3, min(3, mine - theirs))
            lead_n[lead] += 1
            lead_won[lead] += d["winning_team"] == team
    assert probe["by_lead"] == [{"bomb_lead": k, "won": lead_won[k], "team_deals": lead_n[k]}
                                for k in sorted(lead_n)]


def _lost_leads(store: Path, player: str) -> tuple[int, int, int]:
    """(led tricks, lost leads, lost to a bomb) of ``player``, recounted trick by trick."""
    tricks: dict[tuple[str, int, int], list[dict[str, Any]]] = defaultdict(list)
    for p in rows(store, "plays"):
        tricks[(p["match_id"], p["deal_no"], p["trick_no"])].append(p)
    led = lost = to_bomb = 0
    for actions in tricks.values():
        actions.sort(key=lambda p: p["seq"])
        lead = actions[0]
        if not (lead["is_lead"] and lead["player_id"] == player):
            continue
        winner = [p for p in actions if p["action"] == "play"][-1]
        led += 1
        if winner["team"] != lead["team"]:
            lost += 1
            to_bomb += winner["bomb_class"] is not None
    return led, lost, to_bomb


def test_coach_review_picks_the_busiest_player_and_counts_lost_leads(tiny_store: Path) -> None:
    nb, probe = run_notebook("coach_review", tiny_store, probe=(
        "{'player': player, 'deals': player_deals, 'led': int(control['led_tricks'].sum()),"
        " 'lost': int(control['lost_leads'].sum()), 'to_bomb': int(control['lost_to_bomb'].sum()),"
        " 'worst': worst['lost_leads'].to_list(), 'top': TOP_DEALS,"
        " 'last': comparison.filter(pl.col('metric').str.starts_with('finished last'))"
        ".select('player_n', 'player_rate').to_dicts()}"
    ))
    assert_clean_run(nb)
    hands = rows(tiny_store, "deal_hands")
    deals = {(d["match_id"], d["deal_no"]): d for d in rows(tiny_store, "deals")}
    mine = [h for h in hands if h["player_id"] == FOCUS_PLAYER]
    winners = {key: d["winning_team"] for key, d in deals.items()}
    last = sum(h["finish_position"] == 4
               or (h["finish_position"] is None and winners[(h["match_id"], h["deal_no"])] != h["team"])
               for h in mine)
    assert probe["last"] == [{"player_n": len(mine), "player_rate": pytest.approx(last / len(mine))}]
    assert probe["player"] == FOCUS_PLAYER
    assert probe["deals"] == sum(h["player_id"] == FOCUS_PLAYER for h in hands)
    assert (probe["led"], probe["lost"], probe["to_bomb"]) == _lost_leads(tiny_store, FOCUS_PLAYER)
    assert probe["worst"] == sorted(probe["worst"], reverse=True)
    assert len(probe["worst"]) == min(probe["top"], probe["deals"])


def test_coach_review_takes_the_player_parameter(tiny_store: Path) -> None:
    hands = rows(tiny_store, "deal_hands")
    other = sorted({h["player_id"] for h in hands} - {FOCUS_PLAYER})[0]
    _, probe = run_notebook("coach_review", tiny_store, params={"PLAYER": other, "TOP_DEALS": 3},
                            probe="{'player': player, 'deals': player_deals, 'worst': worst.height}")
    assert probe == {"player": other, "deals": sum(h["player_id"] == other for h in hands), "worst": 3}


def test_coach_review_rejects_an_unknown_player(tiny_store: Path) -> None:
    with pytest.raises(CellExecutionError, match="has no deals"):
        run_notebook("coach_review", tiny_store, params={"PLAYER": "nobody"})


def test_coach_review_shows_the_players_results_against_their_cards(sim_store: Path) -> None:
    """The luck section shows the pipeline's player_luck row for the player and the fitted model."""
    nb, probe = run_notebook("coach_review", sim_store, probe=(
        "{'player': player, 'luck': player_luck.drop('rank').to_dicts(), 'features': luck_model.height}"
    ))
    assert_clean_run(nb)
    table = {r["player_id"]: r for r in rows(sim_store, "player_luck")}
    assert probe["luck"] == [table[probe["player"]]]
    assert probe["features"] == len(rows(sim_store, "luck_model")) > 0


def test_coach_review_lists_matches_in_their_local_time(sim_store: Path) -> None:
    """The match list shows each match's start in its own offset, as the dashboards do
    (schemas/times.py; the sample is logged at UTC+08:00), not in UTC."""
    listed = "{'ids': matches['match_id'].to_list(), 'started': matches['started'].to_list()}"
    _, probe = run_notebook("coach_review", sim_store, probe=listed)
    start = {m["match_id"]: (m["started_at"], m["utc_offset_min"]) for m in rows(sim_store, "matches")}
    assert {start[m][1] for m in probe["ids"]} == {480}
    assert probe["started"] == [time_label(local_time(*start[m])) for m in probe["ids"]]
    assert all(label.endswith(" (UTC+08:00)") for label in probe["started"])


def test_coach_review_lists_the_players_largest_losses(sim_store: Path) -> None:
    """Critical moments: the player's real choices with a loss, costliest in match chance first,
    then in levels, each linked to the hand replayer on that decision."""
    _, probe = run_notebook("coach_review", sim_store, params={"TOP_DEALS": 5}, probe=(
        "{'player': player, 'critical': critical.select('match_id', 'deal_no', 'seq', 'loss', 'replayer')"
        ".to_dicts(), 'reviewed': int(reviewed['decisions'][0])}"))
    mine = [r for r in rows(sim_store, "play_reviews") if r["player_id"] == probe["player"]]
    assert probe["reviewed"] == len(mine)
    costly = sorted((r for r in mine if r["choice"] == "real" and r["loss"] > 0),
                    key=lambda r: (-r["match_loss"], -r["loss"], r["match_id"], r["deal_no"], r["seq"]))[:5]
    assert [(r["match_id"], r["deal_no"], r["seq"], r["loss"]) for r in probe["critical"]] == [
        (r["match_id"], r["deal_no"], r["seq"], r["loss"]) for r in costly]
    for r in probe["critical"]:
        assert r["replayer"].endswith(f"/replayer?match={r['match_id']}&deal={r['deal_no']}&seq={r['seq']}")
