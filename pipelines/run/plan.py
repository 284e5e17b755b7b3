"""The run plan: the pipeline's steps as plain functions, their order, and the rule that skips them.

ingest → replay → (patterns, player reviews, roster, scoring) → warehouse publish → checks.
The steps after the replay declare the tables they read and write (:class:`Step`); their order
(:data:`DOWNSTREAM_STEPS`) is derived from that declaration, as are the Dagster assets'
dependencies (``pipelines.defs``), so the graph is written once.

Each step opens the store pinned to the step commit that is the last when it starts
(``Store.pinned``), writes its tables and returns a :class:`~pipelines.steps.step_reports.StepReport`.
The skip rule lives here, once (:func:`up_to_date`): when the downstream tables, the published
snapshot and the warehouse file were all computed from the last step commit, the replay
reports no outputs and every downstream step and the replayed tables' checks are skipped, so
a rerun with nothing new recomputes nothing (unless ``refresh``). ``gdan run`` runs the plan
(:func:`run_plan`, through ``pipelines.run.runner``); the Dagster assets call the same functions.
"""

from __future__ import annotations

from collections.abc import Iterable
from graphlib import TopologicalSorter
from pathlib import Path

from pipelines import release_freed_memory
from pipelines.exec.executor import Executor
from pipelines.exec.progress import track
from pipelines.run.lanes import run_in_lanes
from pipelines.run.store_checks import INGEST_CHECKS, REPLAY_CHECKS
from pipelines.steps.backfill import backfill
from pipelines.steps.player_patterns import write_player_patterns
from pipelines.steps.replaying import WRITTEN
from pipelines.steps.reviews import write_player_reviews
from pipelines.steps.roster import write_roster
from pipelines.steps.scoring_steps import SCORING_STEPS, SCORING_TABLES
from pipelines.steps.step_reports import Meta, RunReport, Step, StepReport
from pipelines.steps.transactions import ingest_step, replay_step
from pipelines.storage.store import Store
from pipelines.storage.warehouse import warehouse_is_current, write_warehouse
from schemas.catalog import ALL_TABLES

PATTERN_TABLES = ("player_patterns", "player_leads")
"""The tables the patterns step writes (``seat_patterns`` is appended by the replay step)."""

DOWNSTREAM: tuple[str, ...] = (*PATTERN_TABLES, *(t for t in SCORING_TABLES if t in ALL_TABLES))
"""The tables the downstream steps recompute from the replayed tables on every run with something new."""


def up_to_date(store: Store) -> bool:
    """Whether the downstream part of a run would change nothing.

    True when every downstream table was last computed from exactly the last step commit (as
    each step recorded what it read, ``Store.inputs``), the last published run is of that
    commit, and ``warehouse.duckdb`` holds exactly that run's views.
    """
    committed = store.reading().seq
    inputs = store.inputs()
    if any(inputs.get(name) != committed for name in DOWNSTREAM):
        return False
    published = store.published()
    return (
        published is not None
        and published.seq == committed
        and published.versions == store.snapshot(committed).versions
        and warehouse_is_current(store, published)
    )


def ingest(store: Store, *, workers: int = 0) -> StepReport:
    """Read the inbox's new files into ``raw_events`` (``pipelines.steps.transactions.ingest_step``)."""
    report = ingest_step(store, workers=workers or None)
    return StepReport("ingest", {"raw_events": report.as_metadata()})


def replay(store: Store, *, workers: int = 0, executor: Executor | None = None,
           refresh: bool = False, reviews: bool = True) -> StepReport:
    """Replay every complete, not yet replayed match into the derived tables (``replay_step``).

    The batches of whole matches run on ``executor`` (default: the local process pool). The
    step also rewrites ``incomplete_matches`` and ``superseded``; without ``reviews`` the matches
    it replays get no ``play_reviews`` rows. First, on a store replayed before the chunk summary
    tables existed, those are computed once from the whole store (``pipelines.steps.backfill``). Its
    report has no outputs when
    the downstream part is :func:`up_to_date` (and not ``refresh``): the downstream steps are
    then skipped.
    """
    backfilled = backfill(store)
    report = replay_step(store, workers=workers or None, executor=executor, reviews=reviews)
    if not refresh and up_to_date(store):
        return StepReport("replay")
    summary = report.as_metadata()
    outputs = {name: {"rows_added": report.rows_written[name], **summary} for name in WRITTEN}
    for name, rows in backfilled.items():
        outputs[name]["rows_backfilled"] = rows
    outputs["incomplete_matches"] = {"rows": report.incomplete}
    outputs["superseded"] = {"rows": report.superseded}
    return StepReport("replay", outputs)


def patterns(store: Store) -> StepReport:
    """Per-player play-pattern and lead counts for the Player page, the sums of the per-match
    counts the replay step appended (``pipelines.steps.player_patterns``)."""
    return StepReport("patterns", {name: {"rows": n} for name, n in write_player_patterns(store).items()})


def player_reviews(store: Store) -> StepReport:
    """Per-player decision-review summary for the Player page (``pipelines.steps.reviews``)."""
    return StepReport("player_reviews", {"player_reviews": {"rows": write_player_reviews(store)}})


def roster(store: Store) -> StepReport:
    """The roster (player id → name, club) from ``match_start.players`` (``pipelines.steps.roster``)."""
    return StepReport("roster", {"players": {"rows": write_roster(store)}})


def publish(store: Store) -> StepReport:
    """Publish the run's snapshot to readers (one run record); DuckDB views over it in warehouse.duckdb.

    Runs after every downstream step. The snapshot is of the step commit every downstream table
    was computed from (the earliest, should another writer have committed meanwhile: the next
    run then recomputes): the append tables at that commit's versions, every full-replace table
    at its latest.
    """
    inputs = store.inputs()
    seq = min(inputs.get(name, -1) for name in DOWNSTREAM)
    with store.writer_lock():
        snapshot = store.snapshot(seq)
        changed = store.publish(snapshot)
        path = write_warehouse(store, snapshot)
    metadata: Meta = {"path": str(path), "commit": seq, "snapshot_changed": changed}
    return StepReport("warehouse", {"warehouse": metadata})


INGESTED: tuple[str, ...] = ("raw_events", "ingested_files")
"""The tables the ingest step writes."""

REPLAYED: tuple[str, ...] = (*WRITTEN, "incomplete_matches", "superseded")
"""The tables the replay step writes (from ``raw_events``)."""


def step_needs(steps: Iterable[Step]) -> dict[str, set[str]]:
    """Per step name, the steps writing a table it reads (which it must follow). Raises
    ``ValueError`` when two steps write one table."""
    steps = tuple(steps)
    writer: dict[str, Step] = {}
    for step in steps:
        for table in step.writes:
            if table in writer:
                raise ValueError(f"table {table!r} is written by both {writer[table].name} and {step.name}")
            writer[table] = step
    return {step.name: {writer[t].name for t in step.reads if t in writer} - {step.name} for step in steps}


def in_dependency_order(steps: Iterable[Step]) -> tuple[Step, ...]:
    """``steps`` ordered so that each runs after every step writing a table it reads, otherwise in
    the order given (the first step whose inputs are all written goes next). Raises
    ``graphlib.CycleError`` on a cycle and ``ValueError`` when two steps write one table."""
    steps = tuple(steps)
    needs = step_needs(steps)
    TopologicalSorter(needs).prepare()  # raises CycleError on a cycle
    out: list[Step] = []
    placed: set[str] = set()
    while len(out) < len(steps):
        step = next(s for s in steps if s.name not in placed and needs[s.name] <= placed)
        out.append(step)
        placed.add(step.name)
    return tuple(out)


SUMMARY_STEPS: tuple[Step, ...] = (
    Step("patterns", patterns, PATTERN_TABLES, reads=("player_match_patterns", "player_match_leads"),
         group="replay"),
    Step("player_reviews", player_reviews, ("player_reviews",), reads=("play_reviews",), group="replay"),
    Step("roster", roster, ("players",), reads=("raw_events", "matches"), group="replay"),
)
"""The per-player summaries of the replayed tables and the roster."""

PUBLISHED: tuple[str, ...] = (
    *INGESTED, *REPLAYED,
    *dict.fromkeys(t for step in (*SUMMARY_STEPS, *SCORING_STEPS) for t in (*step.writes, *step.keeps)),
)
"""Every table a run writes: what the warehouse publish reads."""

DOWNSTREAM_STEPS: tuple[Step, ...] = in_dependency_order((
    *SUMMARY_STEPS,
    *SCORING_STEPS,
    Step("warehouse", publish, ("warehouse",), reads=PUBLISHED, group="warehouse"),
))
"""The steps after the replay, in dependency order; the warehouse publish last (it reads every table)."""


DOWNSTREAM_NEEDS = step_needs(DOWNSTREAM_STEPS)
"""Per downstream step, the steps it follows."""

LANES_MAX_DEALS = 20_000
"""A run replaying at most this many deals runs its downstream steps two at a time
(``pipelines.run.lanes``); a larger one, or a ``refresh``, one at a time. Each step's memory
follows what it reads, the new rows or whole tables: the first run of 1M deals had single steps
within 150 MiB of 2 GiB (docs/performance.md), a run adding 1,000 deals to that store peaked at
1.2 GiB with its steps one at a time."""


def _deals_replayed(replayed: StepReport) -> int:
    rows = replayed.outputs.get("deals", {}).get("rows_added", 0)
    return rows if isinstance(rows, int) else 0


def _run_step(step: Step, root: Path) -> StepReport:
    """One downstream step on the store pinned to the last step commit, with its progress bar;
    then the memory it freed goes back to the system."""
    with track(step.name, total=1):
        report = step.run(Store(root).pinned())
    release_freed_memory()
    return report


def run_plan(root: str | Path, *, workers: int = 0, refresh: bool = False,
             executor: Executor | None = None, reviews: bool = True) -> RunReport:
    """Run every step over the store at ``root`` and every check; returns what ran and what was skipped.

    A failing check does not stop the run (the report lists it); a step that raises does. The
    steps after the replay run two at a time when it replayed at most :data:`LANES_MAX_DEALS`
    deals and this is no ``refresh`` (``pipelines.run.lanes``), else one at a time; their reports
    are listed in :data:`DOWNSTREAM_STEPS`' order either way. Every step after the replay, and the
    checks, show a progress bar (``pipelines.exec.progress``), as the ingest and the replay do, so
    no phase of a run is silent.
    """
    where = Path(root).absolute()
    run = RunReport()
    run.add(ingest(Store(where), workers=workers))
    release_freed_memory()
    replayed = run.add(replay(Store(where), workers=workers, executor=executor, refresh=refresh,
                              reviews=reviews))
    release_freed_memory()
    if replayed.outputs:
        lanes = 1 if refresh or _deals_replayed(replayed) > LANES_MAX_DEALS else 2
        reports = {r.name: r for r in run_in_lanes(DOWNSTREAM_STEPS, DOWNSTREAM_NEEDS,
                                                   lambda step: _run_step(step, where), lanes)}
        for step in DOWNSTREAM_STEPS:
            run.add(reports[step.name])
    else:
        run.skipped.extend(step.name for step in DOWNSTREAM_STEPS)
    checks = [*INGEST_CHECKS, *(REPLAY_CHECKS if replayed.outputs else ())]
    with track("checks", total=len(checks)) as bar:
        for check in checks:
            run.checks.append(check.run(Store(where).pinned()))
            bar.advance()
            release_freed_memory()
    if not replayed.outputs:
        run.skipped.extend(check.name for check in REPLAY_CHECKS)
    return run
