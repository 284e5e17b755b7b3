"""The dashboards' Streamlit settings are one set (no Deploy button, no telemetry): the
repository's ``.streamlit/config.toml`` (read by ``streamlit run`` from the root and by AppTest)
and the flags ``gdan dashboard`` passes wherever it is started must say the same."""

from __future__ import annotations

import tomllib
from pathlib import Path

from gdan.pipeline import STREAMLIT_SETTINGS

CONFIG = Path(__file__).resolve().parents[1] / ".streamlit" / "config.toml"


def _as_flags(config: dict[str, dict[str, object]]) -> dict[str, str]:
    return {
        f"--{section}.{name}": str(value).lower() if isinstance(value, bool) else str(value)
        for section, values in config.items()
        for name, value in values.items()
    }


def test_gdan_dashboard_passes_exactly_the_repository_settings() -> None:
    flags = dict(zip(STREAMLIT_SETTINGS[::2], STREAMLIT_SETTINGS[1::2], strict=True))
    assert flags == _as_flags(tomllib.loads(CONFIG.read_text()))
    assert flags["--browser.gatherUsageStats"] == "false" and flags["--client.toolbarMode"] == "viewer"
