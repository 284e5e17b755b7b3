"""The ``players`` roster (``pipelines.steps.roster``): one rule for which declaration of
``match_start.players`` (events.md) wins, checked against a plain-Python reading of it, and the
same name for a renamed player in the dashboards and in ``gdan`` after a real pipeline run."""

from __future__ import annotations

import csv
import io
import json
import shutil
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import duckdb
import pyarrow as pa
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from dashboards.queries import players as player_queries
from dashboards.roster import with_names
from gdan import app
from pipelines.run.runner import run_pipeline
from pipelines.steps.roster import DECLARATION_LINES, DECLARATIONS, compute, store_lines
from pipelines.steps.transactions import ingest_step
from pipelines.storage.store import Store
from pipelines.storage.warehouse import connect
from schemas.tables import MATCHES, RAW_EVENTS
from simulator import simulate_to_dir

T0 = datetime(2026, 6, 18, 8, 0, tzinfo=UTC)

Declaration = dict[str, dict[str, str | None]]


def _start(
    match: str, players: Declaration, *, line: int, file: str = "a.jsonl", hour: int = 0
) -> dict[str, Any]:
    """A raw_events row of a match_start declaring ``players``, ingested ``hour`` hours after T0."""
    event = {"v": 1, "match": match, "seq": 0, "type": "match_start", "players": players}
    return {
        "source_file": file,
        "line_no": line,
        "match_id": match,
        "seq": 0,
        "type": "match_start",
        "payload": json.dumps(event),
        "content_hash": f"{file}:{line}",
        "ingested_at": T0 + timedelta(hours=hour),
    }


def _roster(raw: list[dict[str, Any]], started: dict[str, datetime | None]) -> dict[str, dict[str, Any]]:
    """``compute`` over raw_events rows and the matches' start times (a match missing from
    ``started`` has no matches row: not replayed yet)."""
    con = duckdb.connect()
    matches = [{"match_id": m, "status": "valid", "started_at": t} for m, t in started.items()]
    for name, rows, schema in (("raw_events", raw, RAW_EVENTS), ("matches", matches, MATCHES)):
        full = [{f.name: r.get(f.name) for f in schema} for r in rows]
        con.register(name, pa.Table.from_pylist(full, schema=schema))
    return {r["player_id"]: r for r in compute(con).to_pylist()}


def test_the_latest_match_wins_by_start_time_then_by_match_id() -> None:
    raw = [
        _start("m9", {"p1": {"name": "Old", "club": "Red"}}, line=1),
        _start("m1", {"p1": {"name": "New", "club": "Blue"}}, line=2),
        _start("m3", {"p2": {"name": "Lower id", "club": None}}, line=3),
        _start("m4", {"p2": {"name": "Greater id"}}, line=4),
        _start("m0", {"p1": {"name": "Not replayed"}, "p3": {"name": "Only undated"}}, line=5),
    ]
    started = {"m9": T0, "m1": T0 + timedelta(days=1), "m3": T0, "m4": T0}
    roster = _roster(raw, started)
    # m1 started after m9: its name wins although its id is smaller; the club comes with it.
    assert (roster["p1"]["name"], roster["p1"]["club"], roster["p1"]["declared_in"]) == ("New", "Blue", "m1")
    # m0 has no start time yet: it counts as the earliest match.
    assert roster["p1"]["matches"] == 3
    assert (roster["p1"]["first_seen"], roster["p1"]["last_seen"]) == (T0, T0 + timedelta(days=1))
    # Same start time: the greater match id wins, and its declaration as a whole (no club).
    assert (roster["p2"]["name"], roster["p2"]["club"]) == ("Greater id", None)
    assert (roster["p3"]["name"], roster["p3"]["first_seen"], roster["p3"]["last_seen"]) == (
        "Only undated",
        None,
        None,
    )


def test_a_match_start_delivered_twice_counts_once_with_its_first_copy() -> None:
    raw = [
        _start("m1", {"p1": {"name": "First copy"}}, line=1, file="b.jsonl", hour=1),
        _start("m1", {"p1": {"name": "Later copy"}}, line=1, file="a.jsonl", hour=2),
        {
            "source_file": "a.jsonl",
            "line_no": 2,
            "payload": "{not json",
            "content_hash": "x",
            "parse_error": "not JSON",
            "ingested_at": T0,
        },
    ]
    roster = _roster(raw, {"m1": T0})
    assert list(roster) == ["p1"]
    assert (roster["p1"]["name"], roster["p1"]["matches"]) == ("First copy", 1)


names = st.none() | st.sampled_from(["Ann", "Bo", "Cy"])
declarations = st.dictionaries(
    st.sampled_from(["p1", "p2", "p3"]), st.fixed_dictionaries({"name": names, "club": names}), max_size=3
)
match_ids = st.sampled_from([f"m{i}" for i in range(5)])


@settings(max_examples=60, deadline=None)
@given(
    starts=st.lists(st.tuples(match_ids, declarations), max_size=8),
    times=st.dictionaries(match_ids, st.none() | st.integers(0, 2)),
)
def test_the_roster_equals_a_plain_reading_of_the_rule(
    starts: list[tuple[str, Declaration]], times: dict[str, int | None]
) -> None:
    """Any declarations, repeated deliveries, start-time ties and undated matches."""
    raw = [_start(m, players, line=i, hour=i) for i, (m, players) in enumerate(starts)]
    started = {m: None if h is None else T0 + timedelta(hours=h) for m, h in times.items()}
    first: dict[str, Declaration] = {}
    for m, players in starts:
        first.setdefault(m, players)
    expected: dict[str, tuple[Any, ...]] = {}
    for player in {p for players in first.values() for p in players}:
        declaring = [m for m, players in first.items() if player in players]
        latest = max(declaring, key=lambda m: (started.get(m) is not None, started.get(m) or T0, m))
        seen = [started[m] for m in declaring if started.get(m) is not None]
        expected[player] = (
            first[latest][player]["name"],
            first[latest][player]["club"],
            latest,
            len(declaring),
            min(seen, default=None),
            max(seen, default=None),
        )
    got = {
        p: (r["name"], r["club"], r["declared_in"], r["matches"], r["first_seen"], r["last_seen"])
        for p, r in _roster(raw, started).items()
    }
    assert got == expected


# --- a renamed player after a real pipeline run -------------------------------------------------

RENAMED = "Renamed Player"


@pytest.fixture(scope="module")
def renamed_store(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str, str]:
    """A store of simulated matches where one player's name changes in the latest match.

    Returns the store, the player id and the name of the player's earlier declarations.
    """
    root = tmp_path_factory.mktemp("renamed_store")
    inbox = Store(root).inbox
    simulate_to_dir(inbox, kind="matches", matches=3, players=4, format="deals:1", seed=5)
    lines = [
        (path, json.loads(line))
        for path in sorted(inbox.rglob("*.jsonl"))
        for line in path.read_text().splitlines()
    ]
    starts = sorted((e for _, e in lines if e["type"] == "match_start"), key=lambda e: (e["t"], e["match"]))
    latest = starts[-1]
    player = sorted(latest["players"])[0]
    before = starts[0]["players"][player]["name"]
    assert before != RENAMED
    latest["players"][player]["name"] = RENAMED
    for path in {p for p, _ in lines}:
        path.write_text("".join(json.dumps(e) + "\n" for p, e in lines if p == path))
    run_pipeline(root, workers=1)
    return root, player, before


def test_dashboards_and_cli_show_the_latest_name(renamed_store: tuple[Path, str, str]) -> None:
    root, player, before = renamed_store
    con = connect(root)
    roster = player_queries.players(con)
    assert roster.set_index("player_id").loc[player, "name"] == RENAMED
    board = with_names(player_queries.leaderboard(con), roster).set_index("player_id")
    assert board.loc[player, "name"] == RENAMED
    runner = CliRunner()
    ratings = runner.invoke(app, ["ratings", "-f", "csv", "--store", str(root)])
    assert ratings.exit_code == 0, ratings.output
    assert {r["player_id"]: r["name"] for r in csv.DictReader(io.StringIO(ratings.stdout))}[player] == RENAMED
    by_old_name = runner.invoke(app, ["dan", before, "-f", "json", "--store", str(root)])
    by_new_name = runner.invoke(app, ["dan", RENAMED, "-f", "json", "--store", str(root)])
    assert by_new_name.exit_code == 0, by_new_name.output
    assert by_old_name.exit_code != 0


# --- declarations recorded at ingest --------------------------------------------------------------

def test_ingest_remembers_each_raw_file_s_declarations_as_a_parse_of_the_file_gives(tmp_path: Path) -> None:
    """After an ingest the roster's memory names every ``raw_events`` file, with the lines a parse
    of the files gives (so the roster step reads no raw payloads); a correction and a malformed
    line are among them."""
    store = Store(tmp_path)
    simulate_to_dir(store.inbox, kind="matches", matches=3, players=4, format="deals:1", seed=5)
    first = next(e for e in map(json.loads, next(store.inbox.rglob("*.jsonl")).read_text().splitlines())
                 if e["type"] == "match_start")
    renamed = {p: {"name": f"Fixed {p}", "club": None} for p in first["players"]}
    fix = {**first, "revision": 2, "players": renamed}
    (store.inbox / "fix.jsonl").write_text(json.dumps(fix) + "\n{not json\n")
    ingest_step(store, workers=1)

    folder = store.table_path("raw_events")
    files = sorted(Path(f).relative_to(folder).as_posix() for f in store.data_files("raw_events"))
    keys = [("file", "ascending"), ("line_no", "ascending"), ("source_file", "ascending")]
    remembered = store.read_memory(DECLARATIONS, DECLARATION_LINES, latest=True).sort_by(keys)
    assert sorted(set(remembered["file"].to_pylist())) == files
    shutil.rmtree(store.memory_path(DECLARATIONS))
    con = duckdb.connect()
    try:
        store_lines(store, con)
    finally:
        con.close()
    parsed = store.read_memory(DECLARATIONS, DECLARATION_LINES, latest=True).sort_by(keys)
    assert remembered.to_pylist() == parsed.to_pylist()
    assert any(r["revision"] == 2 for r in remembered.to_pylist())
