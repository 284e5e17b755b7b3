"""The steps after the replay, two at a time (``pipelines.run.lanes``): dependency order kept,
independent steps overlapping, never two keeping one table, a failure stopping the run."""

from __future__ import annotations

import threading
from collections.abc import Callable
from pathlib import Path

import pytest

from pipelines.run import plan
from pipelines.run.lanes import run_in_lanes
from pipelines.run.plan import DOWNSTREAM_NEEDS, DOWNSTREAM_STEPS, step_needs
from pipelines.steps.step_reports import Step, StepReport

WAIT_S = 60.0
"""How long a step waits for another to start beside it before the test fails (only reached
when the lanes are wrong; a correct run never waits for it)."""


def _step(name: str, body: Callable[[], object] = lambda: None, *, reads: tuple[str, ...] = (),
          keeps: tuple[str, ...] = ()) -> Step:
    def run(_store: object) -> StepReport:
        body()
        return StepReport(name)

    return Step(name, run, (f"{name}_table",), reads=reads, keeps=keeps)


def _run(steps: tuple[Step, ...], lanes: int, log: list[str]) -> list[str]:
    lock = threading.Lock()

    def run_step(step: Step) -> StepReport:
        with lock:
            log.append(f"start {step.name}")
        report = step.run(None)
        with lock:
            log.append(f"end {step.name}")
        return report

    return [r.name for r in run_in_lanes(steps, step_needs(steps), run_step, lanes)]


def test_independent_steps_run_at_once_and_dependents_after() -> None:
    both = threading.Barrier(2, timeout=WAIT_S)
    steps = (_step("a", both.wait), _step("b", both.wait), _step("c", reads=("a_table", "b_table")))
    log: list[str] = []
    done = _run(steps, 2, log)
    assert sorted(done[:2]) == ["a", "b"] and done[2] == "c"
    assert log.index("start c") > max(log.index("end a"), log.index("end b"))


def test_steps_keeping_one_table_never_overlap() -> None:
    """a and b both keep ``digests``: b waits for a, and c (ready, listed after b) takes the free
    lane meanwhile (a finishes only once c has started)."""
    c_started = threading.Event()
    steps = (_step("a", lambda: c_started.wait(WAIT_S) or pytest.fail("c did not start beside a"),
                   keeps=("digests",)),
             _step("b", keeps=("digests",)), _step("c", c_started.set))
    log: list[str] = []
    _run(steps, 2, log)
    assert log.index("start b") > log.index("end a")


def test_a_step_others_wait_for_starts_first() -> None:
    """a, b and d are ready; c waits for d: d takes a lane first, although listed last, and b
    (listed before it) waits for a free lane."""
    d_started = threading.Event()
    steps = (_step("a", lambda: d_started.wait(WAIT_S) or pytest.fail("d did not start beside a")),
             _step("b"), _step("c", reads=("d_table",)), _step("d", d_started.set))
    log: list[str] = []
    _run(steps, 2, log)
    assert log.index("start d") < log.index("start b")


def test_one_lane_runs_in_order_in_this_thread() -> None:
    threads: list[threading.Thread] = []
    steps = tuple(_step(n, lambda: threads.append(threading.current_thread())) for n in "abc")
    assert _run(steps, 1, []) == ["a", "b", "c"]
    assert threads == [threading.main_thread()] * 3


def test_a_failing_step_stops_the_run() -> None:
    def fail() -> None:
        raise RuntimeError("step a failed")

    steps = (_step("a", fail), _step("b"), _step("c", reads=("a_table",)))
    log: list[str] = []
    with pytest.raises(RuntimeError, match="step a failed"):
        _run(steps, 2, log)
    assert "start c" not in log


def test_the_downstream_steps_keep_their_order_within_the_lanes() -> None:
    """Run with the real declarations: every step after all it reads from, the warehouse last."""
    steps = tuple(Step(s.name, lambda _store, n=s.name: StepReport(n), s.writes, reads=s.reads, keeps=s.keeps)
                  for s in DOWNSTREAM_STEPS)
    done = [r.name for r in run_in_lanes(steps, DOWNSTREAM_NEEDS, lambda s: s.run(None), 2)]
    assert sorted(done) == sorted(s.name for s in DOWNSTREAM_STEPS)
    assert done[-1] == "warehouse"
    for name, needs in DOWNSTREAM_NEEDS.items():
        assert all(done.index(n) < done.index(name) for n in needs), name


@pytest.mark.parametrize(("deals", "refresh", "lanes"), [(1_000, False, 2), (1_000, True, 1),
                                                         (plan.LANES_MAX_DEALS + 1, False, 1)])
def test_a_small_run_takes_two_lanes(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, deals: int,
                                     refresh: bool, lanes: int) -> None:
    seen: list[int] = []
    monkeypatch.setattr(plan, "ingest", lambda store, workers: StepReport("ingest"))
    replayed = StepReport("replay", {"deals": {"rows_added": deals}})
    monkeypatch.setattr(plan, "replay", lambda store, **_: replayed)

    def lanes_taken(steps: tuple[Step, ...], needs: object, run_step: object, n: int) -> list[StepReport]:
        seen.append(n)
        return [StepReport(s.name) for s in steps]

    monkeypatch.setattr(plan, "run_in_lanes", lanes_taken)
    monkeypatch.setattr(plan, "INGEST_CHECKS", ())
    monkeypatch.setattr(plan, "REPLAY_CHECKS", ())
    plan.run_plan(tmp_path, refresh=refresh)
    assert seen == [lanes]
