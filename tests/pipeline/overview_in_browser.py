"""Open the dashboards' overview page at the URL given (``python -m tests.pipeline.overview_in_browser
URL``) in headless Chromium and print what it shows as JSON: its title, its error boxes and its
metrics (label -> value). The cross-host test runs it on a host of its own, as a user's browser
reaching the dashboards host over the network."""

from __future__ import annotations

import json
import sys
import tempfile
from pathlib import Path

from dashboards.i18n import t
from tests.dashboards.browser import chromium

METRICS_JS = """(() => Array.from(document.querySelectorAll('[data-testid="stMetric"]')).map(m => [
  m.querySelector('[data-testid="stMetricLabel"]').innerText.trim(),
  m.querySelector('[data-testid="stMetricValue"]').innerText.trim()]))()"""


def main(url: str) -> None:
    with tempfile.TemporaryDirectory() as profile, chromium(Path(profile)) as browser:
        page = browser.visit(url, None)
        deals = t("deals", "en")  # the metrics may draw after the script run reports ready
        browser.wait_for(lambda: deals in dict(browser.evaluate(METRICS_JS)), f"{deals} metric")
        metrics = dict(browser.evaluate(METRICS_JS))
    print(json.dumps({"title": page.title, "errors": page.errors, "metrics": metrics}))


if __name__ == "__main__":
    main(sys.argv[1])
