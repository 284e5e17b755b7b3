"""Every dashboard page through ``streamlit.testing.v1.AppTest`` (issue 7 "Tests").

On an empty store each page shows the "no data yet" state; on the hand-made store (and on the
pipeline's simulated store once it exists) each page runs without exception and shows its
metrics, charts and tables; widgets change what is shown; every chart has axis titles.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest
from dash_app import PAGES
from streamlit.testing.v1 import AppTest

Open = Callable[[Path, str], AppTest]

EXPECTED: dict[str, tuple[int, int, int]] = {
    # page: minimum (charts, tables, metrics) on a store with data
    "overview": (2, 1, 8),
    "leaderboard": (1, 1, 0),
    "player": (4, 3, 5),
    "dan": (1, 3, 0),
    "tributes": (3, 1, 4),
    "bombs": (4, 1, 5),
    "tournament": (1, 2, 0),
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
    assert any("No data yet" in i.value for i in at.info)
    assert not at.get("plotly_chart")


@pytest.mark.parametrize("page", PAGES)
def test_page_renders_with_data(open_app: Open, any_store: Path, page: str) -> None:
    """No exception and no empty state; on the hand-made store, every expected element."""
    at = open_app(any_store, page)
    _no_exception(at)
    assert not any("No data yet: run the pipeline" in i.value for i in at.info)
    found = (len(at.get("plotly_chart")), len(at.dataframe), len(at.metric))
    assert len(at.get("download_button")) == len(at.dataframe)  # every table downloads as CSV
    if page == "replayer":
        assert at.get("select_slider")
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
    assert metrics["Dan (pro)"] == "4"
    titles = [s["layout"]["title"]["text"] for s in _charts(at)]
    assert "Dan ledger" in titles
    partner_table = at.dataframe[0].value
    assert list(partner_table["partner"]) == ["p7"]


def test_player_page_reads_the_query_parameter(monkeypatch: pytest.MonkeyPatch, mini_store: Path) -> None:
    from dash_app import APP

    monkeypatch.setenv("GDAN_STORE", str(mini_store))
    at = AppTest.from_file(str(APP), default_timeout=60)
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
    assert list(results["match_id"]) == ["m1", "m2"]
    assert list(results["level_diff"]) == [2, 2]  # m1 5 vs 3, m2 2 vs 4 (scoring.md §S1)


def test_replayer_steps_through_a_deal(open_app: Open, mini_store: Path) -> None:
    at = open_app(mini_store, "replayer")
    at.selectbox(key="rp_deal").set_value(2).run()
    slider = at.get("select_slider")[0]
    assert len(slider.options) == 5  # dealt, after tribute, three tricks
    at.get("select_slider")[0].set_value(len(slider.options) - 1).run()
    _no_exception(at)
    flags = at.dataframe[-1].value
    assert {"overtook_partner", "could_beat", "bomb_class", "reading_inferred", "went_out"} <= set(
        flags.columns
    )
    assert len(flags) == 16
    at.toggle(key="rp_by_trick").set_value(False).run()
    assert len(at.get("select_slider")[0].options) == 18  # every play and pass


def test_replayer_search_narrows_matches(open_app: Open, mini_store: Path) -> None:
    at = open_app(mini_store, "replayer")
    at.text_input(key="rp_search").set_value("p5").run()
    assert at.selectbox(key="rp_match").options == ["m2"]


def test_quality_filters_by_code(open_app: Open, mini_store: Path) -> None:
    at = open_app(mini_store, "quality")
    metrics = {m.label: m.value for m in at.metric}
    assert metrics["Quarantined input"] == "2"
    assert metrics["Malformed lines"] == "1"
    at.selectbox(key="dq_code").set_value("does_not_beat").run()
    rows = at.dataframe[0].value
    assert list(rows["line_no"]) == [12]
    assert set(at.dataframe[1].value["match_id"]) == {"m3", "m4"}  # partial and invalid (matches)
    incomplete = at.dataframe[2].value  # no match_end yet (incomplete_matches)
    assert list(incomplete["match_id"]) == ["m5"]
    assert metrics["Incomplete"] == "1"


def test_lang_query_parameter_opens_in_chinese(monkeypatch: pytest.MonkeyPatch, mini_store: Path) -> None:
    from dash_app import APP

    monkeypatch.setenv("GDAN_STORE", str(mini_store))
    at = AppTest.from_file(str(APP), default_timeout=60)
    at.query_params["lang"] = "zh"
    at.run()
    assert "概览" in at.title[0].value


def test_replayer_shows_unknown_hands_of_a_partial_match(open_app: Open, mini_store: Path) -> None:
    """events.md deal_start: a seat may be missing from a one-player log; the match is partial."""
    at = open_app(mini_store, "replayer")
    at.selectbox(key="rp_match").set_value("m3").run()
    _no_exception(at)
    assert any("hand unknown" in m.value for m in at.markdown)
    assert sum("27 Cards" in m.value for m in at.markdown) == 3


def test_replayer_marks_reviewed_decisions_and_jumps_to_mistakes(open_app: Open, mini_store: Path) -> None:
    """issue 16: the dash store reviews the last five decisions of m1 deal 2 (seq 21–25: best,
    −1, −2, best, best): steps 13–17 of the play-by-play slider (dealt, after tribute, then seq 10 …)."""
    at = open_app(mini_store, "replayer")
    at.selectbox(key="rp_deal").set_value(2).run()
    at.toggle(key="rp_by_trick").set_value(False).run()
    slider = at.get("select_slider")[0]
    labels = list(slider.options)
    marked = [label[-1] for label in labels if label[-1] in "🟢🟠🔴"]
    assert marked == ["🟢", "🟠", "🔴", "🟢", "🟢"]
    assert labels[14].endswith("🟠") and labels[15].endswith("🔴")
    at.button(key="rp_next_mistake").click().run()
    _no_exception(at)
    assert at.get("select_slider")[0].value == 14  # seq 22, E's pass losing 1 level
    texts = [m.value for m in at.markdown]
    assert any("🟠" in t and "Value before (levels): -1" in t and "Value after (levels): -2" in t
               for t in texts)
    assert any(t.startswith("Best move(s)") and "♦9" in t and "♠A" in t for t in texts)
    at.button(key="rp_next_mistake").click().run()
    assert at.get("select_slider")[0].value == 15
    at.button(key="rp_next_mistake").click().run()
    assert at.get("select_slider")[0].value == 14  # wraps around to the first mistake


def test_replayer_opens_on_a_deep_link(monkeypatch: pytest.MonkeyPatch, mini_store: Path) -> None:
    """The coach notebook's links: ?match=…&deal=…&seq=… opens the replayer on that decision."""
    from dash_app import APP

    monkeypatch.setenv("GDAN_STORE", str(mini_store))
    at = AppTest.from_file(str(APP), default_timeout=60)
    at.query_params.update({"match": "m1", "deal": "2", "seq": "23"})
    at.run()
    at.switch_page("views/replayer.py").run()
    _no_exception(at)
    assert at.selectbox(key="rp_deal").value == 2
    assert at.get("select_slider")[0].value == 15
    assert any("🔴" in m.value for m in at.markdown)


def test_player_page_shows_review_accuracy_against_the_population(open_app: Open, mini_store: Path) -> None:
    at = open_app(mini_store, "player")
    table = next(d.value for d in at.dataframe if "population_n" in d.value.columns
                 and "Mistakes losing 1 level" in set(d.value["metric"]))
    assert list(table["population_n"]) == [5] * 4  # every reviewed decision
    mistakes = dict(zip(table["metric"], table["population_value"], strict=True))
    assert mistakes["Mistakes losing 1 level"] == pytest.approx(20.0)
    assert mistakes["All mistakes"] == pytest.approx(40.0)
