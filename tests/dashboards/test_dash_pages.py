"""Every dashboard page through ``streamlit.testing.v1.AppTest``.

On an empty store each page shows the "no data yet" state; on the hand-made store (and on the
pipeline's simulated store once it exists) each page runs without exception and shows its
metrics, charts and tables; widgets change what is shown; every chart has axis titles.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from dash_app import PAGES, SCRIPT_TIMEOUT_S
from streamlit.testing.v1 import AppTest

Open = Callable[[Path, str], AppTest]

EXPECTED: dict[str, tuple[int, int, int]] = {
    # page: minimum (charts, tables, metrics) on a store with data
    "overview": (2, 1, 8),
    "leaderboard": (1, 1, 0),
    "player": (4, 3, 5),
    "head_to_head": (0, 2, 2),
    "dan": (1, 3, 0),
    "tributes": (3, 1, 4),
    "bombs": (4, 1, 5),
    "tournament": (1, 2, 0),
    "entry": (0, 0, 0),
    "replayer": (0, 0, 0),
    "quality": (1, 3, 5),
}


def _charts(at: AppTest) -> list[dict]:
    return [json.loads(c.proto.spec) for c in at.get("plotly_chart")]


def _no_exception(at: AppTest) -> None:
    assert not at.exception, [e.message for e in at.exception]


@pytest.mark.parametrize("page", PAGES)
def test_empty_store_shows_no_data_state(open_app: Open, empty_store: Path, page: str) -> None:
    at = open_app(empty_store, page)
    _no_exception(at)
    if page == "entry":  # a referee starts the store's first event here
        assert at.selectbox(key="en_event").value is not None and at.text_input(key="en_new_id")
    else:
        assert any("No data yet" in i.value for i in at.info)
    assert not at.get("plotly_chart")


@pytest.mark.parametrize("page", PAGES)
def test_page_renders_with_data(open_app: Open, any_store: Path, page: str) -> None:
    """No exception and no empty state; on the hand-made store, every expected element."""
    at = open_app(any_store, page)
    _no_exception(at)
    assert not any("No data yet: run the pipeline" in i.value for i in at.info)
    found = (len(at.get("plotly_chart")), len(at.dataframe), len(at.metric))
    csv_buttons = [b for b in at.get("download_button") if b.proto.label == "Download CSV"]
    assert len(csv_buttons) == len(at.dataframe)  # every table downloads as CSV
    if page == "replayer":
        assert at.get("select_slider")
    elif page == "entry":  # the round's tables to enter, or why there are none and what to do
        assert (
            at.get("segmented_control")
            or any("has no tables yet" in i.value for i in at.info)
            or any("is an individual event" in e.value for e in at.error)  # the simulated league
        )
    elif any_store.name.startswith("mini"):
        assert all(f >= e for f, e in zip(found, EXPECTED[page], strict=True)), found
    else:
        assert sum(found) > 0


@pytest.mark.parametrize("page", PAGES)
def test_every_chart_has_axis_titles(open_app: Open, mini_store: Path, page: str) -> None:
    at = open_app(mini_store, page)
    for spec in _charts(at):
        layout = spec["layout"]
        assert layout["title"]["text"]
        assert layout["xaxis"]["title"]["text"], layout["title"]
        assert layout["yaxis"]["title"]["text"], layout["title"]


def test_overview_counts(open_app: Open, mini_store: Path) -> None:
    at = open_app(mini_store, "overview")
    metrics = {m.label: m.value for m in at.metric}
    assert metrics["Matches"] == "4"
    assert metrics["Deals"] == "6"
    assert metrics["Players"] == "8"
    assert metrics["Valid"] == "2"
    assert metrics["Partial"] == "1"
    assert metrics["Invalid"] == "1"


def test_language_switch_changes_labels(open_app: Open, mini_store: Path) -> None:
    at = open_app(mini_store, "overview")
    at.sidebar.radio(key="lang").set_value("zh").run()
    _no_exception(at)
    assert "概览" in at.title[0].value
    labels = {m.label for m in at.metric}
    assert {"比赛场数", "副数", "有效", "无效"} <= labels


def test_leaderboard_filters_change_rows(open_app: Open, mini_store: Path) -> None:
    at = open_app(mini_store, "leaderboard")
    assert len(at.dataframe[0].value) == 8
    at.selectbox(key="lb_club").set_value("Blue").run()
    assert set(at.dataframe[0].value["club"]) == {"Blue"}
    at.selectbox(key="lb_club").set_value(None).run()
    at.number_input(key="lb_min").set_value(2).run()
    assert len(at.dataframe[0].value) == 4  # p1, p3, p6, p8 played two rounds
    at.selectbox(key="lb_rules").set_value("bcta").run()
    at.number_input(key="lb_min").set_value(0).run()
    assert sorted(at.dataframe[0].value["name"]) == [f"Player {i}" for i in range(5, 9)]


def test_leaderboard_marks_provisional_and_links_players(open_app: Open, mini_store: Path) -> None:
    at = open_app(mini_store, "leaderboard")
    board = at.dataframe[0].value
    assert board.set_index("player_id").loc["p1", "provisional"]
    assert not board.set_index("player_id").loc["p8", "provisional"]
    assert board.set_index("player_id").loc["p8", "link"] == "player?player=p8"


def test_player_page_follows_the_selection(open_app: Open, mini_store: Path) -> None:
    at = open_app(mini_store, "player")
    at.selectbox(key="player_pick").set_value("p5").run()
    _no_exception(at)
    metrics = {m.label: m.value for m in at.metric}
    assert metrics["Dan"] == "1"
    assert metrics["Pro dan"] == "4"
    titles = [s["layout"]["title"]["text"] for s in _charts(at)]
    assert "Dan ledger" in titles
    partner_table = next(df.value for df in at.dataframe if "partner" in df.value.columns)
    assert list(partner_table["partner"]) == ["p7"]


def test_player_page_reads_the_query_parameter(monkeypatch: pytest.MonkeyPatch, mini_store: Path) -> None:
    from dash_app import APP

    monkeypatch.setenv("GDAN_STORE", str(mini_store))
    at = AppTest.from_file(str(APP), default_timeout=SCRIPT_TIMEOUT_S)
    at.query_params["player"] = "p6"
    at.run()
    at.switch_page("views/player.py").run()
    assert at.selectbox(key="player_pick").value == "p6"


def test_player_play_patterns_show_sample_sizes(open_app: Open, mini_store: Path) -> None:
    at = open_app(mini_store, "player")
    at.selectbox(key="player_pick").set_value("p2").run()
    patterns = next(df.value for df in at.dataframe if "player_n" in df.value.columns)
    row = patterns.set_index("metric").loc["接风 jie feng received per deal"]
    assert row["player_value"] == pytest.approx(2 / 2)  # p2 sits N in m1: received 接风 in both deals
    assert row["player_n"] == 2
    assert row["population_n"] == 24


def test_tributes_filter_by_ruleset(open_app: Open, mini_store: Path) -> None:
    at = open_app(mini_store, "tributes")
    assert {m.label: m.value for m in at.metric}["单贡 single"] == "1"
    at.selectbox(key="tr_rules").set_value("bcta").run()
    metrics = {m.label: m.value for m in at.metric}
    assert metrics["单贡 single"] == "0"
    assert metrics["双贡 double"] == "1"


def test_bombs_summary(open_app: Open, mini_store: Path) -> None:
    at = open_app(mini_store, "bombs")
    metrics = {m.label: m.value for m in at.metric}
    assert metrics["四大天王 joker bombs"] == "6"
    assert metrics["同花顺 straight flushes"] == "6"
    at.selectbox(key="bm_rules").set_value("jiangsu").run()
    assert {m.label: m.value for m in at.metric}["四大天王 joker bombs"] == "2"


def test_tournament_standings_have_tie_break_columns(open_app: Open, mini_store: Path) -> None:
    at = open_app(mini_store, "tournament")
    standings = at.dataframe[0].value
    for column in (
        "rank",
        "match_points",
        "level_points",
        "head_to_head",
        "wins",
        "draws",
        "raw_level_diff",
        "opponents_score",
        "previous_rank",
        "decided_by",
    ):
        assert column in standings.columns
    results = at.dataframe[1].value
    assert list(results["match_id"]) == ["replayer?match=m1", "replayer?match=m2"]  # rows open the replayer
    assert list(results["level_diff"]) == [2, 2]  # m1 5 vs 3, m2 2 vs 4 (scoring.md §S1)


def test_replayer_steps_through_a_deal(open_app: Open, mini_store: Path) -> None:
    at = open_app(mini_store, "replayer")
    at.selectbox(key="rp_deal").set_value(2).run()
    slider = at.get("select_slider")[0]
    assert len(slider.options) == 18  # dealt, after tribute, every play and pass
    at.get("select_slider")[0].set_value(len(slider.options) - 1).run()
    _no_exception(at)
    flags = at.dataframe[-1].value
    assert {"overtook_partner", "could_beat", "bomb_class", "reading_inferred", "went_out"} <= set(
        flags.columns
    )
    assert len(flags) == 16


def test_replayer_search_narrows_matches(open_app: Open, mini_store: Path) -> None:
    at = open_app(mini_store, "replayer")
    at.text_input(key="rp_search").set_value("p5").run()
    assert at.selectbox(key="rp_match").options == ["ev1 · Round 1 · Table 2 · m2"]
    at.text_input(key="rp_search").set_value("player 5").run()  # a player's name, as the pickers take
    assert at.selectbox(key="rp_match").options == ["ev1 · Round 1 · Table 2 · m2"]
    assert not any("search to find the others" in c.value for c in at.caption)  # every match listed


def test_quality_filters_by_code(open_app: Open, mini_store: Path) -> None:
    at = open_app(mini_store, "quality")
    metrics = {m.label: m.value for m in at.metric}
    assert metrics["Quarantined input"] == "2"
    assert metrics["Malformed lines"] == "1"
    at.selectbox(key="dq_code").set_value("does_not_beat").run()
    rows = at.dataframe[0].value
    assert list(rows["line_no"]) == [12]
    assert set(at.dataframe[1].value["match_id"]) == {"m3", "m4"}  # partial and invalid (matches)
    incomplete = next(df.value for df in at.dataframe if "last_seq" in df.value.columns)  # no match_end yet
    assert list(incomplete["match_id"]) == ["m5"]
    assert metrics["Incomplete"] == "1"


def test_lang_query_parameter_opens_in_chinese(monkeypatch: pytest.MonkeyPatch, mini_store: Path) -> None:
    from dash_app import APP

    monkeypatch.setenv("GDAN_STORE", str(mini_store))
    at = AppTest.from_file(str(APP), default_timeout=SCRIPT_TIMEOUT_S)
    at.query_params["lang"] = "zh"
    at.run()
    assert "概览" in at.title[0].value


def test_replayer_shows_unknown_hands_of_a_partial_match(open_app: Open, mini_store: Path) -> None:
    """events.md deal_start: a seat may be missing from a one-player log; the match is partial."""
    at = open_app(mini_store, "replayer")
    at.selectbox(key="rp_match").set_value("m3").run()
    _no_exception(at)
    assert any("hand unknown" in m.value for m in at.markdown)
    assert sum(m.value.count("27 Cards") for m in at.markdown) == 3


def test_dan_page_lists_the_promotion_forecast_with_low_data_marked(open_app: Open, mini_store: Path) -> None:
    at = open_app(mini_store, "dan")
    _no_exception(at)
    forecast = next(df.value for df in at.dataframe if "p_promote" in df.value.columns)
    assert list(forecast["player_id"]) == ["p5", "p6 ⚠", "p7 ⚠", "p8 ⚠"]  # likeliest first
    assert "low_data" not in forecast.columns
    assert any("⚠ marks a forecast" in c.value for c in at.caption)


@pytest.mark.parametrize(
    ("lang", "sentence"),
    [
        ("en", "A round counts only if both opponents are of the player's dan."),
        ("zh", "仅两名对手均与本人同段位的比赛计分。"),
    ],
)
def test_dan_rules_state_the_same_dan_rule_in_one_sentence(
    monkeypatch: pytest.MonkeyPatch, mini_store: Path, lang: str, sentence: str
) -> None:
    """The rules' last bullet is one sentence for the policy in force (``same_dan = "both"``), not
    a sentence with "(both opponents)" glued after its full stop."""
    from dash_app import APP

    monkeypatch.setenv("GDAN_STORE", str(mini_store))
    at = AppTest.from_file(str(APP), default_timeout=SCRIPT_TIMEOUT_S)
    at.query_params["lang"] = lang
    at.run().switch_page("views/dan.py").run()
    _no_exception(at)
    rules = next(m.value for m in at.markdown if m.value.startswith("- ") and "\n- " in m.value)
    assert rules.splitlines()[-1] == f"- {sentence}"


def test_every_same_dan_policy_has_its_sentence() -> None:
    from typing import get_args

    from dashboards.i18n import t
    from scoring.params import SameDanPolicy

    for policy in get_args(SameDanPolicy):
        english, chinese = t(f"same_dan_note_{policy}", "en"), t(f"same_dan_note_{policy}", "zh")
        assert english.endswith(".") and english.count(".") == 1 and "(" not in english, policy
        assert chinese.endswith("。") and chinese.count("。") == 1 and "（" not in chinese, policy


def test_player_page_shows_forecast_and_luck(open_app: Open, mini_store: Path) -> None:
    at = open_app(mini_store, "player")
    at.selectbox(key="player_pick").set_value("p6").run()
    _no_exception(at)
    metrics = {m.label: m.value for m in at.metric}
    assert metrics["Chance of promotion → 2"] == "60%"
    assert metrics["Expected rounds to next dan"] == "5.5"
    assert metrics["Levels above expectation"] == "-0.65"
    assert any("Low data" in w.value for w in at.warning)  # p6's forecast rests on 3 rounds
    luck = next(s for s in _charts(at) if s["layout"]["title"]["text"].startswith("Levels above"))
    assert len(luck["data"][0]["x"]) == 8  # the whole population, the player highlighted


def test_player_page_without_forecast_or_luck_says_so(open_app: Open, mini_store: Path) -> None:
    at = open_app(mini_store, "player")
    at.selectbox(key="player_pick").set_value("p1").run()
    _no_exception(at)
    captions = [c.value for c in at.caption]
    assert any("No promotion forecast" in c for c in captions)


def test_tournament_shows_duplicate_standings_and_boards(open_app: Open, mini_store: Path) -> None:
    at = open_app(mini_store, "tournament")
    assert not any("Duplicate" in s.value for s in at.subheader)  # ev1 is no duplicate event
    at.selectbox(key="tn_event").set_value("ev2").run()
    _no_exception(at)
    tables = {tuple(df.value.columns): df.value for df in at.dataframe}
    standings = next(v for k, v in tables.items() if "mp_rate" in k)
    assert list(standings["pair"]) == ["Player 1 / Player 2", "Player 3 / Player 4"]  # names, not ids
    assert list(standings["place_counts"]) == ["1 · 0", "0 · 1"]
    assert list(standings["decided_by"]) == ["", "MP score rate"]
    boards = next(v for k, v in tables.items() if "board" in k)
    assert list(boards["room"]) == ["open", "closed"] and list(boards["mp"]) == [2, 0]
    # §S9: the MP table alone ranks a duplicate event; no match-point standings beside it
    assert not any("match_points" in k or "match_points_EW" in k for k in tables)
    assert any("no match-point standings" in c.value for c in at.caption)


@pytest.mark.parametrize(("page", "files"), [("tournament", 2), ("dan", 1)])
def test_printout_download_buttons(open_app: Open, mini_store: Path, page: str, files: int) -> None:
    """Tournament: standings and round printouts; Dan: the dan ledger; each as xlsx and csv (pdf
    when a Chinese font is installed)."""
    at = open_app(mini_store, page)
    _no_exception(at)
    types = [b.proto.label.rsplit(" · ", 1)[-1] for b in at.get("download_button") if " · " in b.proto.label]
    assert types.count("XLSX") == types.count("CSV") == files
    assert types.count("PDF") in (0, files)


def test_quality_lists_duplicates_file_problems_and_ages(open_app: Open, mini_store: Path) -> None:
    at = open_app(mini_store, "quality")
    _no_exception(at)
    tables = [df.value for df in at.dataframe]
    duplicates = next(t for t in tables if "duplicate_of" in t.columns)
    assert list(duplicates["match_id"]) == ["m3"] and list(duplicates["excluded"]) == ["yes"]
    files = next(t for t in tables if "problem" in t.columns)
    assert list(files["source_file"]) == ["late.jsonl"]  # ok.jsonl's last line arrived later
    assert list(files["problem"]) == ["unfinished last line (waiting for more)"]
    incomplete = next(t for t in tables if "age_hours" in t.columns)
    assert incomplete["age_hours"].iloc[0] > 24


def test_quality_on_a_clean_store_says_nothing_is_quarantined(
    open_app: Open, tmp_path: Path, mini_store: Path
) -> None:
    from pipelines.storage.store import Store

    source, clean = Store(mini_store), Store(tmp_path / "clean")
    for name in ("matches", "raw_events", "players"):
        clean.write_table(name, source.read_table(name))
    clean.publish(clean.snapshot())
    at = open_app(clean.root, "quality")
    _no_exception(at)
    assert any("Nothing quarantined" in s.value for s in at.success)
    assert any("No match repeats" in s.value for s in at.success)
    assert any("read to its end" in s.value for s in at.success)


# --- labels that say what the numbers are ----------------------------------------------------


def _headers(at: AppTest, index: int) -> dict[str, str]:
    """Column id → header of the ``index``-th table (its column config)."""
    config = json.loads(at.dataframe[index].proto.columns or "{}")
    return {k.removeprefix("col:name:"): v.get("label", "") for k, v in config.items()}


def test_tournament_level_points_are_headed_level_points(open_app: Open, mini_store: Path) -> None:
    at = open_app(mini_store, "tournament")
    headers = _headers(at, 0)
    assert headers["level_points"] == "级差分 level points"  # not "级差 level difference"
    assert headers["raw_level_diff"] == "级差 level difference (sum)"


def test_tournament_tables_show_no_raw_ids_or_none(open_app: Open, mini_store: Path) -> None:
    at = open_app(mini_store, "tournament")
    standings, results = at.dataframe[0].value, at.dataframe[1].value
    assert list(standings["decided_by"]) == ["", *["级差分 level points"] * 3]
    assert list(results["winner"]) == ["Team E–W", "Team N–S"]
    assert list(results["status"]) == ["Valid", "Valid"]
    teams = [*results["team_EW"], *results["team_NS"]]
    assert all(re.fullmatch(r"Player \d / Player \d", t) for t in teams), teams  # names, not p1 / p3
    for table in (standings, results):
        text = table.select_dtypes(include=["object", "str"])
        assert not text.isna().any().any() and "None" not in text.astype(str).to_numpy()
    headers = _headers(at, 1)
    assert all(c in headers for c in ("team_EW", "final_level_EW", "end_reason", "deals_played"))


def test_tributes_level_gain_compares_payer_and_receiver(open_app: Open, mini_store: Path) -> None:
    at = open_app(mini_store, "tributes")
    titles = [s["layout"]["title"]["text"] for s in _charts(at)]
    assert "Level gain in the deal after tribute: paying and receiving team" in titles
    gain = next(df.value for df in at.dataframe if "side" in df.value.columns)
    assert set(gain["side"]) <= {"Paid tribute", "Received tribute"}


def test_tribute_cards_name_the_jokers(mini_store: Path) -> None:
    import pandas as pd

    from dashboards import charts

    df = pd.DataFrame({"rank": ["A", "B", "R"], "paid": [1, 2, 3], "returned": [0, 0, 0]})
    for lang, small, big in (("en", "小王 Small joker", "大王 Big joker"), ("zh", "小王", "大王")):
        x = list(charts.tribute_cards(df, lang).data[0].x)
        assert x == ["A", small, big]


def test_player_finish_positions_count_double_losses(open_app: Open, mini_store: Path) -> None:
    at = open_app(mini_store, "player")
    at.selectbox(key="player_pick").set_value("p1").run()  # E in m1 and m3: lost deal 1 双下 twice
    chart = next(s for s in _charts(at) if s["layout"]["title"]["text"] == "Finishing positions")
    assert chart["data"][0]["x"][-1] == "双下 double loss (3rd and 4th)"
    assert any("Deals lost 双下 (both partners last): 2" in c.value for c in at.caption)


def test_percentages_show_as_percentages(open_app: Open, mini_store: Path) -> None:
    at = open_app(mini_store, "player")
    at.selectbox(key="player_pick").set_value("p5").run()
    partner = next(i for i, df in enumerate(at.dataframe) if "partner" in df.value.columns)
    config = json.loads(at.dataframe[partner].proto.columns)
    rate = next(v for k, v in config.items() if k.endswith("win_rate"))
    assert rate["type_config"]["format"] == "percent"


def test_replayer_marks_reviewed_decisions_and_jumps_to_mistakes(open_app: Open, mini_store: Path) -> None:
    """The dash store reviews the last five decisions of m1 deal 2 (seq 21–25: best, a mistake
    (−1), a blunder (−2), a forced pass, best): steps 13–17 of the play-by-play slider (dealt,
    after tribute, then seq 10 …). The verdict names its kind and shows the hand."""
    at = open_app(mini_store, "replayer")
    at.selectbox(key="rp_deal").set_value(2).run()
    slider = at.get("select_slider")[0]
    labels = list(slider.options)
    marked = [label.split()[-1] for label in labels if label.split()[-1] in ("✓", "✗", "✗✗", "·", "~", "=")]
    assert marked == ["✗", "✓", "✗", "✗✗", "·", "✓"]  # the first: seq 11's single-dummy verdict
    assert labels[14].endswith(" ✗") and labels[15].endswith(" ✗✗")
    at.button(key="rp_next_mistake").click().run()
    _no_exception(at)
    assert at.get("select_slider")[0].value == 14  # seq 22, E's pass losing 1 level
    texts = [m.value for m in at.markdown]
    assert any(":orange[✗]" in t and "**Mistake** · levels lost: 1" in t and "Value before (levels): -1" in t
               and "Value after (levels): -2" in t for t in texts)
    assert any(t.startswith("Best move(s)") and "♦9" in t and "♠A" in t for t in texts)
    assert any(t.startswith("Hand before the decision") for t in texts)
    captions = [c.value for c in at.caption]
    assert any("exact, all hands visible (double-dummy)" in c and "forced 1" in c for c in captions)
    assert any(c.startswith("match-winning chance: 45 % → 40 %") for c in captions)
    at.button(key="rp_next_mistake").click().run()
    assert at.get("select_slider")[0].value == 15
    at.button(key="rp_next_mistake").click().run()
    assert at.get("select_slider")[0].value == 14  # wraps around to the first mistake


def test_replayer_shows_single_dummy_verdicts_beside_the_exact_ones(
    monkeypatch: pytest.MonkeyPatch, mini_store: Path
) -> None:
    """The dash store's ``single_dummy_reviews`` judge N's pass at seq 11 (step 3, no exact
    verdict: a mistake, 1.75 levels lost on average) and E's pass at seq 22 (step 14, beside its
    exact verdict: the best mean); a deal the job has not reviewed says how to run it."""
    from dash_app import APP

    def opened(**params: str) -> AppTest:
        monkeypatch.setenv("GDAN_STORE", str(mini_store))
        at = AppTest.from_file(str(APP), default_timeout=SCRIPT_TIMEOUT_S)
        at.query_params.update(params)
        at.run()
        at.switch_page("views/replayer.py").run()
        _no_exception(at)
        return at

    at = opened(match="m1", deal="2", step="3")
    texts = [m.value for m in at.markdown]
    captions = [c.value for c in at.caption]
    assert any(c.startswith("Verdicts shown: exact, all hands visible (double-dummy) · sampled from the "
                            "player's view (single-dummy)") for c in captions)
    assert any(":orange[✗]" in t and "**Mistake** · mean levels lost: 1.75" in t
               and "worse than the best in 5 of 8 layouts" in t for t in texts)
    hand = next(t for t in texts if t.startswith("Hand before the decision (N)"))
    assert all(card in hand for card in ("♥A", "♣7", "♠5"))
    assert any(t.startswith("Played, mean [95 % interval]: pass -1.25 [-2.00, -0.50]") for t in texts)
    candidates = next(t for t in texts if t.startswith("Candidates, best first"))
    best, played = candidates.splitlines()[-2:]
    assert "♥A" in best and best.endswith("+0.50 [+0.10, +0.90] · match-winning chance 45 % (best)")
    assert played.endswith("pass -1.25 [-2.00, -0.50] · match-winning chance 40 % (played)")
    assert any(c.startswith("match-winning chance: 45 % → 40 % (mean over the layouts") for c in captions)
    assert any("0 of 8 layouts solved exactly" in c and "3 action classes, 2 valued" in c for c in captions)
    both = opened(match="m1", deal="2", step="14")
    texts = [m.value for m in both.markdown]
    assert any(":orange[✗]" in t and "**Mistake** · levels lost: 1" in t for t in texts)  # exact
    assert any(":green[✓]" in t and "**Best move**" in t and "0 of 8 layouts" in t for t in texts)  # sampled
    none = opened(match="m1", deal="1", step="3")
    assert any("opt-in job" in c and "`single_dummy`" in c and "--single-dummy" in c for c in
               (c.value for c in none.caption))
    zh = opened(match="m1", deal="2", step="3", lang="zh")
    assert any("**失误** · 平均损失级数: 1.75" in t and "在 8 种抽样牌局中有 5 种劣于最佳" in t
               for t in (m.value for m in zh.markdown))


def test_replayer_reviews_a_deal_single_dummy_on_demand(
    monkeypatch: pytest.MonkeyPatch, sim_store: Path
) -> None:
    """A deal the opt-in job never reached: the button reviews it on the server, its verdicts show
    as made on demand (with the job's marks and candidates), nothing is written to the store; while
    another review runs, the button says so instead of queueing."""
    from dash_app import APP

    import dashboards.on_demand as on_demand
    from pipelines.storage.store import Store
    from replay.single_dummy import Settings

    monkeypatch.setattr(on_demand, "SETTINGS", Settings(layouts=4))
    monkeypatch.setenv("GDAN_STORE", str(sim_store))
    store = Store(sim_store)
    assert not store.has_data("single_dummy_reviews")
    match = next(r["match_id"] for r in store.read_table("matches").to_pylist() if r["status"] == "valid")

    def opened() -> AppTest:
        at = AppTest.from_file(str(APP), default_timeout=SCRIPT_TIMEOUT_S)
        at.query_params.update({"match": match, "deal": "1", "step": "1"})
        at.run()
        at.switch_page("views/replayer.py").run()
        _no_exception(at)
        return at

    busy = opened()
    with on_demand._RUNNING:
        busy.button(key="rp_sd_now_button").click().run()
    assert any("Another review made on demand is running" in w.value for w in busy.warning)

    at = opened()
    at.button(key="rp_sd_now_button").click().run()
    _no_exception(at)
    captions = [c.value for c in at.caption]
    assert any(c.startswith("Verdicts made on demand in this session") for c in captions)
    judged = next(c for c in captions if c.startswith("Decisions judged from the player's view: "))
    assert int(judged.rsplit(": ", 1)[1]) > 0
    assert all(b.key != "rp_sd_now_button" for b in at.button)
    steps = at.get("select_slider")[0].options
    assert any(re.search("[✓~✗]", str(o)) for o in steps)  # the slider marks the judged decisions
    assert not Store(sim_store).has_data("single_dummy_reviews")


def test_replayer_opens_on_a_deep_link(monkeypatch: pytest.MonkeyPatch, mini_store: Path) -> None:
    """The coach notebook's links: ?match=…&deal=…&seq=… opens the replayer on that decision."""
    from dash_app import APP

    monkeypatch.setenv("GDAN_STORE", str(mini_store))
    at = AppTest.from_file(str(APP), default_timeout=SCRIPT_TIMEOUT_S)
    at.query_params.update({"match": "m1", "deal": "2", "seq": "23"})
    at.run()
    at.switch_page("views/replayer.py").run()
    _no_exception(at)
    assert at.selectbox(key="rp_deal").value == 2
    assert at.get("select_slider")[0].value == 15
    assert any(":red[✗✗]" in m.value for m in at.markdown)


def test_player_page_shows_review_accuracy_against_the_population(open_app: Open, mini_store: Path) -> None:
    """Accuracy on real choices by phase: the forced pass is counted apart, not scored."""
    at = open_app(mini_store, "player")
    table = next(d.value for d in at.dataframe if "population_interval" in d.value.columns)
    rows = {r["phase"]: r for r in table.to_dict("records")}
    assert list(rows) == ["Lead", "Follow", "Pass", "All"]
    assert [rows[p]["population_n"] for p in rows] == [1, 1, 2, 4]  # real choices only
    assert rows["Pass"]["population_value"] == pytest.approx(0.0)
    assert rows["All"]["population_value"] == pytest.approx(50.0)
    low, high = (float(x) for x in rows["All"]["population_interval"].split("–"))
    assert low < 50.0 < high


def test_player_page_shows_sampled_accuracy_with_the_tribute_return(open_app: Open, mini_store: Path) -> None:
    """Beside the exact table, the single-dummy one: real choices by phase, the tribute return
    included, each figure as computed by hand from the store's ``single_dummy_reviews`` rows."""
    from math import sqrt

    from pipelines.storage.store import Store

    rows = Store(mini_store).read_table("single_dummy_reviews").to_pylist()

    def expected(chosen: list[dict[str, Any]]) -> tuple[int, float, float, float, float]:
        """Real choices, accuracy %, its 95 % Wilson interval and mean levels lost per 100."""
        n, z = len(chosen), 1.96
        p = sum(r["loss"] <= 0 for r in chosen) / n
        centre, half = p + z * z / (2 * n), z * sqrt(p * (1 - p) / n + z * z / (4 * n * n))
        return (n, 100 * p, 100 * (centre - half) / (1 + z * z / n), 100 * (centre + half) / (1 + z * z / n),
                100 * sum(r["loss"] for r in chosen) / n)

    at = open_app(mini_store, "player")
    at.selectbox(key="player_pick").set_value("p4").run()
    _no_exception(at)
    assert any(m.value == "**Exact, all hands visible (double-dummy)**" for m in at.markdown)
    assert any(m.value == "**Sampled from the player's view (single-dummy)**" for m in at.markdown)
    table = next(d.value for d in at.dataframe if "player_figure" in d.value.columns
                 and "Return card after a tribute" in set(d.value["phase"]))
    shown = {r["phase"]: r for r in table.to_dict("records")}
    assert list(shown) == ["Pass", "Return card after a tribute", "All"]
    for label, phase in [("Pass", "pass"), ("Return card after a tribute", "tribute_return"), ("All", None)]:
        everyone = [r for r in rows if phase is None or r["phase"] == phase]
        n, accuracy, low, high, lost = expected(everyone)
        assert shown[label]["population_n"] == n
        assert shown[label]["population_value"] == pytest.approx(accuracy)
        assert shown[label]["population_interval"] == f"{low:.0f}–{high:.0f}"
        assert shown[label]["population_figure"] == pytest.approx(lost)
        mine = [r for r in everyone if r["player_id"] == "p4"]
        assert shown[label]["player_n"] == len(mine)
        if mine:
            n, accuracy, low, high, lost = expected(mine)
            assert (shown[label]["player_value"], shown[label]["player_figure"]) == (pytest.approx(accuracy),
                                                                                    pytest.approx(lost))
            assert shown[label]["player_interval"] == f"{low:.0f}–{high:.0f}"
        else:
            assert shown[label]["player_interval"] == "—"
    assert shown["Return card after a tribute"]["player_n"] == 1  # p4's return in m1
    assert shown["All"]["population_n"] == 4


def test_player_page_says_how_to_get_sampled_accuracy(open_app: Open, sim_store: Path) -> None:
    """A store the opt-in single-dummy job never ran on: no sampled table, one caption naming the job."""
    at = open_app(sim_store, "player")
    _no_exception(at)
    assert any(m.value == "**Sampled from the player's view (single-dummy)**" for m in at.markdown)
    assert any("opt-in job" in c.value and "`single_dummy`" in c.value for c in at.caption)
    assert sum("player_figure" in d.value.columns for d in at.dataframe) == 1  # the exact table only


def test_player_page_shows_skill_from_decisions_beside_the_rating(open_app: Open, mini_store: Path) -> None:
    """The figures shown are scoring.decision_skill's, from the store's real choices and ratings."""
    from statistics import fmean, pvariance

    from pipelines.storage.store import Store
    from scoring.decision_skill import combined, decision_skill

    store = Store(mini_store)
    reviews = store.read_table("play_reviews").to_pylist()
    losses: dict[str, list[float]] = {}
    for r in reviews:
        if r["choice"] == "real":
            losses.setdefault(r["player_id"], []).append(float(r["loss"]))
    skills = decision_skill(losses)
    ratings = store.read_table("ratings").to_pylist()
    mu = {r["player_id"]: r["mu"] for r in ratings}
    spread = pvariance(mu.values())
    both = combined(mu, skills, spread / (spread + fmean(r["sigma"] ** 2 for r in ratings)))
    at = open_app(mini_store, "player")
    at.selectbox(key="player_pick").set_value("p2").run()
    _no_exception(at)
    shown = {m.label: m for m in at.metric}
    mine = skills["p2"]
    assert mine.choices == 2 and shown["Real choices reviewed"].value == "2"
    estimate = shown["Estimate"]
    assert estimate.value == f"{-100 * mine.estimate:.1f}"
    assert estimate.proto.delta == f"95 % interval {-100 * mine.high:.1f} … {-100 * mine.low:.1f}"
    observed = shown["Observed"]
    assert sorted(losses["p2"]) == [0.0, 2.0] and mine.mistakes == 1  # a 2-level loss is one mistake
    assert observed.value == f"{100 * mine.mistake_rate:.1f}" == "50.0"
    assert observed.proto.delta == f"95 % interval {100 * mine.rate_low:.1f} … {100 * mine.rate_high:.1f}"
    rank = sorted(both, key=lambda p: -both[p]).index("p2") + 1
    assert shown["Combined with the rating"].value == f"{both['p2']:+.2f}"
    assert shown["Combined with the rating"].proto.delta == f"rank {rank} of {len(both)}"
    assert "Rating" in shown  # beside the results-based rating


def test_quality_names_error_codes_in_chinese(monkeypatch: pytest.MonkeyPatch, mini_store: Path) -> None:
    """The quarantine's error choice, its rows and the problem matches name each code in the
    page's language (replay/errors.py ERROR_DOCS), not as the code id."""
    from dash_app import APP

    monkeypatch.setenv("GDAN_STORE", str(mini_store))
    at = AppTest.from_file(str(APP), default_timeout=SCRIPT_TIMEOUT_S)
    at.query_params["lang"] = "zh"
    at.run().switch_page("views/quality.py").run()
    _no_exception(at)
    choice = at.selectbox(key="dq_code")
    assert "压不过上一手" in choice.options and "does_not_beat" not in choice.options
    choice.set_value("does_not_beat").run()
    assert list(at.dataframe[0].value["code"]) == ["压不过上一手"]
    assert "压不过上一手" in set(at.dataframe[1].value["error_code"])


def test_every_error_code_has_a_name_in_both_languages() -> None:
    from dashboards.naming import error_name
    from replay.errors import ErrorCode

    for lang in ("en", "zh"):
        names = [error_name(code.value, lang) for code in ErrorCode]
        assert not {code.value for code in ErrorCode} & set(names), lang
        assert len(set(names)) == len(names), lang
