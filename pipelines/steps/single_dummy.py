"""The opt-in single-dummy review job: every real decision of every deal, from the player's view.

The rules engine samples the layouts and values candidates (``replay.single_dummy``); the
simulator's bots play out what the solver cannot settle (``simulator.rollout``): this module joins
the two (the engine may not import the simulator) and turns verdicts into rows. The job is costly
(tens of seconds a deal at 32 layouts, ``docs/performance.md``), so it is never part of a default
run: ``gdan single-dummy`` and the ``single_dummy_reviews`` Dagster asset start it, under a budget
of seconds checked between deals, reporting progress deal by deal.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from replay.single_dummy import SampledDecision, Settings, review_deal_single_dummy
from simulator.rollout import bot_rollout

COLUMNS: tuple[str, ...] = (
    "match_id",
    "deal_no",
    "seq",
    "seat",
    "kind",
    "cards_left",
    "action",
    "best_action",
    "played_mean",
    "played_low",
    "played_high",
    "best_mean",
    "loss",
    "worse_in",
    "layouts",
    "exact_layouts",
    "classes",
    "candidates",
    "label",
)
"""One row per reviewed decision (``candidates``: every candidate as ``action=mean``)."""


def candidate_text(action: object) -> str:
    """A candidate as text: a return card, a play's cards separated by spaces, or ``pass``."""
    if action is None:
        return "pass"
    if isinstance(action, str):
        return action
    cards = getattr(action, "cards", ())
    return " ".join(cards)


def decision_row(match: str, deal: int, d: SampledDecision) -> dict[str, Any]:
    """The row of one verdict (:data:`COLUMNS`), means rounded to hundredths of a level."""
    played, best = d.candidates[d.played], d.candidates[d.best]
    return {
        "match_id": match,
        "deal_no": deal,
        "seq": d.seq,
        "seat": d.seat,
        "kind": d.kind,
        "cards_left": d.cards_left,
        "action": candidate_text(played.action),
        "best_action": candidate_text(best.action),
        "played_mean": round(played.mean, 2),
        "played_low": round(played.low, 2),
        "played_high": round(played.high, 2),
        "best_mean": round(best.mean, 2),
        "loss": round(d.loss, 2),
        "worse_in": d.worse_in,
        "layouts": d.layouts,
        "exact_layouts": d.exact_layouts,
        "classes": d.classes,
        "candidates": " | ".join(f"{candidate_text(c.action)}={c.mean:+.2f}" for c in d.candidates),
        "label": d.label,
    }


def reviewable_deals(events: Sequence[Mapping[str, Any]]) -> list[int]:
    """The deals of a match whose four dealt hands the log shows (the review needs them)."""
    return sorted(
        int(e["deal"])
        for e in events
        if e.get("type") == "deal_start" and all(e.get("hands", {}).get(s) for s in "ENWS")
    )


@dataclass
class JobReport:
    """What one job did: deals reviewed, deals left for lack of budget or failing, and rows."""

    deals: int = 0
    skipped: int = 0
    failed: list[str] | None = None


def review_matches(
    matches: Mapping[str, Sequence[Mapping[str, Any]]],
    settings: Settings,
    *,
    deal: int | None = None,
    seconds: float | None = None,
    on_deal: Callable[[], None] | None = None,
    report: JobReport | None = None,
) -> Iterator[dict[str, Any]]:
    """Rows for every reviewable deal of ``matches`` (match id → its events; only deal number
    ``deal`` when given), match by match in id order, until ``seconds`` (``None``: no limit) have
    passed; a deal the log does not let the review follow is counted in ``report.failed``
    (``match deal: reason``) and the job goes on."""
    report = report if report is not None else JobReport()
    report.failed = report.failed if report.failed is not None else []
    start = time.monotonic()
    for match in sorted(matches):
        events = matches[match]
        for number in reviewable_deals(events):
            if deal is not None and number != deal:
                continue
            if seconds is not None and time.monotonic() - start > seconds:
                report.skipped += 1
                continue
            try:
                rows = [
                    decision_row(match, number, d)
                    for d in review_deal_single_dummy(events, settings, bot_rollout, deal=number)
                ]
            except ValueError as exc:
                report.failed.append(f"{match} deal {number}: {exc}")
                rows = []
            else:
                report.deals += 1
            yield from rows
            if on_deal is not None:
                on_deal()
