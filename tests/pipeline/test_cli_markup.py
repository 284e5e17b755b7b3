"""User text is printed literally: names, clubs, ids, file names and values that look like rich
markup (``[/]``, ``[bold]``) neither crash a command (``MarkupError``) nor restyle its output."""

from __future__ import annotations

from pathlib import Path

import pytest
from pipeline_helpers import match_events, write_jsonl
from typer.testing import CliRunner, Result

from gdan import app
from gdan.render import OutputFormat, Rows, emit
from pipelines.run.runner import run_pipeline
from simulator import simulate_to_dir

runner = CliRunner()
NAME, CLUB = "[/]", "[bold]Markup Club"
"""A player name that is a bare closing tag (rich raises on it) and a club that opens a style."""


def _gdan(*args: str) -> Result:
    return runner.invoke(app, list(args), env={"COLUMNS": "250"})


@pytest.fixture(scope="module")
def markup_store(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A small scored store whose first player is called ``[/]`` and whose first club is ``[bold]…``."""
    root = tmp_path_factory.mktemp("markup")
    inbox = root / "inbox"
    simulate_to_dir(inbox, kind="tournament", pairs=4, rounds=1, format="deals:1", seed=3)
    first = sorted(inbox.glob("*.jsonl"))[0].read_text().splitlines()[0]
    name = first.split('"name":"', 1)[1].split('"', 1)[0]
    club = first.split('"club":"', 1)[1].split('"', 1)[0]
    for path in inbox.glob("*.jsonl"):
        text = path.read_text().replace(f'"name":"{name}"', f'"name":"{NAME}"')
        path.write_text(text.replace(f'"club":"{club}"', f'"club":"{CLUB}"'))
    run_pipeline(root, workers=1)
    return root


def test_ratings_show_markup_like_names_and_clubs_literally(markup_store: Path) -> None:
    result = _gdan("ratings", "--top", "0", "--store", str(markup_store))
    assert result.exit_code == 0, result.output
    assert NAME in result.stdout.split() and CLUB in result.stdout


def test_a_club_filter_with_markup_is_shown_literally_in_the_title(markup_store: Path) -> None:
    result = _gdan("ratings", "--club", CLUB, "--store", str(markup_store))
    assert result.exit_code == 0, result.output
    assert f"club {CLUB}" in result.stdout


def test_an_unknown_event_that_looks_like_markup_is_echoed_literally(markup_store: Path) -> None:
    result = _gdan("standings", "--event", "[/]", "--store", str(markup_store))
    assert result.exit_code == 1
    assert "unknown event '[/]'" in result.stderr


def test_sql_cells_and_headers_are_not_markup(markup_store: Path) -> None:
    query = "SELECT '[bold]x[/bold]' AS \"[red]h\", '[/]' AS closing"
    result = _gdan("sql", query, "--store", str(markup_store))
    assert result.exit_code == 0, result.output
    assert "[bold]x[/bold]" in result.stdout and "[red]h" in result.stdout and "[/]" in result.stdout


def test_a_store_name_with_markup_in_the_ingest_message(tmp_path: Path) -> None:
    source = write_jsonl(tmp_path / "day.jsonl", match_events("m1"))
    store = tmp_path / "store[/]"
    ingested = _gdan("ingest", str(source), "--store", str(store))
    assert ingested.exit_code == 0, ingested.output
    assert f"to{store / 'inbox'}," in "".join(ingested.stderr.split())


def test_the_renderer_prints_every_cell_header_and_title_as_text(capsys: pytest.CaptureFixture[str]) -> None:
    rows = Rows(["[i]col"], [("[/]",), ("[bold]b[/bold]",)])
    emit(rows, OutputFormat.table, title="[link=x]t")
    out = capsys.readouterr().out
    assert all(text in out for text in ("[i]col", "[/]", "[bold]b[/bold]", "[link=x]t"))


def test_validate_prints_a_markup_like_match_id_literally(tmp_path: Path) -> None:
    events = match_events("[/]m1")
    del events[2]
    log = write_jsonl(tmp_path / "bad.jsonl", events)
    result = runner.invoke(app, ["validate", str(log)], env={"COLUMNS": "200"})
    assert result.exit_code == 1
    assert "invalid [/]m1" in result.stdout
