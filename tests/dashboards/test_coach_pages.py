"""The coach's pages through ``AppTest``: Player, Tributes, Bombs, Head-to-head and
the hand replayer on an empty store, on the hand-made store, with filters that leave nothing, and
reopened from their address."""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable
from pathlib import Path

import pytest
from dash_app import APP, SCRIPT_TIMEOUT_S
from streamlit.testing.v1 import AppTest
from test_coach_seats_speed import _OLD_PLAY_RATES

from dashboards.patterns import rates_table
from dashboards.queries.play_patterns import jie_feng_received, play_stats
from dashboards.queries.seats import SeatFilters, seats_cte
from dashboards.table_html import MARK_ICONS
from pipelines.reads.annotations import read_notes
from pipelines.storage.warehouse import connect

Open = Callable[[Path, str], AppTest]
COACH_PAGES = ["player", "tributes", "bombs", "head_to_head", "replayer"]


def _no_exception(at: AppTest) -> None:
    assert not at.exception, [e.message for e in at.exception]


def _open_link(monkeypatch: pytest.MonkeyPatch, store: Path, page: str, **params: str) -> AppTest:
    """The app opened at ``views/<page>.py`` with ``params`` in the address (a copied link)."""
    monkeypatch.setenv("GDAN_STORE", str(store))
    at = AppTest.from_file(str(APP), default_timeout=SCRIPT_TIMEOUT_S)
    at.query_params.update(params)
    at.run()
    at.switch_page(f"views/{page}.py").run()
    return at


def _texts(at: AppTest) -> str:
    return "\n".join(
        [m.value for m in at.markdown] + [c.value for c in at.caption] + [i.value for i in at.info]
    )


def _charts(at: AppTest) -> list[dict]:
    return [json.loads(c.proto.spec) for c in at.get("plotly_chart")]


@pytest.mark.parametrize("page", COACH_PAGES)
def test_empty_store_says_no_data(open_app: Open, empty_store: Path, page: str) -> None:
    at = open_app(empty_store, page)
    _no_exception(at)
    assert any("No data yet" in i.value for i in at.info)


@pytest.mark.parametrize("page", COACH_PAGES)
def test_pages_run_on_the_small_store(open_app: Open, mini_store: Path, page: str) -> None:
    at = open_app(mini_store, page)
    _no_exception(at)


@pytest.mark.parametrize("page", ["player", "tributes", "bombs"])
def test_filters_that_leave_nothing_say_so(
    monkeypatch: pytest.MonkeyPatch, mini_store: Path, page: str
) -> None:
    at = _open_link(monkeypatch, mini_store, page, player="p1", seat="N")  # p1 always sat E
    _no_exception(at)
    assert any("No deals pass these filters." in i.value for i in at.info)
    assert "run the pipeline" not in _texts(at)  # not the empty-store message


def test_player_filters_are_in_the_address(open_app: Open, mini_store: Path) -> None:
    at = open_app(mini_store, "player")
    at.selectbox(key="player_pick").set_value("p1").run()
    at.selectbox(key="pl_rules").set_value("jiangsu").run()
    at.selectbox(key="pl_partner").set_value("p3").run()
    at.number_input(key="pl_min_n").set_value(2).run()
    _no_exception(at)
    assert at.query_params["player"] == "p1"
    assert at.query_params["rules"] == "jiangsu" and at.query_params["partner"] == "p3"
    assert at.query_params["min_n"] == "2"
    metrics = {m.label: (m.value, m.proto.body) for m in at.metric}
    assert metrics["Deals in filter"][0] == "2"


def test_player_link_reopens_the_filtered_view(monkeypatch: pytest.MonkeyPatch, mini_store: Path) -> None:
    at = _open_link(monkeypatch, mini_store, "player", player="p1", seat="E", min_n="2", rules="jiangsu")
    _no_exception(at)
    assert at.selectbox(key="player_pick").value == "p1"
    assert at.selectbox(key="pl_seat").value == "E" and at.selectbox(key="pl_rules").value == "jiangsu"
    assert at.number_input(key="pl_min_n").value == 2
    assert {m.label: m.value for m in at.metric}["Deals in filter"] == "2"


@pytest.mark.parametrize("filters", [{"seat": "N"}, {"level": "2"}, {"seat": "N", "level": "2"}])
def test_filtered_play_patterns_show_the_counts_of_the_plays_scan(
    monkeypatch: pytest.MonkeyPatch, mini_store: Path, filters: dict[str, str]
) -> None:
    """The Player page's filtered play patterns (from ``seat_patterns``) show the numbers the
    ``plays`` scan they replaced gives (``_OLD_PLAY_RATES``)."""
    at = _open_link(monkeypatch, mini_store, "player", player="p2", min_n="1", **filters)
    _no_exception(at)
    shown = next(df.value for df in at.dataframe if "population_n" in df.value.columns)
    con = connect(mini_store)
    try:
        seats, params = seats_cte("p2", SeatFilters(**filters))
        old = con.execute(_OLD_PLAY_RATES.format(seats=seats), params).df()
        population = play_stats(con, player=None), jie_feng_received(con, player=None)
        expected = rates_table(old, *population)
    finally:
        con.close()
    assert old["able_to_beat"].iloc[0] > 0
    for column in ("player_value", "player_n", "population_n"):
        assert shown[column].tolist() == expected[column].tolist(), column


def test_every_rate_shows_numerator_and_denominator(
    monkeypatch: pytest.MonkeyPatch, mini_store: Path
) -> None:
    at = _open_link(monkeypatch, mini_store, "player", player="p1", min_n="2")
    deltas = {m.label: m.proto.delta for m in at.metric}
    assert deltas["Team wins the deal (%)"] == "2/4"
    assert deltas["双下 double losses"] == "2/4"
    assert deltas["Win rate"] == "1.5/2"  # m1 won, m3 drawn (a draw counts half)


def test_rates_below_the_minimum_sample_are_greyed(monkeypatch: pytest.MonkeyPatch, mini_store: Path) -> None:
    at = _open_link(monkeypatch, mini_store, "player", player="p1")  # default minimum 30
    deltas = {m.label: m.proto.delta for m in at.metric}
    assert deltas[":gray[Team wins the deal (%)]"] == "2/4 ⚠"
    assert "Team wins the deal (%)" not in deltas
    assert any(c.value == "⚠ greyed: fewer than 30 cases" for c in at.caption)


def test_match_list_rows_open_the_replayer_at_the_deal(
    monkeypatch: pytest.MonkeyPatch, mini_store: Path
) -> None:
    at = _open_link(monkeypatch, mini_store, "player", player="p1")
    games = next(df.value for df in at.dataframe if "replay" in df.value.columns)
    assert list(games["replay"]) == ["replayer?match=m3&deal=1", "replayer?match=m1&deal=1"]
    assert list(games["result"]) == ["draw", "won"]
    assert "opponents" in games.columns and "levels" in games.columns


def test_finishing_position_chart_counts_every_deal(
    monkeypatch: pytest.MonkeyPatch, mini_store: Path
) -> None:
    """The chart's n is the player's deals, 双下 included."""
    at = _open_link(monkeypatch, mini_store, "player", player="p1")
    chart = next(s for s in _charts(at) if s["layout"]["title"]["text"] == "Finishing positions")
    assert "(n=4)" in chart["data"][0]["name"]
    assert any("Deals lost 双下 (both partners last): 2 · Deals: 4" in c.value for c in at.caption)


def test_tributes_level_gain_compares_payer_and_receiver(
    monkeypatch: pytest.MonkeyPatch, mini_store: Path
) -> None:
    """The chart compares both teams, and its title says so (not "Level gain of the paying team")."""
    at = _open_link(monkeypatch, mini_store, "tributes")
    _no_exception(at)
    chart = next(s for s in _charts(at) if "after tribute" in s["layout"]["title"]["text"])
    assert (
        chart["layout"]["title"]["text"] == "Level gain in the deal after tribute: paying and receiving team"
    )
    assert "of the paying team" not in chart["layout"]["title"]["text"]
    names = [trace["name"] for trace in chart["data"]]
    assert len(names) == 2 and names[0].startswith("Paid tribute") and "(n=2)" in names[1]


def test_tributes_filter_by_player_and_seat(monkeypatch: pytest.MonkeyPatch, mini_store: Path) -> None:
    at = _open_link(monkeypatch, mini_store, "tributes", player="p3")
    metrics = {m.label: m.value for m in at.metric}
    assert metrics["单贡 single"] == "1" and metrics["双贡 double"] == "0"
    assert any("⚠ greyed: fewer than 30 cases" in c.value for c in at.caption)


def test_bombs_follow_player_and_filters(monkeypatch: pytest.MonkeyPatch, mini_store: Path) -> None:
    at = _open_link(monkeypatch, mini_store, "bombs", player="p4", min_n="1")
    _no_exception(at)
    metrics = {m.label: (m.value, m.proto.delta) for m in at.metric}
    assert metrics["炸弹 bombs played"][0] == "4"  # S: bomb4 and joker bomb in each of m1's deals
    assert metrics["Bombs per seat and deal"] == ("2.00", "4/2")
    assert metrics["炸弹 on the partner's play"][1] == "2/4"  # the joker bombs over N's 同花顺
    wins = next(df.value for df in at.dataframe if "won" in df.value.columns)
    assert "2/2" in set(wins["won"]) or "1/2" in set(wins["won"])


def test_head_to_head_partners_opponents_and_periods(
    monkeypatch: pytest.MonkeyPatch, mini_store: Path
) -> None:
    at = _open_link(monkeypatch, mini_store, "head_to_head", player="p1", other="p3", min_n="1")
    _no_exception(at)
    text = _texts(at)
    assert "75% (1.5/2)" in text  # partners in m1 (won) and m3 (drawn)
    assert "Never met." in text  # never opponents
    metrics = {m.label: m.value for m in at.metric}
    assert metrics["Best partner"] == "Player 3 (p3)"
    assert metrics["Nemesis"] in {"Player 6 (p6)", "Player 8 (p8)"}  # drew m3 (50 %), beat p2 and p4
    board = next(
        df.value
        for df in at.dataframe
        if "levels_gained" in df.value.columns
        and "link" in df.value.columns
        and "rounds" in df.value.columns
        and "relation" not in df.value.columns
    )
    assert len(board) == 8 and board["link"].iloc[0].startswith("player?player=")
    at.radio(key="h2h_period").set_value("season").run()
    assert at.query_params["period"] == "season"
    assert at.selectbox(key="h2h_period_name").value == "2026-Q2"


def test_head_to_head_minimum_sample_hides_nemesis(monkeypatch: pytest.MonkeyPatch, mini_store: Path) -> None:
    at = _open_link(monkeypatch, mini_store, "head_to_head", player="p1", min_n="30")
    assert {m.label: m.value for m in at.metric}["Nemesis"] == "—"
    assert "Nobody met in 30 rounds or more." in _texts(at)


@pytest.mark.parametrize(
    ("lang", "met", "improved"),
    [
        ("en", "Nobody met in 30 rounds or more.", "Nobody has 30 rated rounds or more in this period."),
        ("zh", "没有同场 30 轮及以上的选手。", "本期没有评分轮次不少于 30 的选手。"),
    ],
)
def test_head_to_head_empty_most_improved_speaks_of_rated_rounds(
    monkeypatch: pytest.MonkeyPatch, mini_store: Path, lang: str, met: str, improved: str
) -> None:
    """An empty "Most improved" says nobody has enough rated rounds in the period, not the
    "Nobody met…" of the best partner and nemesis (nobody has 30 rounds in the small store)."""
    at = _open_link(monkeypatch, mini_store, "head_to_head", lang=lang, player="p1", min_n="30")
    _no_exception(at)
    captions = [c.value for c in at.caption]
    assert captions.count(met) == 2  # best partner and nemesis
    assert captions.count(improved) == 1


def test_replayer_draws_the_table_and_opens_at_the_linked_step(
    monkeypatch: pytest.MonkeyPatch, mini_store: Path
) -> None:
    at = _open_link(monkeypatch, mini_store, "replayer", match="m1", deal="2", step="5")
    _no_exception(at)
    assert at.get("select_slider")[0].value == 5
    table = next(m.value for m in at.markdown if 'class="gd-table"' in m.value)
    assert "Player 1 (p1)" in table and "Player 2 (p2)" in table  # names on seats
    assert "大王" in table and "小王" in table
    assert MARK_ICONS["bomb"] in table  # S's bomb is in the current trick
    at.button(key="rp_next_trick").click().run()
    assert at.query_params["step"] == str(at.get("select_slider")[0].value)


def test_replayer_names_seats_in_chinese(monkeypatch: pytest.MonkeyPatch, mini_store: Path) -> None:
    """On the 中文 page every seat is 东/南/西/北, as in the header's finishing order: the seat
    panels, the trick, the step slider, the tributes and the flags table (no N/E/S/W letters); the
    flags table's cards as the table draws them (♠10, 小王), not codes."""
    at = _open_link(monkeypatch, mini_store, "replayer", lang="zh", match="m1", deal="2", step="5")
    _no_exception(at)
    chinese = {"东", "南", "西", "北"}
    table = next(m.value for m in at.markdown if 'class="gd-table"' in m.value)
    assert "<b>北</b> · Player 2 (p2)" in table and "<b>N</b>" not in table
    assert "东 Player 1 (p1): " in table
    steps = at.get("select_slider")[0].options
    assert steps[2] == "本轮出牌 1 · 东 出牌" and not any(f" {s} " in o for o in steps for s in "NESW")
    tables = {tuple(df.value.columns): df.value for df in at.dataframe}
    flags = next(v for k, v in tables.items() if "could_beat" in k)
    assert list(flags["seat"]) == ["东", "北", "西", "南"]
    played = [c for cell in flags["cards"] for c in cell.split()]
    assert played and all(c[0] in "♠♥♣♦小大" for c in played)  # as the table draws them, no codes
    tributes = next(v for k, v in tables.items() if "giver" in k)
    assert set(tributes["giver"]) | set(tributes["receiver"]) <= chinese


def test_replayer_steps_with_buttons(open_app: Open, mini_store: Path) -> None:
    at = open_app(mini_store, "replayer")
    at.button(key="rp_next").click().run()
    assert at.get("select_slider")[0].value == 1
    at.button(key="rp_next_trick").click().run()
    assert at.get("select_slider")[0].value == 2  # the first play of trick 1
    at.button(key="rp_next_trick").click().run()
    first_trick_2 = at.get("select_slider")[0].value
    table = next(m.value for m in at.markdown if 'class="gd-table"' in m.value)
    assert "Trick</b> 2" in table
    at.button(key="rp_prev").click().run()
    assert at.get("select_slider")[0].value == first_trick_2 - 1
    assert "won by S" in next(m.value for m in at.markdown if 'class="gd-table"' in m.value)
    at.button(key="rp_next_flagged").click().run()
    _no_exception(at)
    at.button(key="rp_first").click().run()
    assert at.get("select_slider")[0].value == 0


STEP_BUTTONS = ["rp_first", "rp_prev", "rp_next", "rp_next_trick", "rp_next_flagged", "rp_next_mistake"]


def _block_holding(node: object, key: str) -> object | None:
    """The block of the page's element tree that directly holds the widget ``key``."""
    children = getattr(node, "children", None) or {}
    if any(getattr(child, "key", None) == key for child in children.values()):
        return node
    return next((b for c in children.values() if (b := _block_holding(c, key)) is not None), None)


@pytest.mark.parametrize(("lang", "start"), [("en", "Start"), ("zh", "开始")])
def test_replayer_step_buttons_keep_their_labels_whole(
    monkeypatch: pytest.MonkeyPatch, mini_store: Path, lang: str, start: str
) -> None:
    """The first button is a short "Start" (not the slider's "Dealt hands (before tribute)"), and
    the six buttons share one wrapping row, each as wide as its label: six equal columns cut the
    labels off even at 1920 px."""
    at = _open_link(monkeypatch, mini_store, "replayer", lang=lang, match="m1", deal="2", step="5")
    _no_exception(at)
    assert at.button(key="rp_first").label == start
    assert at.get("select_slider")[0].options[0] != start  # the slider's step 0 keeps its long name
    rows = {id(_block_holding(at._tree, key)) for key in STEP_BUTTONS}
    row = _block_holding(at._tree, "rp_first")
    assert len(rows) == 1 and row is not None
    flex = row.proto.flex_container  # type: ignore[attr-defined]
    assert flex.direction == flex.Direction.HORIZONTAL and flex.wrap


def test_replayer_notes_are_written_beside_the_store_and_read_back(
    monkeypatch: pytest.MonkeyPatch, mini_store: Path, tmp_path: Path
) -> None:
    store = tmp_path / "store"
    shutil.copytree(mini_store, store, symlinks=True)
    at = _open_link(monkeypatch, store, "replayer", match="m1", deal="2", step="3")
    at.text_area(key="rp_note_text").input("W should not overtake here")
    at.text_input(key="rp_note_tags").input("overtake, trick 1")
    at.button(key="FormSubmitter:rp_note-Save note").click().run()
    _no_exception(at)
    notes, _ = read_notes(store, match_id="m1", deal_no=2)
    assert [(n.text, n.tags, n.step) for n in notes] == [
        ("W should not overtake here", ("overtake", "trick 1"), 3)
    ]
    assert any("W should not overtake here" in m.value and "`#overtake`" in m.value for m in at.markdown)
    assert read_notes(mini_store) == ([], 0)  # the shared store is untouched


def test_pages_are_translated(monkeypatch: pytest.MonkeyPatch, mini_store: Path) -> None:
    for page in COACH_PAGES:
        at = _open_link(monkeypatch, mini_store, page, lang="zh", player="p1", match="m1", deal="2")
        _no_exception(at)
        assert not any("No deals pass" in i.value for i in at.info), page
        english = [m.label for m in at.metric if m.label.isascii() and m.label.strip()]
        assert not english, (page, english)
