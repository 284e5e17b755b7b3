"""`gdan simulate` on the command line, round-format strings (rules.md §7) and pairing (scoring.md §S8)."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from gdan import app
from replay.rulesets import RoundFormat, parse_round_format
from scoring.pairing import round_robin_pairs, swiss_pairs


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("until_a", RoundFormat("until_a")),
        ("deals:11", RoundFormat("deals", deals=11)),
        ("timed:60", RoundFormat("timed", minutes=60)),
        ("timed_deals:60:11", RoundFormat("timed_deals", deals=11, minutes=60)),
    ],
)
def test_parse_format(text: str, expected: RoundFormat) -> None:
    """The four round formats of rules.md §7."""
    assert parse_round_format(text) == expected


@pytest.mark.parametrize("text", ["deals", "deals:0", "timed:x", "timed_deals:60", "knockout:3", "until_a:2"])
def test_parse_format_rejects(text: str) -> None:
    with pytest.raises(ValueError, match="bad round format"):
        parse_round_format(text)


@settings(max_examples=60, deadline=None)
@given(st.integers(2, 12), st.randoms(use_true_random=False))
def test_swiss_never_rematches_while_possible(n: int, rnd) -> None:
    """§S8: over n-1 rounds (when a rematch-free pairing exists) no two teams meet twice; byes once each."""
    teams = [f"T{i}" for i in range(n)]
    met: set[frozenset[str]] = set()
    byes: set[str] = set()
    for _ in range(min(3, n - 1)):
        rnd.shuffle(teams)
        pairs, bye = swiss_pairs(teams, met, byes)
        playing = [t for p in pairs for t in p]
        assert sorted(playing + ([bye] if bye else [])) == sorted(teams)
        if bye is not None:
            assert bye not in byes
            byes.add(bye)
        for a, b in pairs:
            assert frozenset((a, b)) not in met
            met.add(frozenset((a, b)))


@pytest.mark.parametrize("n", [4, 5, 8])
def test_round_robin_meets_everyone_once(n: int) -> None:
    teams = [f"T{i}" for i in range(n)]
    rounds = n - 1 + n % 2
    meetings = [frozenset(p) for r in range(1, rounds + 1) for p in round_robin_pairs(teams, r)[0]]
    assert len(meetings) == len(set(meetings)) == n * (n - 1) // 2


def test_cli_simulate_writes_logs(tmp_path: Path) -> None:
    result = CliRunner().invoke(
        app,
        [
            "simulate",
            "--out",
            str(tmp_path),
            "--kind",
            "matches",
            "--matches",
            "3",
            "--format",
            "deals:1",
            "--rules",
            "bcta",
            "--seed",
            "3",
            "--corrupt",
            "0.5",
        ],
    )
    assert result.exit_code == 0, result.output
    assert "wrote 3 matches" in result.output
    assert (tmp_path / "bcta-matches-s3-001.jsonl").exists()
    assert (tmp_path / "players.json").exists()
    assert (tmp_path / "corrupt" / "manifest.json").exists()


def test_cli_bad_format_is_explained(tmp_path: Path) -> None:
    result = CliRunner().invoke(app, ["simulate", "--out", str(tmp_path), "--format", "deals:x"])
    assert result.exit_code == 2
    assert "bad round format" in result.output


def test_cli_help_lists_options() -> None:
    result = CliRunner().invoke(app, ["simulate", "--help"])
    assert result.exit_code == 0
    for option in (
        "--out",
        "--kind",
        "--pairs",
        "--rounds",
        "--rules",
        "--format",
        "--seed",
        "--workers",
        "--corrupt",
        "--matches",
        "--players",
    ):
        assert option in result.output
