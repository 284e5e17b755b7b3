"""A mistyped ``--store`` is an error, never a new empty store; ``gdan run`` exits 0 only when
nothing it ingested was quarantined, and 3 when something was (so a scheduler can alert)."""

from __future__ import annotations

from pathlib import Path

import pytest
from pipeline_helpers import fake_replay, match_events, write_jsonl
from typer.testing import CliRunner, Result

from gdan import app, pipeline
from pipelines.steps import replaying
from pipelines.storage.store import Store

runner = CliRunner()


@pytest.fixture(autouse=True)
def stand_in_replayer(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(replaying, "default_replay_fn", lambda: fake_replay)


def _gdan(*args: str) -> Result:
    return runner.invoke(app, list(args), env={"COLUMNS": "200"})


def _said(result: Result) -> str:
    return " ".join(result.stderr.split())


def test_run_on_a_folder_that_is_not_a_store_fails_and_creates_nothing(tmp_path: Path) -> None:
    typo = tmp_path / "dtaa"
    result = _gdan("run", "--store", str(typo), "--workers", "1")
    assert result.exit_code == 1
    assert f"no store at {typo}" in _said(result) and "--create" in _said(result)
    assert not typo.exists()


def test_run_with_create_starts_an_empty_store(tmp_path: Path) -> None:
    store = tmp_path / "new"
    result = _gdan("run", "--store", str(store), "--workers", "1", "--create")
    assert result.exit_code == 0, result.output
    assert Store(store).tables_dir.is_dir()
    assert _gdan("run", "--store", str(store), "--workers", "1").exit_code == 0


@pytest.mark.parametrize(
    "args",
    [["sql", "SELECT count(*) FROM matches"], ["standings"], ["dan"], ["ratings"], ["dashboard"]],
)
def test_readers_need_an_existing_store(
    tmp_path: Path, args: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    def no_server(*args: object, **kwargs: object) -> None:
        raise AssertionError("started the dashboards' server on a folder that is not a store")

    monkeypatch.setattr(pipeline.subprocess, "Popen", no_server)
    monkeypatch.setattr(pipeline.subprocess, "call", no_server)
    typo = tmp_path / "dtaa"
    result = _gdan(*args, "--store", str(typo))
    assert result.exit_code == 1
    assert f"no store at {typo}" in _said(result)
    assert result.stdout == "" and not typo.exists()


def test_run_exits_3_when_this_run_quarantined_input_and_0_after(tmp_path: Path) -> None:
    write_jsonl(tmp_path / "inbox" / "a.jsonl", match_events("m1"), extra_lines=("not json",))
    first = _gdan("run", "--store", str(tmp_path), "--workers", "1")
    assert first.exit_code == 3, first.output
    assert "1 quarantine row(s) added by this run" in _said(first)
    again = _gdan("run", "--store", str(tmp_path), "--workers", "1")
    assert again.exit_code == 0, again.output


def test_run_exits_3_for_an_invalid_match(tmp_path: Path) -> None:
    events = match_events("m1")
    del events[2]
    write_jsonl(tmp_path / "inbox" / "a.jsonl", events)
    result = _gdan("run", "--store", str(tmp_path), "--workers", "1")
    assert result.exit_code == 3, result.output


def test_run_exits_0_for_valid_and_incomplete_matches(tmp_path: Path) -> None:
    write_jsonl(tmp_path / "inbox" / "a.jsonl", match_events("m1") + match_events("m2", end=False))
    result = _gdan("run", "--store", str(tmp_path), "--workers", "1")
    assert result.exit_code == 0, result.output


def test_run_help_names_every_exit_status() -> None:
    text = " ".join(_gdan("run", "--help").stdout.split())
    assert all(f"{code} when" in text for code in ("0", "3", "1", "2", "130")), text


def test_run_on_a_store_path_delta_cannot_open_says_so_in_one_line_and_exits_2(tmp_path: Path) -> None:
    """delta-rs refuses ``[`` or ``]`` in a table's path (``StorePathError``): ``gdan run`` says
    so in one line and exits 2 before any step, instead of a traceback; ``gdan ingest`` still
    fills the inbox, so nothing given is lost."""
    store = tmp_path / "club[1]"
    events = write_jsonl(tmp_path / "m1.jsonl", match_events("m1"))
    assert _gdan("ingest", str(events), "--store", str(store)).exit_code == 0
    result = _gdan("run", "--store", str(store), "--workers", "1")
    assert result.exit_code == 2, result.output
    assert isinstance(result.exception, SystemExit)
    lines = [line for line in result.stderr.splitlines() if line.strip()]
    assert len(lines) == 1, result.stderr
    assert lines[0].startswith("error: store path") and "'[' or ']'" in lines[0]
    assert "Traceback" not in result.output
    assert not Store(store).tables_dir.exists()


def test_run_on_a_store_of_the_layout_before_delta_says_how_to_rebuild_and_exits_2(tmp_path: Path) -> None:
    """A store written before the Delta Lake layout (its memory in ``state/state.json``, Parquet
    version folders) is neither read nor written over: ``gdan run`` says in one line that it
    must be rebuilt from its events, and how, and exits 2; its files stay as they were."""
    store = tmp_path / "old"
    events = write_jsonl(tmp_path / "m1.jsonl", match_events("m1"))
    assert _gdan("ingest", str(events), "--store", str(store)).exit_code == 0
    memory = Store(store).state_dir / "state.json"
    memory.parent.mkdir(parents=True, exist_ok=True)
    memory.write_text('{"matches": {}}', encoding="utf-8")
    before = sorted(p.relative_to(store) for p in store.rglob("*"))
    result = _gdan("run", "--store", str(store), "--workers", "1")
    assert result.exit_code == 2, result.output
    lines = [line for line in result.stderr.splitlines() if line.strip()]
    assert len(lines) == 1, result.stderr
    assert "before the Delta Lake layout" in lines[0] and "--create --store NEW" in lines[0], lines[0]
    assert sorted(p.relative_to(store) for p in store.rglob("*")) == before
