"""``gdan review``: one line per decision ``review_deal`` reviews, with the player's hand, the
action played, the best ones, the loss and the verdict and its kind; a deal that never reached
the window says so; without a file, the verdicts a store holds."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from gdan import app
from gdan.review import verdict, verdict_text
from pipelines.steps.single_dummy import sampled_severity
from pipelines.storage.store import Store
from replay.review import review_deal
from replay.solver import Budget
from simulator.api import simulate_match


def test_review_prints_each_decisions_verdict(tmp_path: Path) -> None:
    events = simulate_match("national", seed=3)
    path = tmp_path / "m.jsonl"
    path.write_text("".join(json.dumps(e) + "\n" for e in events))
    match_id = events[0]["match"]
    expected = review_deal(events, Budget(nodes=200_000), deal=1, max_cards_left=20)
    assert expected
    args = ["review", str(path), "--match", match_id, "--deal", "1"]
    result = CliRunner().invoke(app, [*args, "--format", "json"])
    assert result.exit_code == 0, result.output
    rows = json.loads(result.stdout)
    assert [(r["seq"], r["loss"], r["value_before"], r["value_after"]) for r in rows] == [
        (e.seq, e.loss, e.value_before, e.value_after) for e in expected]
    assert [r["verdict"] for r in rows] == [verdict(e) for e in expected]
    assert [(r["hand"], r["played"]) for r in rows] == [
        (" ".join(e.hand), "pass" if e.action is None else " ".join(e.action.cards)) for e in expected]
    assert all(r["kind"] == "double_dummy" for r in rows)
    forced = [r for r in rows if r["choice"] == "forced"]
    assert forced and all(r["verdict"] == "forced pass (no legal play)" for r in forced)
    assert all(r["verdict"] == "best" for r in rows if r["loss"] == 0 and r["choice"] == "real")
    table = CliRunner().invoke(app, [*args, "--format", "table"], terminal_width=200)
    assert table.exit_code == 0 and f"{len(expected)} decisions reviewed" in table.stdout
    assert "double-dummy" in table.stdout


def test_review_with_single_dummy_adds_sampled_verdicts(tmp_path: Path) -> None:
    """--single-dummy adds a row of kind single_dummy per real decision of the deal, after the
    exact row of the same decision, with its severity by the mean levels lost and "worse in k of
    N layouts"; the exact rows are those of the plain review."""
    events = simulate_match("national", seed=3)
    path = tmp_path / "m.jsonl"
    path.write_text("".join(json.dumps(e) + "\n" for e in events))
    args = ["review", str(path), "--match", events[0]["match"], "--deal", "1", "--format", "json"]
    plain = json.loads(CliRunner().invoke(app, args).stdout)
    result = CliRunner().invoke(app, [*args, "--single-dummy", "--layouts", "1"])
    assert result.exit_code == 0, result.output
    rows = json.loads(result.stdout)
    sampled = [r for r in rows if r["kind"] == "single_dummy"]
    assert sampled and [r for r in rows if r["kind"] == "double_dummy"] == [
        {**r, "played_mean": None, "interval": None, "worse_in": None, "candidates": None} for r in plain]
    assert [(r["seq"], r["kind"]) for r in rows] == sorted((r["seq"], r["kind"]) for r in rows)
    for r in sampled:
        word = sampled_severity(r["loss"], r["match_loss"])
        assert r["verdict"].startswith(word)
        assert r["verdict"].endswith(f"worse in {r['worse_in'][0]} of 1 layouts")
        assert r["choice"] == "real" and r["worse_in"] in ("0/1", "1/1") and r["interval"].startswith("[")
        assert f"{r['played']}=" in r["candidates"] and f"{r['best']}=" in r["candidates"]
        assert r["hand"] and (r["played"] == "pass" or set(r["played"].split()) <= set(r["hand"].split()))
        assert (r["loss"] > 0) == (r["worse_in"] == "1/1")  # one layout: worse there means a loss


def test_a_deal_outside_the_window_says_so(tmp_path: Path) -> None:
    events = simulate_match("national", seed=3)
    path = tmp_path / "m.jsonl"
    path.write_text("".join(json.dumps(e) + "\n" for e in events))
    args = ["review", str(path), "--match", events[0]["match"], "--deal", "1", "--cards", "0"]
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 0
    assert "no decision in the window" in result.stderr and "nodes" not in result.stderr


def test_review_of_an_unknown_match_fails(tmp_path: Path) -> None:
    path = tmp_path / "m.jsonl"
    path.write_text("".join(json.dumps(e) + "\n" for e in simulate_match("national", seed=3)))
    result = CliRunner().invoke(app, ["review", str(path), "--match", "nope", "--deal", "1"])
    assert result.exit_code == 1


def test_review_reads_a_stores_verdicts(sim_store: Path) -> None:
    """Without a file: the deal's play_reviews rows as the store's published run holds them."""
    stored = Store(sim_store).read_table("play_reviews").to_pylist()
    match, deal = stored[0]["match_id"], stored[0]["deal_no"]
    expected = sorted((r for r in stored if (r["match_id"], r["deal_no"]) == (match, deal)),
                      key=lambda r: r["seq"])
    args = ["review", "--store", str(sim_store), "--match", match]
    result = CliRunner().invoke(app, [*args, "--deal", str(deal), "--format", "json"])
    assert result.exit_code == 0, result.output
    rows = json.loads(result.stdout)
    assert [(r["seq"], r["hand"], r["best"], r["loss"], r["verdict"], r["kind"]) for r in rows] == [
        (e["seq"], " ".join(e["hand"]), e["best_moves"], e["loss"],
         verdict_text(e["choice"], e["severity"], e["loss"]), "double_dummy") for e in expected]
    missing = CliRunner().invoke(app, [*args, "--deal", "999"])
    assert missing.exit_code == 1 and "no deal 999" in missing.output
