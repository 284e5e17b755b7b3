"""`gdan pair` refuses a round after one with tables that have no result (scoring.md §S8 pairs
every team; a team without a result would be left out or credited a bye), unless
``--allow-missing``, which is recorded (who, when, which tables) in the store's service folder."""

from __future__ import annotations

import csv
import io
from pathlib import Path

import pytest
from typer.testing import CliRunner, Result

from gdan import app
from pipelines.run.runner import run_pipeline
from service import registry
from service.registry import Event, Stamp

runner = CliRunner()
PAIRS = [(f"p{2 * i + 1:02}", f"p{2 * i + 2:02}") for i in range(8)]
ORDERS = ["E W", "N S"]
"""Each table's two deals (bcta: 2 deals a round, rules.md §5.8)."""


def _gdan(store: Path, *args: str) -> Result:
    return runner.invoke(app, [*args, "--store", str(store)], env={"COLUMNS": "200"})


def _seats(table: int, shift: int = 0) -> dict[str, str]:
    (e, w), (n, s) = PAIRS[(2 * table - 2 + shift) % 8], PAIRS[(2 * table - 1 + shift) % 8]
    return {"E": e, "N": n, "W": w, "S": s}


def _import(store: Path, tmp: Path, rounds: dict[int, list[int]]) -> None:
    """A score sheet with the given tables of each round, imported and run."""
    out = io.StringIO()
    writer = csv.writer(out)
    writer.writerow(["event", "round", "table", "E", "N", "W", "S", "deal", "order"])
    for round_no, tables in rounds.items():
        for table in tables:
            seats = _seats(table, 2 * (round_no - 1) + 1 if round_no > 1 else 0)
            for deal, order in enumerate(ORDERS, start=1):
                writer.writerow(["cup", round_no, table, *(seats[s] for s in "ENWS"), deal, order])
    sheet = tmp / "sheet.csv"
    sheet.write_text(out.getvalue(), encoding="utf-8")
    done = runner.invoke(app, ["import", str(sheet), "--rules", "bcta", "--out", str(store / "inbox")])
    assert done.exit_code == 0, done.output
    run_pipeline(store, workers=1)


@pytest.fixture(scope="module")
def drawn_store(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Round 1 of a registered 8-pair event drawn at 4 tables, table 4's result not in."""
    store = tmp_path_factory.mktemp("missing")
    registry.create(store, Event("cup", None, "bcta", {"kind": "deals", "deals": 2}, Stamp("t", "t")), ())
    registry.record_draw(store, "cup", 1, {str(t): _seats(t) for t in range(1, 5)}, None)
    _import(store, tmp_path_factory.mktemp("sheet"), {1: [1, 2, 3]})
    return store


def test_pairing_after_a_missing_table_is_refused(drawn_store: Path) -> None:
    refused = _gdan(drawn_store, "pair", "--event", "cup", "--round", "2")
    assert refused.exit_code == 1
    said = " ".join(refused.output.split())
    assert "round 1 of event cup has no result for 2 teams (tables 4)" in said
    assert "p13+p14, p15+p16" in said and "p11+p12" not in said and "--allow-missing" in said
    assert registry.overrides(drawn_store, "cup") == []


def test_the_override_pairs_and_is_recorded(drawn_store: Path) -> None:
    paired = _gdan(drawn_store, "pair", "--event", "cup", "--round", "2", "--allow-missing", "--by", "ref A")
    assert paired.exit_code == 0, paired.output
    assert "paired although round 1 has no result for table 4" in paired.output
    assert "override recorded: ref A" in paired.output
    (override,) = registry.overrides(drawn_store, "cup")
    assert (override.round, override.stamp.by, override.missing_tables) == (2, "ref A", ("4",))
    assert override.missing_teams == ("p13+p14", "p15+p16")


def test_an_undrawn_event_missing_a_table_is_refused(tmp_path: Path) -> None:
    """Without a draw: round 2 of 8 teams has 3 of 4 tables, so 2 teams have no match (the
    scoring credits each a bye, which an even field never has)."""
    store = tmp_path / "store"
    _import(store, tmp_path, {1: [1, 2, 3, 4], 2: [1, 2, 3]})
    refused = _gdan(store, "pair", "--event", "cup", "--round", "3")
    assert refused.exit_code == 1 and "round 2 of event cup has no result for 2 teams" in refused.output
    complete = _gdan(store, "pair", "--event", "cup", "--round", "2")
    assert complete.exit_code == 0, complete.output  # round 1 is complete
