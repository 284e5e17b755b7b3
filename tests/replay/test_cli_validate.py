"""`gdan validate [--json] PATH...`: summary, per-match JSON lines, malformed lines with file
and line, exit status 1 when a match is invalid."""

from __future__ import annotations

import gzip
from pathlib import Path

import orjson
from replay_builder import Log
from typer.testing import CliRunner

from gdan import app


def _log(match: str) -> Log:
    log = Log(match=match)
    log.deal(leader="E", seed=1)
    log.play_out(["E", "N", "W"], leader="E")
    log.end_deal()
    log.end("abandoned")
    return log


def _write(path: Path, events: list[dict], extra: bytes = b"") -> Path:
    data = b"".join(orjson.dumps(e) + b"\n" for e in events) + extra
    if path.name.endswith(".gz"):
        data = gzip.compress(data)
    path.write_bytes(data)
    return path


def test_valid_files_exit_zero(tmp_path: Path) -> None:
    events = _log("m1").events
    a = _write(tmp_path / "a.jsonl", events[:100])
    b = _write(tmp_path / "b.jsonl.gz", events[100:])  # one match split across two files
    result = CliRunner().invoke(app, ["validate", str(a), str(b)])
    assert result.exit_code == 0, result.output
    assert "1 valid" in result.output and "0 invalid" in result.output


def test_json_lines_and_malformed(tmp_path: Path) -> None:
    good = _log("good").events
    bad = _log("bad").events
    del bad[9]
    path = _write(tmp_path / "x.jsonl", good + bad, extra=b"{oops\n[1, 2]\n")
    result = CliRunner().invoke(app, ["validate", "--json", str(path)])
    assert result.exit_code == 1
    lines = [orjson.loads(x) for x in result.stdout.splitlines()]
    assert {x["match"]: x["status"] for x in lines} == {"good": "valid", "bad": "invalid"}
    err = next(x["error"] for x in lines if x["match"] == "bad")
    assert err["seq"] == 9 and err["code"] == "missing_seq" and "seq 9" in err["message"]
    malformed = [orjson.loads(x) for x in result.stderr.splitlines()]
    n = len(good) + len(bad)
    assert [(m["line"], m["code"]) for m in malformed] == [
        (n + 1, "malformed_line"),
        (n + 2, "malformed_line"),
    ]
    assert all(m["file"] == str(path) for m in malformed)


def test_summary_names_first_error(tmp_path: Path) -> None:
    bad = _log("bad").events
    bad[1]["hands"]["E"].pop()
    path = _write(tmp_path / "x.jsonl", bad)
    result = CliRunner().invoke(app, ["validate", str(path)])
    assert result.exit_code == 1
    assert "bad" in result.stdout and "seq 1: wrong_hand_size" in result.stdout


def test_custom_ruleset_file(tmp_path: Path) -> None:
    """rules.md §10: a ruleset file named with --ruleset makes its id usable in match_start."""
    events = _log("m1").events
    events[0]["rules"] = "club_x"
    path = _write(tmp_path / "x.jsonl", events)
    rules = tmp_path / "club.toml"
    rules.write_text('id = "club_x"\nbase = "national"\n')
    assert CliRunner().invoke(app, ["validate", str(path)]).exit_code == 1
    result = CliRunner().invoke(app, ["validate", "--ruleset", str(rules), str(path)])
    assert result.exit_code == 0, result.output
