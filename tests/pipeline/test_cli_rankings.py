"""`gdan standings`, `gdan dan` and `gdan ratings` on the simulated store (scoring.md §S5–§S7).

Each command's output is checked against the scoring table it reads, queried directly. Times are
the local time of their match with its offset (schemas/times.py; the sample is logged at UTC+08:00).
"""

from __future__ import annotations

import csv
import io
import json
from datetime import datetime
from pathlib import Path
from typing import Any

import duckdb
import pytest
from hypothesis import given
from hypothesis import strategies as st
from typer.testing import CliRunner, Result

from gdan import app
from gdan.rankings import _suggest, _tie_break_columns
from pipelines.storage.warehouse import connect
from schemas.times import local_time, time_label

runner = CliRunner()
SWISS = "national-swiss-s11"
LEAGUE = "bcta-league-s12"
"""The sample's events (tests/conftest.py: a national Swiss tournament and a bcta league)."""


def _gdan(store: Path, *args: str) -> Result:
    return runner.invoke(app, [*args, "--store", str(store)], env={"COLUMNS": "250"})


def _csv(result: Result) -> list[dict[str, str]]:
    assert result.exit_code == 0, result.output
    return list(csv.DictReader(io.StringIO(result.stdout)))


def _json(result: Result) -> Any:
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


def _sql(store: Path, query: str, params: list[Any] | None = None) -> list[tuple[Any, ...]]:
    con = connect(store)
    try:
        return con.execute(query, params or []).fetchall()
    finally:
        con.close()


# --- standings (§S7) ----------------------------------------------------------------------------

@pytest.mark.parametrize(
    ("ruleset", "primary", "chain"),
    [
        # §S7 `national` Art. 49: two tied with head-to-head, 3+ tied without (rounds drawn excluded).
        ("national", "match_points",
         ["level_points", "head_to_head", "wins", "raw_level_diff", "opponents_score", "previous_rank"]),
        # §S7 `huaian` Art. 26–27.
        ("huaian", "match_points", ["level_points", "tied_level_points", "opponents_level_points"]),
        # §S7 `jiangsu`.
        ("jiangsu", "match_points", ["level_points", "levels_gained"]),
        # §S4/§S7 `bcta` (policy): total BCTA round score, then the national chain.
        ("bcta", "bcta_round_score",
         ["level_points", "head_to_head", "wins", "raw_level_diff", "opponents_score", "previous_rank"]),
        # Rulesets without their own chain rank like `national`.
        ("njupt", "match_points",
         ["level_points", "head_to_head", "wins", "raw_level_diff", "opponents_score", "previous_rank"]),
    ],
)
def test_tie_break_columns_follow_each_rulesets_chain(ruleset: str, primary: str, chain: list[str]) -> None:
    assert _tie_break_columns(ruleset) == (primary, chain)


def test_an_events_own_chain_from_the_overrides_file_orders_the_columns(sim_store: Path,
                                                                       tmp_path: Path) -> None:
    overrides = tmp_path / "events.toml"
    overrides.write_text(f'[{SWISS}]\nbase = "jiangsu"\n')
    header = _gdan(sim_store, "standings", "-e", SWISS, "--overrides", str(overrides), "-f", "csv"
                   ).stdout.splitlines()[0].split(",")
    assert header[header.index("match_points"):] == ["match_points", "level_points", "levels_gained",
                                                     "deducted_match_points", "deducted_level_points",
                                                     "decided_by"]


def test_without_event_lists_events_with_rounds_and_ruleset(sim_store: Path) -> None:
    rows = _csv(_gdan(sim_store, "standings", "-f", "csv"))
    listed = {(r["event_id"], r["stage"], r["rules"], int(r["rounds"]), int(r["entries"])) for r in rows}
    expected = _sql(sim_store, "SELECT s.event_id, s.stage, any_value(m.rules), max(s.after_round), "
                               "count(DISTINCT s.team_id) FROM standings s JOIN match_scores m "
                               "ON m.event_id = s.event_id AND m.stage = s.stage GROUP BY ALL")
    assert listed == set(expected)
    assert {SWISS, LEAGUE} <= {r["event_id"] for r in rows}


def test_standings_default_to_the_last_round_in_the_tables_rank_order(sim_store: Path) -> None:
    rows = _csv(_gdan(sim_store, "standings", "--event", SWISS, "-f", "csv"))
    expected = _sql(sim_store, "SELECT rank, team_id, decided_by FROM standings WHERE event_id = ? AND "
                               "after_round = (SELECT max(after_round) FROM standings WHERE event_id = ?) "
                               "ORDER BY rank, team_id", [SWISS, SWISS])
    assert [(int(r["rank"]), r["team_id"], r["decided_by"] or None) for r in rows] == expected
    assert len(rows) == 8


def test_standings_csv_header_has_every_tie_break_column_in_chain_order(sim_store: Path) -> None:
    header = _gdan(sim_store, "standings", "-e", SWISS, "-f", "csv").stdout.splitlines()[0].split(",")
    assert header == ["rank", "team_id", "player_1", "player_2", "rounds", "draws", "losses", "byes",
                      "match_points", "level_points", "head_to_head", "wins", "raw_level_diff",
                      "opponents_score", "previous_rank", "deducted_match_points", "deducted_level_points",
                      "decided_by"]
    bcta = _gdan(sim_store, "standings", "-e", LEAGUE, "-f", "csv").stdout.splitlines()[0].split(",")
    assert bcta[bcta.index("byes") + 1] == "bcta_round_score"


def test_standings_after_a_chosen_round_match_the_table(sim_store: Path) -> None:
    rows = _json(_gdan(sim_store, "standings", "-e", LEAGUE, "--round", "1", "-f", "json"))
    expected = _sql(sim_store, "SELECT rank, team_id, bcta_round_score, level_points FROM standings "
                               "WHERE event_id = ? AND after_round = 1 ORDER BY rank, team_id", [LEAGUE])
    assert [(r["rank"], r["team_id"], r["bcta_round_score"], r["level_points"]) for r in rows] == expected


def test_decided_by_is_empty_exactly_for_first_place_and_shared_ranks(sim_store: Path) -> None:
    for event in (SWISS, LEAGUE):
        rows = _json(_gdan(sim_store, "standings", "-e", event, "-f", "json"))
        previous = [None, *(r["rank"] for r in rows[:-1])]
        for row, above in zip(rows, previous, strict=True):
            assert (row["decided_by"] is None) == (above is None or above == row["rank"]), row


def test_standings_table_names_the_round_the_rules_and_the_chain(sim_store: Path) -> None:
    result = _gdan(sim_store, "standings", "-e", SWISS)
    assert result.exit_code == 0, result.output
    text = " ".join(result.stdout.split())
    assert "after round 3 of 3" in text and "rules national" in text
    assert "ranked by match_points, then level_points › head_to_head › wins" in text
    assert "decided by" in result.stdout and "H2H" in result.stdout
    lines = [ln.split() for ln in result.stdout.splitlines() if "+" in ln]
    assert [cells[0] for cells in lines] == [str(r) for r in range(1, 9)]


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["-e", "national-swis"], f"unknown event 'national-swis'; did you mean: {SWISS}"),
        (["-e", "nope"], f"known: {LEAGUE}, {SWISS}"),
        (["-e", SWISS, "--stage", "final"], "unknown stage of national-swiss-s11 'final'"),
        (["-e", SWISS, "--round", "9"], "no standings after round 9; rounds: 1, 2, 3"),
        (["--round", "2"], "--stage and --round need --event"),
    ],
)
def test_bad_standings_arguments_exit_1_with_a_message(sim_store: Path, args: list[str],
                                                        message: str) -> None:
    result = _gdan(sim_store, "standings", *args)
    assert result.exit_code == 1
    assert message in " ".join(result.stderr.split())
    assert result.stdout == ""


# --- amateur dan (§S5) --------------------------------------------------------------------------

def test_dan_lists_every_player_by_dan_then_points(sim_store: Path) -> None:
    rows = _csv(_gdan(sim_store, "dan", "-f", "csv"))
    expected = _sql(sim_store, "SELECT player_id, dan, points FROM dan_current "
                               "ORDER BY dan DESC, points DESC, player_id")
    assert [(r["player_id"], int(r["dan"]), int(r["points"])) for r in rows] == expected
    assert all(r["name"] for r in rows)


def test_dan_of_one_player_has_the_ledger_in_time_order(sim_store: Path) -> None:
    (player,) = _sql(sim_store, "SELECT player_id FROM dan_current "
                                "ORDER BY rounds DESC, player_id LIMIT 1")[0]
    data = _json(_gdan(sim_store, "dan", player, "-f", "json"))
    ledger = _sql(sim_store, "SELECT seq, points_earned, counted FROM dan_ledger WHERE player_id = ? "
                             "ORDER BY seq", [player])
    assert [(r["seq"], r["points_earned"], r["counted"]) for r in data["ledger"]] == ledger
    assert data["current"]["player_id"] == player
    assert data["ledger"][-1]["total_after"] == data["current"]["points"]
    rows = _csv(_gdan(sim_store, "dan", player, "-f", "csv"))
    assert [int(r["seq"]) for r in rows] == [s for s, _, _ in ledger]


def test_dan_table_of_one_player_shows_progress_and_the_ledger(sim_store: Path) -> None:
    (player, progress) = _sql(sim_store, "SELECT player_id, progress FROM dan_current "
                                         "ORDER BY player_id LIMIT 1")[0]
    result = _gdan(sim_store, "dan", player)
    assert result.exit_code == 0, result.output
    assert f"dan ledger of {player}" in result.stdout and f"{progress:.1%}" in result.stdout


def test_dan_finds_a_player_by_name(sim_store: Path) -> None:
    names = [r for r in _csv(_gdan(sim_store, "dan", "-f", "csv"))]
    player = next(r for r in names if sum(n["name"] == r["name"] for n in names) == 1)
    rows = _csv(_gdan(sim_store, "dan", player["name"].upper(), "-f", "csv"))
    assert rows and rows == _csv(_gdan(sim_store, "dan", player["player_id"], "-f", "csv"))


def test_dan_close_lists_the_highest_progress_first(sim_store: Path) -> None:
    rows = _csv(_gdan(sim_store, "dan", "--close", "-f", "csv"))
    progress = [float(r["progress"]) for r in rows]
    assert len(rows) == 10 and progress == sorted(progress, reverse=True)
    (best,) = _sql(sim_store, "SELECT max(progress) FROM dan_current WHERE next_dan IS NOT NULL")[0]
    assert progress[0] == pytest.approx(best)
    assert all(int(r["needed_per_round"]) * int(r["rounds_left"]) >= int(r["points_to_next"]) for r in rows)
    assert len(_csv(_gdan(sim_store, "dan", "--close", "--top", "3", "-f", "csv"))) == 3


def test_dan_of_a_player_without_bcta_rounds_says_so(sim_store: Path) -> None:
    (player,) = _sql(sim_store, "SELECT DISTINCT player_id FROM player_matches WHERE player_id NOT IN "
                                "(SELECT player_id FROM dan_current) ORDER BY 1 LIMIT 1")[0]
    result = _gdan(sim_store, "dan", player)
    assert result.exit_code == 0
    assert f"no amateur dan rounds (bcta rules, §S5) for: {player}" in result.stderr


def test_dan_of_an_unknown_player_exits_1_with_close_ids(sim_store: Path) -> None:
    result = _gdan(sim_store, "dan", "p001")
    assert result.exit_code == 1
    assert "unknown player 'p001'; did you mean: p0010" in result.stderr


# --- ratings ------------------------------------------------------------------------------------

def test_ratings_top_n_is_the_leaderboard_head(sim_store: Path) -> None:
    rows = _csv(_gdan(sim_store, "ratings", "--top", "5", "-f", "csv"))
    expected = _sql(sim_store, "SELECT player_id, rating FROM ratings ORDER BY rating DESC, mu DESC, "
                               "player_id LIMIT 5")
    assert [(r["player_id"], float(r["rating"])) for r in rows] == expected
    assert [int(r["rank"]) for r in rows] == [1, 2, 3, 4, 5]
    assert list(rows[0]) == ["rank", "player_id", "name", "club", "rating", "mu", "sigma", "provisional",
                             "rounds", "deals", "last_played"]


def test_ratings_min_rounds_and_club_filter(sim_store: Path) -> None:
    (most,) = _sql(sim_store, "SELECT max(rounds) FROM ratings")[0]
    rows = _json(_gdan(sim_store, "ratings", "--top", "0", "--min-rounds", str(most), "-f", "json"))
    assert rows and all(r["rounds"] >= most for r in rows)
    assert len(rows) == _sql(sim_store, "SELECT count(*) FROM ratings WHERE rounds >= ?", [most])[0][0]
    club = _json(_gdan(sim_store, "ratings", "--top", "0", "-f", "json"))[0]["club"]
    members = _json(_gdan(sim_store, "ratings", "--top", "0", "--club", club.lower(), "-f", "json"))
    assert members and {r["club"] for r in members} == {club}
    assert [r["rank"] for r in members] == list(range(1, len(members) + 1))


def test_ratings_of_an_unknown_club_exits_1_with_close_clubs(sim_store: Path) -> None:
    club = _json(_gdan(sim_store, "ratings", "--top", "1", "-f", "json"))[0]["club"]
    result = _gdan(sim_store, "ratings", "--club", club.split()[0])
    assert result.exit_code == 1
    assert f"did you mean: {club}" in " ".join(result.stderr.split())


def test_ratings_table_flags_provisional_ratings(sim_store: Path) -> None:
    result = _gdan(sim_store, "ratings", "--top", "3")
    assert result.exit_code == 0, result.output
    assert "provisional" in result.stdout and "mu − k·sigma" in result.stdout
    top = _sql(sim_store, "SELECT player_id, provisional FROM ratings ORDER BY rating DESC, mu DESC, "
                          "player_id LIMIT 3")
    text = result.stdout.splitlines()
    header = next(ln for ln in text if "provisional" in ln and "rank" in ln)
    rows = {ln.split()[1]: ln for ln in text if ln.split()[:1] in (["1"], ["2"], ["3"])}
    assert list(rows) == [p for p, _ in top]
    for player, provisional in top:
        assert rows[player][header.index("provisional"):].split()[0] == ("yes" if provisional else "no")


@pytest.mark.parametrize(
    ("args", "kept", "hidden"),
    [
        (["standings", "-e", SWISS], ["rank", "team_id", "MP", "decided by"], ["byes", "draws"]),
        (["dan"], ["player_id", "name", "dan", "points", "progress", "rounds left"], ["last played"]),
        (["ratings"], ["rank", "player_id", "name", "rating"], ["last played", "deals"]),
    ],
)
def test_a_narrow_terminal_hides_whole_columns_and_says_which(sim_store: Path, args: list[str],
                                                               kept: list[str], hidden: list[str]) -> None:
    """At 80 columns no cell is cut short (the table is cut by columns, least useful first, the
    identifying and deciding ones kept) and stderr names what is hidden; a wide terminal shows all."""
    narrow = runner.invoke(app, [*args, "--store", str(sim_store)], env={"COLUMNS": "80"})
    assert narrow.exit_code == 0, narrow.output
    assert "…" not in narrow.stdout
    assert max(len(ln) for ln in narrow.stdout.splitlines()) <= 80
    header = next(ln for ln in narrow.stdout.splitlines() if kept[0] in ln.split())
    assert all(k in header for k in kept), header
    note = " ".join(narrow.stderr.split())
    assert "hidden to fit 80 characters" in note and all(h in note for h in hidden), note
    wide = _gdan(sim_store, *args)
    assert "hidden" not in wide.stderr
    assert all(h in wide.stdout for h in hidden)


# --- read-only, bad stores, help ----------------------------------------------------------------

def test_commands_never_open_a_database_file(sim_store: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    opened: list[str] = []
    real = duckdb.connect

    def spy(database: str = ":memory:", *args: Any, **kwargs: Any) -> duckdb.DuckDBPyConnection:
        opened.append(str(database))
        return real(database, *args, **kwargs)

    monkeypatch.setattr(duckdb, "connect", spy)
    for args in (["standings", "-e", SWISS], ["dan", "--close"], ["ratings"]):
        assert _gdan(sim_store, *args).exit_code == 0
    assert opened and set(opened) == {":memory:"}


@pytest.mark.parametrize("command", ["standings", "dan", "ratings"])
def test_a_folder_without_tables_exits_1(tmp_path: Path, command: str) -> None:
    result = _gdan(tmp_path, command)
    assert result.exit_code == 1
    assert f"no store at {tmp_path}" in " ".join(result.stderr.split())


@pytest.mark.parametrize(
    ("command", "options"),
    [("standings", ["--event", "--stage", "--round", "--format", "--store"]),
     ("dan", ["--close", "--top", "--format", "--store"]),
     ("ratings", ["--top", "--min-rounds", "--club", "--format", "--store"])],
)
def test_help_describes_each_option(command: str, options: list[str]) -> None:
    result = runner.invoke(app, [command, "--help"], env={"COLUMNS": "200"})
    assert result.exit_code == 0
    assert all(o in result.stdout for o in options)
    assert command in runner.invoke(app, ["--help"], env={"COLUMNS": "200"}).stdout


@given(known=st.lists(st.text(alphabet="abcdefgh-0123", min_size=1, max_size=12), min_size=1, max_size=8,
                      unique=True), data=st.data())
def test_suggest_offers_every_value_containing_the_typed_text(known: list[str], data: st.DataObject) -> None:
    target = data.draw(st.sampled_from(known))
    start = data.draw(st.integers(0, len(target) - 1))
    part = target[start: data.draw(st.integers(start + 1, len(target)))]
    message = _suggest(part, known, "event")
    containing = [k for k in known if part in k]
    assert message.startswith(f"unknown event {part!r}; did you mean: ")
    assert all(k in message for k in containing[:5])


def test_dan_shows_the_promotion_forecast(sim_store: Path) -> None:
    rows = _csv(_gdan(sim_store, "dan", "-f", "csv"))
    forecast = {
        pid: (p, low)
        for pid, p, low in _sql(sim_store, "SELECT player_id, p_promote, low_data FROM dan_forecast")
    }
    assert forecast and {"p_promote", "expected_rounds", "low_data"} <= set(rows[0])
    for row in rows:
        if row["player_id"] in forecast:
            assert float(row["p_promote"]) == pytest.approx(forecast[row["player_id"]][0])
    table = _gdan(sim_store, "dan").stdout
    assert "chance" in table and "rounds to next" in table
    if any(low for _, low in forecast.values()):
        assert "low data" in table


# --- local times (schemas/times.py) ------------------------------------------------------------

_LEDGER_TIMES = """
    SELECT l.player_id, l.started_at, m.utc_offset_min
    FROM dan_ledger l JOIN matches m USING (match_id) ORDER BY l.player_id, l.seq
"""
_RATED_LAST = """
    SELECT r.player_id, r.last_played, arg_max(m.utc_offset_min, (h.started_at, h.match_id))
    FROM ratings r JOIN rating_history h USING (player_id) JOIN matches m ON m.match_id = h.match_id
    GROUP BY ALL
"""


def _local(instant: datetime, minutes: int) -> datetime:
    shown = local_time(instant, minutes)
    assert shown is not None
    return shown


def test_dan_prints_each_rounds_local_time_with_its_offset(sim_store: Path) -> None:
    ledgers: dict[str, list[datetime]] = {}
    for p, t, minutes in _sql(sim_store, _LEDGER_TIMES):
        ledgers.setdefault(p, []).append(_local(t, minutes))
    player = max(sorted(ledgers), key=lambda p: len(ledgers[p]))
    expected = ledgers[player]
    assert {str(t.utcoffset()) for t in expected} == {"8:00:00"}
    ledger = _json(_gdan(sim_store, "dan", player, "-f", "json"))["ledger"]
    assert [r["started_at"] for r in ledger] == [t.isoformat() for t in expected]
    csv_ledger = _csv(_gdan(sim_store, "dan", player, "-f", "csv"))
    assert [r["started_at"] for r in csv_ledger] == [str(t) for t in expected]
    table = _gdan(sim_store, "dan", player).stdout
    assert all(time_label(t) in table for t in expected)  # 2026-03-02 19:30 (UTC+08:00)
    rows = _csv(_gdan(sim_store, "dan", "-f", "csv"))
    assert {r["player_id"]: r["last_played"] for r in rows} == {
        r["player_id"]: str(max(ledgers[r["player_id"]])) for r in rows
    }


def test_ratings_print_the_last_rounds_local_time_with_its_offset(sim_store: Path) -> None:
    expected = {p: _local(t, m) for p, t, m in _sql(sim_store, _RATED_LAST)}
    rows = _json(_gdan(sim_store, "ratings", "--top", "0", "-f", "json"))
    assert {r["player_id"]: r["last_played"] for r in rows} == {p: t.isoformat() for p, t in expected.items()}
    table = _gdan(sim_store, "ratings", "--top", "3").stdout
    assert all(time_label(expected[r["player_id"]]) in table for r in rows[:3])
