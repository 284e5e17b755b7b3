"""Where the dashboards app lives and the names of its pages, for the dashboard tests."""

from __future__ import annotations

from pathlib import Path

APP = Path(__file__).resolve().parents[2] / "dashboards" / "app.py"
PAGES = ["overview", "leaderboard", "player", "dan", "tributes", "bombs", "tournament", "replayer", "quality"]
