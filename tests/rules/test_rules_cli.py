"""`gdan rules readings` and `gdan rules beats` (rules.md §3–§4) through typer's CliRunner."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from gdan import app

runner = CliRunner()


def test_readings_text() -> None:
    result = runner.invoke(app, ["rules", "readings", "--level", "2", "H2", "S5", "S6", "S7", "S8"])
    assert result.exit_code == 0, result.output
    assert "straight 45678" in result.output and "straight flush 56789" in result.output


def test_readings_json() -> None:
    result = runner.invoke(app, ["rules", "readings", "--level", "2", "--json", "H2 SK SK S6 S6"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.output)
    assert [(r["type"], r["rank"]) for r in data["readings"]] == [("full_house", "6"), ("full_house", "K")]


def test_readings_not_a_combination() -> None:
    result = runner.invoke(app, ["rules", "readings", "--level", "2", "SK", "SA", "S2"])
    assert result.exit_code == 1
    assert "not a combination" in result.output


def test_readings_bad_card() -> None:
    result = runner.invoke(app, ["rules", "readings", "--level", "2", "S1"])
    assert result.exit_code == 2
    assert "invalid card 'S1'" in result.output


def test_beats_text_lists_reading_pairs() -> None:
    result = runner.invoke(app, ["rules", "beats", "--level", "2", "H2 H2 S7 S7 S8 S8", "S6 S6 D7 D7 C8 C8"])
    assert result.exit_code == 0, result.output
    assert "tube 778899 beats tube 667788" in result.output
    assert "plate 777888 does not beat tube 667788" in result.output


def test_beats_json_level_card() -> None:
    result = runner.invoke(app, ["rules", "beats", "--level", "7", "--json", "S7", "SA"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.output)
    assert data["beats"] is True
    assert data["beating_pairs"] == [
        {
            "play": {"type": "single", "rank": "7", "size": 1, "bomb_class": None},
            "table": {"type": "single", "rank": "A", "size": 1, "bomb_class": None},
        }
    ]


def test_beats_does_not_beat() -> None:
    result = runner.invoke(app, ["rules", "beats", "--level", "2", "S9 S9", "SB SB"])
    assert result.exit_code == 1
    assert "does not beat" in result.output


def test_beats_rejects_non_combination() -> None:
    result = runner.invoke(app, ["rules", "beats", "--level", "2", "S9 ST", "S3"])
    assert result.exit_code == 2
    assert "not a combination" in result.output


def test_help() -> None:
    result = runner.invoke(app, ["rules", "--help"])
    assert result.exit_code == 0
    assert "readings" in result.output and "beats" in result.output


def test_beats_with_declared_readings() -> None:
    args = ["rules", "beats", "--level", "2", "H2 H2 S7 S7 S8 S8", "S6 S6 D7 D7 C8 C8"]
    assert runner.invoke(app, [*args, "--as", "tube:7"]).exit_code == 0
    declined = runner.invoke(app, [*args, "--as", "plate:7"])
    assert declined.exit_code == 1 and "plate 777888 does not beat" in declined.output
    wrong = runner.invoke(app, [*args, "--as", "tube:9"])
    assert wrong.exit_code == 2 and "its readings: tube:6, tube:7, plate:7" in wrong.output


def test_ruleset_builtin_and_file(tmp_path: Path) -> None:
    shown = runner.invoke(app, ["rules", "ruleset", "bcta", "--json"])
    assert shown.exit_code == 0, shown.output
    assert json.loads(shown.output)["a"]["failure_limit"] == 3
    text = runner.invoke(app, ["rules", "ruleset", "jiangsu"])
    assert "returns.not_tribute_card" in text.output and "True" in text.output
    custom = tmp_path / "club.toml"
    custom.write_text(
        'id = "club"\nbase = "national"\n[a]\nfailure_limit = 3\nfailure_action = "back_to_two"\n'
    )
    loaded = runner.invoke(app, ["rules", "ruleset", str(custom), "--json"])
    assert json.loads(loaded.output)["a"]["failure_action"] == "back_to_two"
    typo = tmp_path / "typo.toml"
    typo.write_text('id = "x"\nretuns = {}\n')
    bad = runner.invoke(app, ["rules", "ruleset", str(typo)])
    assert bad.exit_code == 2 and "unknown ruleset keys" in bad.output
    unknown = runner.invoke(app, ["rules", "ruleset", "moon"])
    assert unknown.exit_code == 2 and "unknown ruleset 'moon'" in unknown.output
