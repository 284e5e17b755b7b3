"""Times in the event's local time: matches logged in Beijing late in the evening and
after midnight, and one logged in UTC−05:00, run through the real pipeline. Each is shown at its
own clock with its offset (``2026-06-18 23:30 (UTC+08:00)``), counted on its local day, found by a
date filter on its local day, and printed in its local time (schemas/times.py, events.md ``t``)."""

from __future__ import annotations

import csv
import io
import sys
from collections.abc import Iterator
from datetime import UTC, date, datetime, timedelta
from pathlib import Path
from typing import Any

import duckdb
import orjson
import pandas as pd
import pytest
from openpyxl import load_workbook
from streamlit.testing.v1 import AppTest

from dashboards.queries.coach import coach_deal_record, coach_match_list
from dashboards.queries.overview import matches_per_day, overview_totals
from dashboards.queries.quality import incomplete_matches
from dashboards.queries.replayer import find_matches, match_deals
from dashboards.queries.seats import SeatFilters, coach_options
from dashboards.queries.tournament import round_results
from pipelines.reads.printout_documents import player_document
from pipelines.run.runner import run_pipeline
from pipelines.storage.store import Store
from pipelines.storage.warehouse import connect
from printouts import to_csv, to_xlsx

sys.path.insert(0, str(Path(__file__).parents[1] / "replay"))
from dash_app import APP, SCRIPT_TIMEOUT_S
from replay_builder import Log

MATCHES: dict[str, str] = {
    "late": "2026-06-18T23:30:00+08:00",  # 15:30 UTC, the same day: the clock differs
    "midnight": "2026-06-19T00:30:00+08:00",  # 16:30 UTC on 06-18: the day differs
    "west": "2026-06-18T22:00:00-05:00",  # 03:00 UTC on 06-19: the day differs the other way
}
"""Each match's ``match_start.t``; the later events follow a second apart."""

SHOWN = {
    "late": "2026-06-18 23:30 (UTC+08:00)",
    "midnight": "2026-06-19 00:30 (UTC+08:00)",
    "west": "2026-06-18 22:00 (UTC-05:00)",
}
LOCAL_DAY = {"late": date(2026, 6, 18), "midnight": date(2026, 6, 19), "west": date(2026, 6, 18)}
PLAYER = "pE"  # the builder's East player, in every match


UNFINISHED = "2026-06-18T23:50:00+08:00"
"""``match_start.t`` of a match whose ``match_end`` has not arrived (incomplete)."""


def _match(match_id: str, t0: str, table: int) -> list[dict[str, Any]]:
    """A valid one-deal match of event ``ev-local`` stamped from ``t0`` on (events.md ``t``)."""
    log = Log(
        match=match_id,
        format={"kind": "deals", "deals": 1},
        event={"id": "ev-local", "name": "Local time open", "round": 1, "table": str(table)},
    )
    log.deal(leader="E", seed=table)
    log.play_out(["E", "N", "W"], leader="E")
    log.end_deal()
    log.end("deals", "EW")
    start = datetime.fromisoformat(t0)
    for ev in log.events:
        ev["t"] = (start + timedelta(seconds=int(ev["seq"]))).isoformat()
    return log.events


@pytest.fixture(scope="module")
def local_store(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("local_store")
    inbox = Store(root).inbox
    inbox.mkdir(parents=True, exist_ok=True)
    lines = [
        orjson.dumps(ev)
        for table, (match_id, t0) in enumerate(MATCHES.items(), start=1)
        for ev in _match(match_id, t0, table)
    ]
    lines += [orjson.dumps(ev) for ev in _match("unfinished", UNFINISHED, 9)[:-1]]
    (inbox / "local.jsonl").write_bytes(b"\n".join(lines) + b"\n")
    run_pipeline(root, workers=1)
    return root


@pytest.fixture
def con(local_store: Path) -> Iterator[duckdb.DuckDBPyConnection]:
    connection = connect(local_store)
    yield connection
    connection.close()


def test_matches_keep_the_offset_of_match_start(con: duckdb.DuckDBPyConnection) -> None:
    """README Tables, matches.utc_offset_min: minutes east of UTC; started_at stays the instant."""
    got = {
        m: (off, start)
        for m, off, start in con.execute(
            "SELECT match_id, utc_offset_min, started_at FROM matches"
        ).fetchall()
    }
    assert {m: off for m, (off, _) in got.items()} == {"late": 480, "midnight": 480, "west": -300}
    assert got["late"][1] == datetime(2026, 6, 18, 15, 30, tzinfo=UTC)
    assert got["west"][1] == datetime(2026, 6, 19, 3, 0, tzinfo=UTC)


def test_the_match_list_shows_each_match_at_its_own_clock(con: duckdb.DuckDBPyConnection) -> None:
    games = coach_match_list(con, player=PLAYER).set_index("match_id")
    assert games["started"].to_dict() == SHOWN


@pytest.mark.parametrize("match_id", sorted(MATCHES))
def test_a_date_filter_on_the_local_day_finds_the_match(
    con: duckdb.DuckDBPyConnection, match_id: str
) -> None:
    """Both ends of the range are local days, included; the UTC day of the match, when it is
    another day, does not find it."""
    day = LOCAL_DAY[match_id]
    that_day = SeatFilters(start=day, end=day)
    found = set(coach_match_list(con, player=PLAYER, filters=that_day)["match_id"])
    assert match_id in found
    assert found == {m for m, d in LOCAL_DAY.items() if d == day}
    utc_day = datetime.fromisoformat(MATCHES[match_id]).astimezone(UTC).date()
    if utc_day != day:
        found = coach_match_list(
            con, player=PLAYER, filters=SeatFilters(start=utc_day, end=utc_day)
        )["match_id"]
        assert match_id not in set(found)
    record = coach_deal_record(con, player=PLAYER, filters=that_day).iloc[0]
    assert record["deals"] == sum(d == day for d in LOCAL_DAY.values())  # one deal a match


def test_days_and_ranges_are_local(con: duckdb.DuckDBPyConnection) -> None:
    per_day = matches_per_day(con)
    counts = {pd.Timestamp(d).date(): int(n) for d, n in zip(per_day["day"], per_day["n"], strict=True)}
    assert counts == {date(2026, 6, 18): 2, date(2026, 6, 19): 1}
    for row in (coach_options(con).iloc[0], overview_totals(con).iloc[0]):
        days = (pd.Timestamp(row["first_day"]).date(), pd.Timestamp(row["last_day"]).date())
        assert days == (date(2026, 6, 18), date(2026, 6, 19))


def test_round_results_and_replayer_header_times(con: duckdb.DuckDBPyConnection) -> None:
    results = round_results(con, event="ev-local").set_index("match_id")
    assert results["started"].to_dict() == SHOWN
    found = find_matches(con, search="").set_index("match_id")
    assert found["started"].to_dict() == SHOWN
    deals = match_deals(con, match="midnight")
    assert deals["started"].tolist() == ["2026-06-19 00:30 (UTC+08:00)"]  # deal_start is seq 1: 00:30:01


def test_an_incomplete_match_is_shown_in_its_local_time(con: duckdb.DuckDBPyConnection) -> None:
    """Data quality: the match's start and its rows' arrival in the offset of its match_start."""
    (row,) = incomplete_matches(con).to_dict("records")
    assert row["match_id"] == "unfinished"
    assert row["started"] == "2026-06-18 23:50 (UTC+08:00)"
    assert row["last_ingested_at"].endswith("(UTC+08:00)")
    assert row["age_hours"] >= 0


def test_the_player_printout_shows_local_times(con: duckdb.DuckDBPyConnection) -> None:
    document = player_document(con, [PLAYER], None)
    rows = list(csv.reader(io.StringIO(to_csv(document).decode("utf-8"))))
    header = rows[0]
    printed = {r[header.index("date")] for r in rows[1:] if r and r[0] != header[0]}
    assert set(SHOWN.values()) <= printed
    assert "UTC+08:00" in document.subtitle and "UTC-05:00" in document.subtitle
    assert "China time" not in document.subtitle
    book = load_workbook(io.BytesIO(to_xlsx(document)))  # Excel has no zones: the local clock
    cells = {c.value for ws in book.worksheets for row in ws.iter_rows() for c in row}
    clocks = {datetime(2026, 6, 18, 23, 30), datetime(2026, 6, 19, 0, 30), datetime(2026, 6, 18, 22, 0)}
    assert clocks <= cells


def _open(monkeypatch: pytest.MonkeyPatch, store: Path, page: str, **params: str) -> AppTest:
    monkeypatch.setenv("GDAN_STORE", str(store))
    at = AppTest.from_file(str(APP), default_timeout=SCRIPT_TIMEOUT_S)
    at.query_params.update(params)
    at.run()
    if page != "overview":
        at.switch_page(f"views/{page}.py").run()
    assert not at.exception, [e.message for e in at.exception]
    return at


def _cells(at: AppTest) -> set[str]:
    return {str(v) for frame in at.dataframe for v in frame.value.to_numpy().ravel()}


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_player_page_lists_local_times_and_filters_local_days(
    monkeypatch: pytest.MonkeyPatch, local_store: Path, lang: str
) -> None:
    at = _open(monkeypatch, local_store, "player", player=PLAYER, lang=lang)
    assert set(SHOWN.values()) <= _cells(at)
    one_day = {"from": "2026-06-19", "to": "2026-06-19"}
    at = _open(monkeypatch, local_store, "player", player=PLAYER, lang=lang, **one_day)
    cells = _cells(at)
    assert SHOWN["midnight"] in cells
    assert SHOWN["late"] not in cells and SHOWN["west"] not in cells


def test_overview_and_replayer_show_local_days_and_times(
    monkeypatch: pytest.MonkeyPatch, local_store: Path
) -> None:
    at = _open(monkeypatch, local_store, "overview")
    assert any("2026-06-18 → 2026-06-19" in c.value for c in at.caption)
    at = _open(monkeypatch, local_store, "replayer", match="west", deal="1")
    assert any("Match started: 2026-06-18 22:00 (UTC-05:00)" in c.value for c in at.caption)
