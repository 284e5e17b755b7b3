"""``play_reviews`` and ``player_reviews`` after a real pipeline run on simulated matches:
the rows are exactly ``review_deal`` on the same logs in the default window, every row is a sound
verdict (loss ≥ 0, 0 for a best move, values −3 … +3), and the summary counts the rows."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import Any

import orjson
import pyarrow as pa
import pytest

from pipelines.steps.reviews import BUDGET, MAX_CARDS_LEFT, action_text, review_chunk, severity
from pipelines.storage.warehouse import connect
from replay.review import review_deal

Reviewed = tuple[Path, list[list[dict[str, Any]]]]
"""The store and the events of its matches."""


@pytest.fixture(scope="module")
def reviewed_store(tmp_path_factory: pytest.TempPathFactory) -> Reviewed:
    """A store of 2 simulated matches after ``run_pipeline``, and the matches' events."""
    from pipelines.run.runner import run_pipeline
    from pipelines.storage.store import Store
    from simulator import simulate_to_dir

    root = tmp_path_factory.mktemp("reviewed_store")
    inbox = Store(root).inbox
    simulate_to_dir(inbox, kind="matches", matches=2, players=4, format="deals:3", seed=11)
    by_match: dict[str, list[dict[str, Any]]] = {}
    for path in sorted(inbox.rglob("*.jsonl")):
        for line in path.read_text().splitlines():
            event = json.loads(line)
            by_match.setdefault(event["match"], []).append(event)
    run_pipeline(root, workers=1)
    return root, list(by_match.values())


def _rows(root: Path, table: str) -> list[dict[str, Any]]:
    rel = connect(root).execute(f"SELECT * FROM {table}")
    names = [d[0] for d in rel.description]
    return [dict(zip(names, r, strict=True)) for r in rel.fetchall()]


def test_rows_are_review_deal_on_the_same_logs(reviewed_store: Reviewed) -> None:
    root, matches = reviewed_store
    rows = _rows(root, "play_reviews")
    assert rows, "the default window reviews some decisions"
    got = {(r["match_id"], r["seq"]): r for r in rows}
    assert len(got) == len(rows), "one row per reviewed decision"
    expected = 0
    for events in matches:
        match_id = events[0]["match"]
        players = next(e for e in events if e["type"] == "match_start")
        for deal in sorted({e["deal"] for e in events if e["type"] == "deal_start"}):
            for review in review_deal(events, BUDGET, deal=deal, max_cards_left=MAX_CARDS_LEFT):
                expected += 1
                row = got[(match_id, review.seq)]
                assert (row["deal_no"], row["seat"], row["team"]) == (deal, review.seat, review.team)
                assert row["action"] == ("pass" if review.action is None else "play")
                assert row["cards"] == (None if review.action is None else list(review.action.cards))
                assert (row["value_before"], row["best_value"], row["value_after"], row["loss"]) == (
                    review.value_before, review.best_value, review.value_after, review.loss)
                assert row["best_moves"] == " | ".join(action_text(m) for m in review.best_moves)
                assert row["cards_left"] == review.cards_left == sum(row[f"left_{s}"] for s in "ENWS")
                assert row["player_id"] in {p for p in players["players"]} | {None}
                assert row["hand"] == list(review.hand)
                assert (row["kind"], row["choice"], row["phase"], row["severity"]) == (
                    "double_dummy", review.choice, review.phase, severity(review))
                assert row["win_best"] == pytest.approx(review.win_best, abs=1e-6)
                assert row["win_after"] == pytest.approx(review.win_after, abs=1e-6)
    assert expected == len(rows)


def test_a_review_of_the_replays_parsed_events_equals_one_parsing_again(reviewed_store: Reviewed) -> None:
    """Handed the events the replay parsed (``replay_batch_with_events``, the pipeline's replay),
    ``review_chunk`` gives the rows it gives when it parses the payloads itself (after a replay
    stand-in that keeps none)."""
    from replay import replay_batch_with_events

    events = [e for match in reviewed_store[1] for e in match]
    table = pa.table({"match_id": [e["match"] for e in events], "seq": [e["seq"] for e in events],
                      "payload": [orjson.dumps(e).decode() for e in events],
                      "parse_error": pa.nulls(len(events), pa.string())})
    tables, parsed = replay_batch_with_events(table)
    reused = review_chunk(table, tables, parsed)
    assert reused.num_rows > 0
    assert reused.equals(review_chunk(table, tables))


def test_every_row_is_a_sound_verdict(reviewed_store: Reviewed) -> None:
    for row in _rows(reviewed_store[0], "play_reviews"):
        assert row["cards_left"] <= MAX_CARDS_LEFT
        assert all(-3 <= row[c] <= 3 for c in ("value_before", "best_value", "value_after"))
        assert row["value_before"] == row["best_value"]
        assert row["loss"] == row["best_value"] - row["value_after"] >= 0
        taken = "pass" if row["cards"] is None else " ".join(row["cards"])
        assert (row["loss"] == 0) == (taken in row["best_moves"].split(" | "))
        assert (row["loss"] == 0) == (row["severity"] == "best")
        assert row["match_loss"] >= 0 and 0 <= row["win_after"] <= row["win_best"] <= 1
        if row["choice"] == "forced":  # a pass with no legal play (rules.md §5.3)
            assert row["action"] == "pass" and row["best_moves"] == "pass"
        if row["choice"] == "all_equal":
            assert row["loss"] == 0


def test_cards_held_are_the_replays(reviewed_store: Reviewed) -> None:
    """Each row's cards held per seat (from the review's own position) are the replay's
    ``plays.left_X`` before the same decision."""
    held = _rows(reviewed_store[0], """(SELECT r.left_E = p.left_E AND r.left_N = p.left_N
        AND r.left_W = p.left_W AND r.left_S = p.left_S AS same, p.seq IS NULL AS unmatched
        FROM play_reviews r LEFT JOIN plays p USING (match_id, seq))""")
    assert held and all(h["same"] and not h["unmatched"] for h in held)


def test_player_reviews_count_the_rows(reviewed_store: Reviewed) -> None:
    """Per player and phase: every decision counted, only real choices scored."""
    root = reviewed_store[0]
    rows = _rows(root, "play_reviews")
    summary = {(r["player_id"], r["phase"]): r for r in _rows(root, "player_reviews")}
    decisions = Counter((r["player_id"], r["phase"]) for r in rows)
    assert {k: s["decisions"] for k, s in summary.items()} == dict(decisions)
    for (player, phase), s in summary.items():
        mine = [r for r in rows if r["player_id"] == player and r["phase"] == phase]
        losses = [r["loss"] for r in mine]
        assert (s["loss_1"], s["loss_2"], s["loss_3plus"], s["loss_sum"]) == (
            losses.count(1), losses.count(2), sum(x >= 3 for x in losses), sum(losses))
        choices = Counter(r["choice"] for r in mine)
        assert (s["forced"], s["all_equal"], s["real"]) == (
            choices["forced"], choices["all_equal"], choices["real"])
        assert s["real_best"] == sum(r["choice"] == "real" and r["loss"] == 0 for r in mine)
        assert s["match_loss_sum"] == pytest.approx(sum(r["match_loss"] for r in mine), abs=1e-4)
        assert s["deals"] == len({(r["match_id"], r["deal_no"]) for r in mine})
