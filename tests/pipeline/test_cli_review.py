"""``gdan review``: one line per decision ``review_deal`` reviews, with its verdict and best moves."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from gdan import app
from gdan.review import verdict
from replay.review import review_deal
from replay.solver import Budget
from simulator.api import simulate_match


def test_review_prints_each_decisions_verdict(tmp_path: Path) -> None:
    events = simulate_match("national", seed=3)
    path = tmp_path / "m.jsonl"
    path.write_text("".join(json.dumps(e) + "\n" for e in events))
    match_id = events[0]["match"]
    expected = review_deal(events, Budget(nodes=200_000), deal=1, max_cards_left=16)
    assert expected
    args = ["review", str(path), "--match", match_id, "--deal", "1"]
    result = CliRunner().invoke(app, [*args, "--format", "json"])
    assert result.exit_code == 0, result.output
    rows = json.loads(result.stdout)
    assert [(r["seq"], r["loss"], r["value_before"], r["value_after"]) for r in rows] == [
        (e.seq, e.loss, e.value_before, e.value_after) for e in expected]
    assert [r["verdict"] for r in rows] == [verdict(e.loss) for e in expected]
    assert all(r["verdict"] == "best" for r in rows if r["loss"] == 0)
    table = CliRunner().invoke(app, args)
    assert table.exit_code == 0 and f"{len(expected)} decisions reviewed" in table.stdout


def test_review_of_an_unknown_match_fails(tmp_path: Path) -> None:
    path = tmp_path / "m.jsonl"
    path.write_text("".join(json.dumps(e) + "\n" for e in simulate_match("national", seed=3)))
    result = CliRunner().invoke(app, ["review", str(path), "--match", "nope", "--deal", "1"])
    assert result.exit_code == 1
