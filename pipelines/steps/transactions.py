"""The pipeline's writing steps, each one transaction on the store: lock, recover, stage, commit.

Every step takes the store's writer lock, first rolls back any debris of a crashed run
(``Store.recover``), stages its output as one append batch, then appends the batch to its Delta
tables and saves the state, whose commit-log row is the commit point. A step with nothing to do
writes nothing, so a rerun with no new input changes nothing.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from functools import cache

from pipelines.exec.executor import Executor
from pipelines.exec.progress import track
from pipelines.steps.corrections import write_superseded
from pipelines.steps.incomplete import write_incomplete
from pipelines.steps.ingest import IngestReport, ingest_inbox
from pipelines.steps.replaying import ReplayFn, ReplayReport, replay_ready
from pipelines.steps.roster import remember_ingested
from pipelines.steps.state import StoreState, load_state, pending, save_state
from pipelines.storage.delta import new_id
from pipelines.storage.store import Store


def _commit(store: Store, state: StoreState, batch_id: str) -> None:
    """Append the staged batch, then save the state: its commit row names every version written
    (the appends, and the deletions of a correction's retraction)."""
    appended = store.publish_batch(batch_id)
    versions = {**store.unnamed_versions(), **appended}
    save_state(store, state, batch_id if appended else None, versions)


def ingest_step(store: Store, *, workers: int | None = None) -> IngestReport:
    """Read every new inbox file into one ``raw_events`` batch (see ``pipelines.steps.ingest``),
    then remember the batch's player declarations for the roster (``pipelines.steps.roster``).

    ``workers``: parsing processes (default: one per CPU core).
    """
    with store.writer_lock():
        store.recover()
        state = load_state(store)
        fingerprints = {k: list(v) for k, v in state.fingerprints.items()}
        batch_id = new_id()
        with track("ingest files") as bar:
            report = ingest_inbox(store, state, batch_id, workers=workers or os.cpu_count() or 1,
                                  advance=bar.advance, on_files=bar.total)
        if report.files_read or state.fingerprints != fingerprints:
            _commit(store, state, batch_id)
            if report.raw_files and report.match_starts is not None:
                remember_ingested(store, report.match_starts, report.raw_files)
        else:
            store.discard_batch(batch_id)
        return report


def replay_step(store: Store, *, replay_fn: ReplayFn | None = None,
                workers: int | None = None, executor: Executor | None = None,
                reviews: bool = True) -> ReplayReport:
    """Replay every complete, not yet replayed match into one batch of the derived tables.

    The batches of whole matches run on ``executor`` (default: the local process pool).
    ``reviews``: also review their deals with the exact endgame solver (``play_reviews``); a run
    without writes no ``play_reviews`` rows for the matches it replays (they are not reviewed
    later either: the setting is the run's).

    Whether there is work is read from the last commit row (``pipelines.steps.state.pending``), so
    with nothing pending the catalogue is not read.

    Then rewrite ``incomplete_matches`` (``pipelines.steps.incomplete``) and ``superseded``
    (``pipelines.steps.corrections``) when a step committed since they were last written, also when
    there was nothing to replay: ingest may have added pieces of matches that are still
    incomplete, or a revision that does not win. Both read the committed state: the one the
    replay just saved, or else loaded once (its catalogue: ≈ 0.2 s at 1M deals).
    """
    with store.writer_lock():
        store.recover()
        saved: StoreState | None = None
        if not pending(store):
            report = ReplayReport(batch_id="")
        else:
            saved = load_state(store)
            batch_id = new_id()
            with track("replay events") as bar:
                report = replay_ready(store, saved, batch_id, replay_fn=replay_fn, workers=workers,
                                      executor=executor, reviews=reviews,
                                      on_total=bar.total, advance=bar.advance)
            _commit(store, saved, batch_id)
        pinned = store.pinned()
        committed = cache(lambda: saved or load_state(pinned))
        report.incomplete = _rewritten(pinned, "incomplete_matches",
                                       lambda s: write_incomplete(s, committed()))
        report.superseded = _rewritten(pinned, "superseded", lambda s: write_superseded(s, committed()))
        return report


def _rewritten(store: Store, name: str, write: Callable[[Store], int]) -> int:
    """Rows of table ``name`` after ``write`` recomputed it, unless it was already computed from
    the commit ``store`` is pinned to (``Store.inputs``: nothing committed since, nothing to do)."""
    if store.input_of(name) == store.reading().seq:
        return store.row_count(name)
    return write(store)

