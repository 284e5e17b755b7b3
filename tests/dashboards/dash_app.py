"""Where the dashboards app lives and the names of its pages, for the dashboard tests."""

from __future__ import annotations

from pathlib import Path

APP = Path(__file__).resolve().parents[2] / "dashboards" / "app.py"
SCRIPT_TIMEOUT_S = 600.0
"""``AppTest``'s bound on one script run: only a bound on a hang, so generous enough for a page's
run on a machine loaded many times over (a run on a quiet machine takes seconds)."""
PAGES = [
    "overview",
    "leaderboard",
    "player",
    "head_to_head",
    "dan",
    "tributes",
    "bombs",
    "tournament",
    "entry",
    "replayer",
    "quality",
]
"""Every page of the app, by its file in `dashboards/views/`."""


def url_path(page: str) -> str:
    """The address path of a page (``head_to_head`` is served at ``/head-to-head``)."""
    return page.replace("_", "-")
