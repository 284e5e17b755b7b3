"""`gdan single-dummy` and `gdan puzzles export`: rows labelled single-dummy for one deal, puzzles
as JSON the engine reads back, and a clear exit status 1 when the request names nothing."""

from __future__ import annotations

import json
from pathlib import Path

import orjson
from typer.testing import CliRunner

from gdan import app
from replay.puzzles import find_puzzles, from_json
from replay.single_dummy import LABEL
from replay.solver import Budget
from simulator.api import simulate_match


def _match_file(tmp_path: Path) -> tuple[Path, list[dict[str, object]]]:
    events = simulate_match("national", seed=1)
    path = tmp_path / "match.jsonl"
    path.write_bytes(b"".join(orjson.dumps(e) + b"\n" for e in events))
    return path, events


def test_single_dummy_one_deal_as_json(tmp_path: Path) -> None:
    path, events = _match_file(tmp_path)
    match = str(events[0]["match"])
    last = max(int(str(e["deal"])) for e in events if e["type"] == "deal_start")
    args = [
        "single-dummy",
        str(path),
        "--match",
        match,
        "--deal",
        str(last),
        "--layouts",
        "2",
        "--candidates",
        "2",
    ]
    result = CliRunner().invoke(app, [*args, "--format", "json"])
    assert result.exit_code == 0, result.output
    rows = json.loads(result.stdout)
    assert rows
    for row in rows:
        assert (row["match_id"], row["deal_no"], row["label"]) == (match, last, LABEL)
        assert row["loss"] >= 0 and 0 <= row["worse_in"] <= row["layouts"] == 2
        assert row["hand"] and f"{row['action']}={row['played_mean']:+.2f} [" in row["candidates"]


def test_single_dummy_needs_a_match_or_all(tmp_path: Path) -> None:
    path, _ = _match_file(tmp_path)
    result = CliRunner().invoke(app, ["single-dummy", str(path)])
    assert result.exit_code == 1
    assert "--all" in result.output
    result = CliRunner().invoke(app, ["single-dummy", str(path), "--match", "nope"])
    assert result.exit_code == 1
    assert "no match 'nope'" in result.output


def test_puzzles_export_writes_what_the_engine_finds(tmp_path: Path) -> None:
    path, events = _match_file(tmp_path)
    out = tmp_path / "puzzles.json"
    result = CliRunner().invoke(app, ["puzzles", "export", str(path), "--out", str(out), "--cards", "10"])
    assert result.exit_code == 0, result.output
    written = [from_json(p) for p in json.loads(out.read_text(encoding="utf-8"))]
    deals = sorted({int(str(e["deal"])) for e in events if e["type"] == "deal_start"})
    expected = [
        p for d in deals for p in find_puzzles(events, Budget(nodes=100_000), deal=d, max_cards_left=10)
    ]
    assert written == expected
    assert written
