"""What is new in a store's inbox, and a watcher that runs the pipeline when something is.

Both long-running ways of processing submissions use it: the Dagster inbox sensor
(``pipelines.defs.sensors``, under ``dagster dev`` or the daemon) asks :func:`new_files` at each
tick, and ``gdan serve`` polls with an :class:`InboxWatcher`, which runs the in-process plan
(:func:`pipelines.run.runner.run_pipeline`) in the serving process. A file counts as seen by its
path in the inbox, size and modification time (:func:`stamp`): a file written again under the
same name is new again, and the ingest reads each content once whatever runs.
"""

from __future__ import annotations

import json
import logging
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

from pipelines.steps.ingest import inbox_files

log = logging.getLogger(__name__)


def seen_files(cursor: str | None) -> dict[str, str]:
    """The files a cursor records: path in the inbox → its :func:`stamp`."""
    return dict(json.loads(cursor)) if cursor else {}


def cursor_of(seen: dict[str, str]) -> str:
    """``seen`` as a cursor (the inverse of :func:`seen_files`)."""
    return json.dumps(sorted(seen.items()))


def stamp(path: Path) -> str:
    """What identifies a file's state: its size and modification time."""
    info = path.stat()
    return f"{info.st_size}:{info.st_mtime_ns}"


def new_files(inbox: Path, seen: dict[str, str]) -> Iterator[tuple[str, Path]]:
    """The inbox's files (path in the inbox, path) that ``seen`` does not record as they are now.

    Hidden files (a submission still being written) are not the inbox's (``inbox_files``)."""
    for path in inbox_files(inbox):
        name = path.relative_to(inbox).as_posix()
        if seen.get(name) != stamp(path):
            yield name, path


@dataclass(frozen=True)
class RunResult:
    """What a pipeline run did: the run it published (None: nothing new to publish) and the
    quarantine rows it added."""

    published: int | None
    quarantined: int = 0


Runner = Callable[[], RunResult]
"""Runs the pipeline over the watched store once; raises when the run fails."""


@dataclass(frozen=True)
class Poll:
    """One look at the inbox: the new files, and when there were any, how their run went."""

    files: int
    result: RunResult | None = None
    error: str | None = None
    seconds: float = 0.0

    @property
    def ran(self) -> bool:
        return self.files > 0


def pipeline_runner(root: Path, *, workers: int = 1, reviews: bool = True) -> Runner:
    """The in-process pipeline run over the store at ``root`` (what ``gdan run`` runs)."""
    from pipelines.run.runner import run_pipeline
    from pipelines.storage.store import Store

    def run() -> RunResult:
        store = Store(root)
        before, quarantine_before = store.last_run(), store.committed_rows("quarantine")
        run_pipeline(root, workers=workers, reviews=reviews)
        after = store.last_run()
        return RunResult(after if after != before else None,
                         store.committed_rows("quarantine") - quarantine_before)

    return run


class InboxWatcher:
    """Runs the pipeline whenever the inbox holds files not seen before, and reports each run.

    The first poll treats every file present as new, so files submitted while nothing was
    serving are processed at start (a run with nothing new to ingest publishes nothing). A file
    counts as seen once a run started after it was listed, whether that run succeeded or not: a
    failing run is reported (``report``) and not repeated until another file arrives, rather
    than failing every poll; the next run retries whatever that one left uncommitted.
    """

    def __init__(self, inbox: Path, run: Runner, report: Callable[[str], None] = log.info,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.inbox = inbox
        self.run = run
        self.report = report
        self.clock = clock
        self.seen: dict[str, str] = {}
        self.started = False

    def poll(self) -> Poll:
        """Look at the inbox once; run the pipeline if anything is new. Never raises for a failed
        run (an interrupt, KeyboardInterrupt, goes through)."""
        new = {name: stamp(path) for name, path in new_files(self.inbox, self.seen)}
        at_start, self.started = not self.started, True
        if not new:
            return Poll(0)
        if at_start:
            self.report(f"{len(new)} file(s) in the inbox at start: running the pipeline (what "
                        "is already ingested is skipped)")
        else:
            self.report(f"{len(new)} new file(s) in the inbox: running the pipeline")
        started = self.clock()
        try:
            result = self.run()
        except Exception as exc:  # a failed run must not stop the service: reported, not raised
            seconds = self.clock() - started
            self.seen.update(new)
            self.report(f"run failed after {seconds:.1f} s: {exc}. The store keeps its last "
                        "committed state; the next new file runs the pipeline again.")
            return Poll(len(new), error=str(exc) or type(exc).__name__, seconds=seconds)
        seconds = self.clock() - started
        self.seen.update(new)
        if result.published is not None:
            self.report(f"ingested {len(new)} file(s), published run {result.published} in {seconds:.1f} s")
        else:
            self.report(f"looked at {len(new)} file(s): nothing new to publish ({seconds:.1f} s)")
        if result.quarantined:
            self.report(f"{result.quarantined} quarantine row(s) added by this run: see the Data "
                        "quality page or `gdan sql \"SELECT * FROM quarantine\"`")
        return Poll(len(new), result, seconds=seconds)

    def watch(self, poll_seconds: float, keep_going: Callable[[], bool],
              wait: Callable[[float], object] = time.sleep) -> None:
        """Poll every ``poll_seconds`` while ``keep_going()`` (checked before each poll)."""
        while keep_going():
            self.poll()
            wait(poll_seconds)
