"""The dashboards on another host over a store on object storage (moto's server): they read this
host's reading copy, which a refresh brings to each newly published run, never to a publish that
was cut off; `gdan export` reads the same copy."""

from __future__ import annotations

from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest
from typer.testing import CliRunner

from dashboards.i18n import t
from gdan import app
from pipelines.storage import mirror
from pipelines.storage.remote import readable, refresh
from pipelines.storage.store import Store
from tests.dashboards.dash_app import APP, SCRIPT_TIMEOUT_S
from tests.pipeline.s3_server import s3_endpoint, s3_store

__all__ = ["s3_endpoint", "s3_store"]

runner = CliRunner()


def _gdan(*args: str) -> str:
    result = runner.invoke(app, list(args))
    assert result.exit_code == 0, result.output + repr(result.exception)
    return result.stdout


def _publish(store: str, source: Path) -> BaseException | None:
    """Ingest ``source`` and run, as the service host (its own cache folder); the run's exception."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("GDAN_CACHE", str(source.parent / "service-host"))
        _gdan("ingest", str(source), "--store", store)
        return runner.invoke(app, ["run", "--store", store, "--workers", "1"]).exception


def _day(folder: Path, seed: int) -> Path:
    """A small simulated tournament (4 pairs, 1 round of 2 deals) in ``folder``."""
    from simulator import simulate_to_dir

    simulate_to_dir(folder, "tournament", pairs=4, rounds=1, format="deals:2", seed=seed)
    return folder


def _deals_shown(at: AppTest) -> int:
    """The overview page's count of deals."""
    at.run()
    assert not at.exception, at.exception
    return int(next(m.value for m in at.metric if m.label == t("deals", "en")).replace(",", ""))


def test_the_dashboards_follow_whole_runs_published_to_object_storage(
    s3_store: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    store = Path(s3_store)
    assert _publish(s3_store, _day(tmp_path / "one", seed=3)) is None
    monkeypatch.setenv("GDAN_CACHE", str(tmp_path / "dashboards-host"))
    copy = readable(store)  # what `gdan dashboard --store s3://…` pulls at start
    shown = {"GDAN_STORE": str(copy), "GDAN_STORE_SOURCE": s3_store, "GDAN_READ_ONLY": "1",
             "GDAN_WARM_UP": "0"}
    for name, value in shown.items():
        monkeypatch.setenv(name, value)
    at = AppTest.from_file(str(APP), default_timeout=SCRIPT_TIMEOUT_S)
    first = _deals_shown(at)
    assert first == 2 * 2  # two tables of two deals
    captions = [c.value for c in at.sidebar.caption]
    assert t("access_read_only", "en") in captions and f"{t('store', 'en')}: `{s3_store}`" in captions
    assert not at.sidebar.text_input  # no login or PIN form: nothing here writes
    assert refresh(store) is False  # nothing published since the pull

    assert _publish(s3_store, _day(tmp_path / "two", seed=4)) is None
    assert _deals_shown(at) == first  # the copy is as pulled until refreshed
    assert refresh(store) is True
    second = _deals_shown(at)
    assert second == 2 * first
    run = Store(copy).last_run()

    def cut(relative: str) -> None:
        if relative.startswith(mirror.COMMIT_LOG_PREFIX):
            raise ConnectionError(f"connection lost before {relative}")

    monkeypatch.setattr(mirror, "push_steps", [cut])
    assert isinstance(_publish(s3_store, _day(tmp_path / "three", seed=5)), ConnectionError)
    monkeypatch.setattr(mirror, "push_steps", [])
    assert refresh(store) is False  # the commit log names no new run
    readable(store)  # a full pull brings the cut-off publish's table files and log entries
    assert Store(copy).last_run() == run
    assert _deals_shown(at) == second

    at.switch_page("views/replayer.py").run()
    assert not at.exception and t("notes_read_only", "en") in [c.value for c in at.caption]
    assert not at.text_area  # no note form: a note would stay in this host's copy

    out = tmp_path / "standings.csv"
    _gdan("export", "standings", "--store", s3_store, "--event", _event(copy), "--format", "csv",
          "--out", str(out))
    assert len(out.read_text(encoding="utf-8").splitlines()) > 4  # a title, a header and four pairs


def _event(copy: Path) -> str:
    """The event of the copy's matches."""
    from pipelines.storage.warehouse import connect

    row = connect(copy).execute("SELECT min(event_id) FROM matches").fetchone()
    assert row is not None
    return str(row[0])


def test_the_dashboards_of_an_s3_store_refuse_anonymous_writes_before_reaching_it() -> None:
    command = ["dashboard", "--store", "s3://gdan-bucket/league", "--allow-anonymous-writes"]
    result = runner.invoke(app, command)
    assert result.exit_code == 1
    assert "only read" in " ".join(result.output.split())
