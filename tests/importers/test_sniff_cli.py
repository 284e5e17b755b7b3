"""Format sniffing, ``detect_and_convert`` (the ingest asset's entry point) and ``gdan import``."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from importer_fixtures import BOTZONE_DEAL1, EXCERPT, read_jsonl
from typer.testing import CliRunner

from gdan import app
from importers import ConversionError, SourceFormat, detect_and_convert, sniff

EVENT_LINE = '{"v":1,"match":"m1","seq":0,"type":"match_start","rules":"national"}\n'


@pytest.mark.parametrize(
    ("name", "content", "expected"),
    [
        ("a.njupt.jsonl", "not even json\n", SourceFormat.NJUPT),
        ("a.botzone.json", "[]", SourceFormat.BOTZONE),
        ("a.jsonl", EVENT_LINE, SourceFormat.EVENTS),
        ("a.jsonl", '{"type":"notify","stage":"beginning","myPos":0}\n', SourceFormat.NJUPT),
        ("a.jsonl", '{"type":"act","stage":"play"}\n', SourceFormat.NJUPT),
        ("log.json", '[{"output": {"command": "request"}}]', SourceFormat.BOTZONE),
        ("log.json", '{"log": [{"output": {}}]}', SourceFormat.BOTZONE),
        ("log.json", '{\n  "log" : [\n  {"output": {}}]}', SourceFormat.BOTZONE),
        ("log.json", "[1, 2, 3]", SourceFormat.UNKNOWN),
        ("a.jsonl", '{"hello": 1}\n', SourceFormat.UNKNOWN),
        ("a.jsonl", "garbage\n", SourceFormat.UNKNOWN),
    ],
)
def test_sniff(tmp_path: Path, name: str, content: str, expected: SourceFormat) -> None:
    """Suffix first (``.njupt.jsonl``, ``.botzone.json``), else the first line's content."""
    path = tmp_path / name
    path.write_text(content)
    assert sniff(path) is expected


def test_detect_and_convert_leaves_event_v1_and_unknown_files_alone(tmp_path: Path) -> None:
    events = tmp_path / "events.jsonl"
    events.write_text(EVENT_LINE)
    other = tmp_path / "notes.jsonl"
    other.write_text('{"hello": 1}\n')
    assert detect_and_convert(events) is None
    assert detect_and_convert(other) is None


def test_detect_and_convert_yields_event_lines(tmp_path: Path) -> None:
    lines = detect_and_convert(BOTZONE_DEAL1)
    assert lines is not None
    events = [json.loads(line) for line in lines]
    assert events[0]["type"] == "match_start" and events[-1]["type"] == "match_end"
    single = tmp_path / "client-2.jsonl"
    shutil.copy(EXCERPT / "client-2.jsonl", single)
    converted = detect_and_convert(single)
    assert converted is not None
    assert list(json.loads(next(converted))["source"]["clients"]) == [2]


def test_a_game_folder_is_one_match_under_client_0(tmp_path: Path) -> None:
    """In a folder with all four client files, client-0 yields the full game, the others nothing."""
    game = tmp_path / "inbox" / "game"
    shutil.copytree(EXCERPT, game)
    outputs = {k: detect_and_convert(game / f"client-{k}.jsonl") for k in range(4)}
    assert all(lines is not None for lines in outputs.values())
    first = [json.loads(line) for line in outputs[0] or []]
    assert first[0]["source"]["clients"] == [0, 1, 2, 3]
    assert all(list(outputs[k] or []) == [] for k in (1, 2, 3))


def test_detect_and_convert_raises_for_damaged_foreign_files(tmp_path: Path) -> None:
    path = tmp_path / "bad.njupt.jsonl"
    path.write_text('{"type": "notify", "stage": "beginning"}\n')
    with pytest.raises(ConversionError, match="myPos"):
        detect_and_convert(path)


def test_cli_imports_folders_and_files(tmp_path: Path) -> None:
    out = tmp_path / "out"
    result = CliRunner().invoke(
        app, ["import", str(EXCERPT), str(EXCERPT / "client-1.jsonl"), str(BOTZONE_DEAL1), "--out", str(out)]
    )
    assert result.exit_code == 0, result.output
    written = sorted(out.glob("*.jsonl"))
    assert len(written) == 3
    starts = [read_jsonl(p)[0] for p in written]
    sources = sorted((*start["source"]["clients"], start["rules"]) for start in starts)
    assert sources == [(0, 1, 2, 3, "national"), (0, 1, 2, 3, "njupt"), (1, "njupt")]


def test_cli_options_players_and_match_id(tmp_path: Path) -> None:
    out = tmp_path / "out"
    args = [
        "import",
        "--format",
        "njupt",
        "--game",
        *[str(EXCERPT / f"client-{k}.jsonl") for k in (3, 1, 0, 2)],
    ]
    result = CliRunner().invoke(app, [*args, "--out", str(out), "--match-id", "g0", "--players", "a,b,c,d"])
    assert result.exit_code == 0, result.output
    events = read_jsonl(out / "g0.jsonl")
    assert events[0]["seats"] == {"E": "a", "N": "b", "W": "c", "S": "d"}


def test_cli_reports_damaged_input_and_exits_1(tmp_path: Path) -> None:
    bad = tmp_path / "bad.njupt.jsonl"
    lines = read_jsonl(EXCERPT / "client-0.jsonl")[:3]
    lines[2]["curAction"] = ["Single", "3", ["Z3"]]
    bad.write_text("".join(json.dumps(m) + "\n" for m in lines))
    result = CliRunner().invoke(app, ["import", str(bad), str(BOTZONE_DEAL1), "--out", str(tmp_path / "out")])
    assert result.exit_code == 1
    assert (
        f"{bad}:3: curAction[2][0]: expected a card like 'S5', 'HT', 'SB' or 'HR', got 'Z3'" in result.output
    )
    assert len(list((tmp_path / "out").glob("*.jsonl"))) == 1, "the good input is still converted"


@pytest.mark.parametrize(
    "args",
    [
        ["--players", "a,b"],
        ["--format", "botzone", str(EXCERPT)],
        ["--game"],
        ["--match-id", "x", str(BOTZONE_DEAL1)],
    ],
)
def test_cli_rejects_bad_options(tmp_path: Path, args: list[str]) -> None:
    result = CliRunner().invoke(app, ["import", str(BOTZONE_DEAL1), *args, "--out", str(tmp_path)])
    assert result.exit_code == 2, result.output
