"""A single-dummy review of one deal, made on demand from the hand replayer.

The opt-in job (``pipelines.steps.single_dummy``) stores verdicts for the deals it reaches; a coach
who opens a deal it has not reached can ask for that deal's verdicts now, with the job's own
settings, so they are the verdicts the job would store. A review takes tens of CPU seconds, so
one runs at a time per dashboard server (another asker is told to wait rather than queued behind
it), and its rows stay in the asker's session: the dashboards write nothing but notes.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from pipelines.steps.single_dummy import deal_rows
from replay.single_dummy import Settings

SETTINGS = Settings()
"""The job's default settings (32 layouts a decision)."""

_RUNNING = threading.Lock()


class Busy(RuntimeError):
    """Another on-demand review is running on this server."""


def review_deal_now(
    events: Sequence[Mapping[str, Any]],
    match: str,
    deal: int,
    on_row: Callable[[Mapping[str, Any]], None],
) -> list[dict[str, Any]]:
    """The single-dummy rows of deal ``deal`` of ``match`` (``events``: the match's), calling
    ``on_row`` after each verdict; :class:`Busy` when another review is running, ``ValueError``
    when the log does not let the review follow the deal."""
    if not _RUNNING.acquire(blocking=False):
        raise Busy("another on-demand review is running")
    try:
        rows = []
        for row in deal_rows(events, match, deal, SETTINGS):
            rows.append(row)
            on_row(row)
        return rows
    finally:
        _RUNNING.release()
