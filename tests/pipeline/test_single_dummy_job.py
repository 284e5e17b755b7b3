"""The opt-in single-dummy job over a store: it reviews the valid matches not reviewed yet, a whole
match at a time, stops starting matches once its budget is spent, and keeps what earlier jobs wrote;
each row holds the hand and every candidate's mean and interval, and ``gdan review`` shows them."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

from typer.testing import CliRunner

from gdan import app
from pipelines.steps.single_dummy import write_single_dummy_reviews
from pipelines.storage.store import Store
from replay.single_dummy import LABEL, Settings

SMALL = Settings(layouts=1, max_candidates=2)


def _reviewed(root: Path) -> list[dict[str, Any]]:
    return Store(root).read_table("single_dummy_reviews").to_pylist()


def test_the_job_goes_match_by_match_within_its_budget(sim_store: Path, tmp_path: Path) -> None:
    root = tmp_path / "store"
    shutil.copytree(sim_store, root)
    first = write_single_dummy_reviews(Store(root).pinned(), SMALL, seconds=0)
    rows = _reviewed(root)
    assert rows and first.deals >= 1 and first.skipped >= 1 and not first.failed
    matches = {r["match_id"] for r in rows}
    assert len(matches) == 1
    assert all(r["label"] == LABEL and r["player_id"] and r["layouts"] == 1 for r in rows)
    for r in rows:  # the hand; every candidate with its mean and interval, the played one as its columns
        played = next(c for c in r["candidates"] if c["action"] == r["action"])
        assert (played["mean"], played["low"], played["high"]) == (r["played_mean"], r["played_low"],
                                                                   r["played_high"])
        assert r["hand"] and all(c["low"] <= c["mean"] <= c["high"] for c in r["candidates"])
    store = Store(root)
    store.publish(store.snapshot())  # gdan review --store reads the published run
    match, deal = rows[0]["match_id"], rows[0]["deal_no"]
    shown = CliRunner().invoke(app, ["review", "--store", str(root), "--match", match, "--deal", str(deal),
                                     "--format", "json"])
    assert shown.exit_code == 0, shown.output
    sampled = [r for r in json.loads(shown.stdout) if r["kind"] == "single_dummy"]
    assert [(r["seq"], r["played"], r["loss"]) for r in sampled] == [
        (r["seq"], r["action"], r["loss"]) for r in rows if r["deal_no"] == deal]
    second = write_single_dummy_reviews(Store(root).pinned(), SMALL, seconds=0)
    after = _reviewed(root)
    assert second.skipped == first.skipped - 1
    assert {r["match_id"] for r in after} > matches
    assert [r for r in after if r["match_id"] in matches] == rows
