"""Running the steps after the replay two at a time: a step starts once every step writing a
table it reads has finished, beside another that shares no table with it.

A run that adds a few thousand deals to a large store spends its downstream time in a dozen
steps of about a second each, each reading whole tables and writing a few (polars and Delta
writes, which leave the interpreter's lock), while the other core waits. Two independent steps
at once use it. They are independent by their declarations (``Step.reads``, ``writes``,
``keeps``): neither reads what the other writes, and they keep no table in common (two steps
that both read and rewrite the partition digests of ``scoring_partitions`` never overlap), so
every table is what running them one after the other gives. Each step holds the writer lock
only while it writes (the lock is exclusive between threads as between processes).

With one lane the steps run in this thread, in order. With two they run in daemon threads, so
an interrupted run (Ctrl-C, SIGTERM) stops at once, as it does in a step of its own thread: a
step cut short is a crash the store recovers from (nothing it wrote is committed). A step that
fails lets the other one running finish, then its error goes on.
"""

from __future__ import annotations

import queue
import threading
from collections.abc import Callable, Iterator, Mapping
from graphlib import TopologicalSorter

from pipelines.steps.step_reports import Step, StepReport

Finished = tuple[Step, StepReport | None, BaseException | None]
"""A step that ended: its report, or the error it raised."""


def run_in_lanes(
    steps: tuple[Step, ...], needs: Mapping[str, set[str]], run_step: Callable[[Step], StepReport],
    lanes: int,
) -> Iterator[StepReport]:
    """Yield ``run_step(step)`` of every step of ``steps`` (in dependency order), as they finish.

    ``needs``: per step name, the names of the steps it must follow. At most ``lanes`` steps run
    at once, never two that keep a table in common; among the steps ready to start, the one
    more steps wait for (directly or not) starts first, so the longest chain (duplicates →
    scores → ratings → their summaries → the warehouse) is not held up behind steps nothing
    waits for (0.8 s of a run adding 1,000 deals to a 1M store); between equals, the one listed
    first. A step that raises stops the run: no other step starts, the one running beside it
    finishes, and the exception goes on.
    """
    if lanes <= 1:
        for step in steps:
            yield run_step(step)
        return
    by_name = {step.name: step for step in steps}
    waiting = _dependents(needs)
    rank = {step.name: (-len(waiting.get(step.name, ())), i) for i, step in enumerate(steps)}
    sorter = TopologicalSorter({name: needs.get(name, set()) for name in by_name})
    sorter.prepare()
    ready: list[Step] = []
    running: dict[str, Step] = {}
    finished: queue.Queue[Finished] = queue.Queue()
    while sorter.is_active():
        ready.extend(by_name[name] for name in sorter.get_ready())
        ready.sort(key=lambda s: rank[s.name])
        for step in list(ready):
            kept = {t for r in running.values() for t in r.keeps}
            if len(running) < lanes and not kept & set(step.keeps):
                ready.remove(step)
                running[step.name] = step
                _start(step, run_step, finished)
        step, report, error = finished.get()
        del running[step.name]
        if error is not None:
            while running:
                del running[finished.get()[0].name]
            raise error
        assert report is not None
        yield report
        sorter.done(step.name)


def _start(step: Step, run_step: Callable[[Step], StepReport], finished: queue.Queue[Finished]) -> None:
    """Run ``step`` in a daemon thread that puts it in ``finished`` when it ends."""

    def run() -> None:
        try:
            report = run_step(step)
        except BaseException as exc:  # any: the run waits for every step it started
            finished.put((step, None, exc))
        else:
            finished.put((step, report, None))

    threading.Thread(target=run, name=f"step-{step.name}", daemon=True).start()


def _dependents(needs: Mapping[str, set[str]]) -> dict[str, set[str]]:
    """Per step, every step that follows it, directly or through others."""
    out: dict[str, set[str]] = {}

    def of(name: str) -> set[str]:
        if name not in out:
            out[name] = set()
            direct = {step for step, before in needs.items() if name in before}
            out[name] = direct.union(*(of(step) for step in direct))
        return out[name]

    for name in needs:
        of(name)
    return out
