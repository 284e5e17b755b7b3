"""The opt-in single-dummy review job: every real decision of every deal, from the player's view.

The rules engine samples the layouts and values candidates (``replay.single_dummy``); the
simulator's bots play out what the solver cannot settle (``simulator.rollout``): this module joins
the two (the engine may not import the simulator) and turns verdicts into rows. The job is costly
(tens of seconds a deal at 32 layouts, ``docs/performance.md``), so it is never part of a default
run: ``gdan single-dummy`` reviews event files, and the opt-in ``single_dummy_reviews`` Dagster
asset (:func:`write_single_dummy_reviews`) the store's valid matches not reviewed yet, into the
full-replace table of that name (shown from the next published run); both under a budget of
seconds (checked between deals, between whole matches for the store), reporting progress.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from pipelines.steps.reviews import SEVERITY_LIMITS
from pipelines.storage.store import Store
from replay.single_dummy import SampledDecision, Settings, review_deal_single_dummy
from schemas.tables import SINGLE_DUMMY_REVIEWS
from simulator.rollout import bot_rollout

COLUMNS: tuple[str, ...] = (
    "match_id",
    "deal_no",
    "seq",
    "seat",
    "kind",
    "phase",
    "cards_left",
    "hand",
    "action",
    "best_action",
    "played_mean",
    "played_low",
    "played_high",
    "best_mean",
    "loss",
    "win_best",
    "win_played",
    "match_loss",
    "worse_in",
    "layouts",
    "exact_layouts",
    "classes",
    "candidates",
    "label",
)
"""One row per reviewed decision (``hand``: the decider's cards before it; ``candidates``: every
candidate valued, as ``action``, ``mean``, ``low``, ``high``, ``win``; ``win_best``, ``win_played``
and ``match_loss``: match-winning chances, ``replay.single_dummy``)."""


def sampled_severity(loss: float, match_loss: float) -> str:
    """``best`` when the action taken has the best mean in levels, else by the match-winning chance
    it gave away, as the exact verdicts are (``pipelines.steps.reviews.SEVERITY_LIMITS``):
    ``blunder``, ``mistake`` or ``inaccuracy``."""
    if loss <= 0:
        return "best"
    return next((word for limit, word in SEVERITY_LIMITS if match_loss >= limit), "inaccuracy")


def candidate_text(action: object) -> str:
    """A candidate as text: a return card, a play's cards separated by spaces, or ``pass``."""
    if action is None:
        return "pass"
    if isinstance(action, str):
        return action
    cards = getattr(action, "cards", ())
    return " ".join(cards)


def candidates_text(candidates: Sequence[Mapping[str, Any]]) -> str:
    """The ``candidates`` of a row as one line: ``action=mean [low, high] win%`` joined by `` | ``."""
    return " | ".join(
        f"{c['action']}={c['mean']:+.2f} [{c['low']:+.2f}, {c['high']:+.2f}] {100 * c['win']:.0f}%"
        for c in candidates
    )


def decision_row(match: str, deal: int, d: SampledDecision, player: str | None = None) -> dict[str, Any]:
    """The row of one verdict (:data:`COLUMNS`, and ``player_id``), means and intervals rounded to
    hundredths of a level."""
    played, best = d.candidates[d.played], d.candidates[d.best]
    return {
        "match_id": match,
        "deal_no": deal,
        "seq": d.seq,
        "seat": d.seat,
        "player_id": player,
        "kind": d.kind,
        "phase": d.phase,
        "cards_left": d.cards_left,
        "hand": list(d.hand),
        "action": candidate_text(played.action),
        "best_action": candidate_text(best.action),
        "played_mean": round(played.mean, 2),
        "played_low": round(played.low, 2),
        "played_high": round(played.high, 2),
        "best_mean": round(best.mean, 2),
        "loss": round(d.loss, 2),
        "win_best": round(d.win_best, 4),
        "win_played": round(d.win_played, 4),
        "match_loss": round(d.match_loss, 4),
        "worse_in": d.worse_in,
        "layouts": d.layouts,
        "exact_layouts": d.exact_layouts,
        "classes": d.classes,
        "candidates": [
            {"action": candidate_text(c.action), "mean": round(c.mean, 2), "low": round(c.low, 2),
             "high": round(c.high, 2), "win": round(c.win, 4)}
            for c in d.candidates
        ],
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
    ``deal`` when given), match by match in id order, starting no new deal once ``seconds``
    (``None``: no limit) have passed (the first deal always starts); a deal the log does not let
    the review follow is counted in ``report.failed`` (``match deal: reason``) and the job goes on."""
    report = report if report is not None else JobReport()
    report.failed = report.failed if report.failed is not None else []
    start = time.monotonic()
    for match in sorted(matches):
        events = matches[match]
        seats = _seats(events)
        for number in reviewable_deals(events):
            if deal is not None and number != deal:
                continue
            if (report.deals or report.failed) and seconds is not None and time.monotonic() - start > seconds:
                report.skipped += 1
                continue
            try:
                rows = list(deal_rows(events, match, number, settings, seats))
            except ValueError as exc:
                report.failed.append(f"{match} deal {number}: {exc}")
                rows = []
            else:
                report.deals += 1
            yield from rows
            if on_deal is not None:
                on_deal()


def deal_rows(
    events: Sequence[Mapping[str, Any]],
    match: str,
    deal: int,
    settings: Settings,
    seats: Mapping[str, str] | None = None,
) -> Iterator[dict[str, Any]]:
    """The rows of one deal's verdicts (``events``: its match's), yielded decision by decision so
    a caller can show progress; ``ValueError`` when the log does not let the review follow it."""
    seats = _seats(events) if seats is None else seats
    for d in review_deal_single_dummy(events, settings, bot_rollout, deal=deal):
        yield decision_row(match, deal, d, seats.get(d.seat))


def _seats(events: Sequence[Mapping[str, Any]]) -> dict[str, str]:
    """Seat → player id of a match (``match_start.seats``)."""
    start = next((e for e in events if e.get("type") == "match_start"), None)
    seats = start.get("seats") if start is not None else None
    return {s: p for s, p in seats.items() if isinstance(p, str)} if isinstance(seats, dict) else {}


def write_single_dummy_reviews(
    store: Store,
    settings: Settings,
    *,
    seconds: float | None = None,
    on_match: Callable[[int, int], None] | None = None,
) -> JobReport:
    """Review the store's valid matches that ``single_dummy_reviews`` does not hold yet, in id
    order, starting no new match after ``seconds`` (the first always starts), and write the table
    (its rows and the new ones; a match is written whole or not at all). ``on_match(done, total)``
    after each match."""
    import duckdb
    import orjson
    import pyarrow as pa

    from pipelines.storage.warehouse import create_views

    con = duckdb.connect(":memory:")
    try:
        con.execute("SET enable_progress_bar = false")
        create_views(con, store, store.snapshot(), ["raw_events", "matches", "single_dummy_reviews"])
        kept = con.execute("SELECT * FROM single_dummy_reviews").to_arrow_table()
        done = set(kept["match_id"].to_pylist())
        todo = [
            m
            for (m,) in con.execute(
                "SELECT match_id FROM matches WHERE status = 'valid' ORDER BY match_id"
            ).fetchall()
            if m not in done
        ]
        payloads = con.execute(
            """
            SELECT r.match_id, r.payload FROM raw_events r JOIN matches m USING (match_id)
            WHERE m.status = 'valid' AND r.parse_error IS NULL
              AND coalesce(r.revision, 1) = coalesce(m.revision, 1)
            ORDER BY r.match_id, r.seq
            """
        ).fetchall()
    finally:
        con.close()
    wanted = set(todo)
    events: dict[str, dict[int, dict[str, Any]]] = {}
    for match, payload in payloads:
        if match in wanted:
            event = orjson.loads(payload)
            events.setdefault(match, {}).setdefault(int(event["seq"]), event)
    report = JobReport(failed=[])
    rows: list[dict[str, Any]] = []
    start = time.monotonic()
    for i, match in enumerate(todo):
        if i and seconds is not None and time.monotonic() - start > seconds:
            report.skipped += len(todo) - i
            break
        rows += review_matches({match: list(events.get(match, {}).values())}, settings, report=report)
        if on_match is not None:
            on_match(i + 1, len(todo))
    schema = SINGLE_DUMMY_REVIEWS
    new = pa.Table.from_pylist([{f.name: r.get(f.name) for f in schema} for r in rows], schema=schema)
    store.write_table("single_dummy_reviews", pa.concat_tables([kept.select(schema.names).cast(schema), new]))
    return report
