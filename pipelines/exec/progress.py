"""Progress reporting from inside the steps, shown by ``gdan run`` as rich progress bars.

The steps run in the ``gdan`` process (``pipelines.run.plan``), so a module-level reporter is
enough: :func:`track` is a no-op unless :func:`show_with` installed a rich ``Progress``.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass

from rich.progress import Progress, TaskID

_progress: Progress | None = None


@dataclass(slots=True)
class Tracker:
    """One progress bar: set its total when known, advance it as work is done."""

    _task: TaskID | None = None

    def total(self, total: int) -> None:
        if _progress is not None and self._task is not None:
            _progress.update(self._task, total=total)

    def advance(self, amount: int = 1) -> None:
        if _progress is not None and self._task is not None:
            _progress.advance(self._task, amount)


@contextmanager
def track(description: str, total: int | None = None) -> Iterator[Tracker]:
    """A progress bar for one stage (shown only under :func:`show_with`).

    A stage that finishes fills its bar; one that is interrupted or fails keeps the bar where it
    stopped and says so, so the screen never shows 100 % for work that was not done.
    """
    if _progress is None:
        yield Tracker()
        return
    task = _progress.add_task(description, total=total)
    try:
        yield Tracker(task)
    except BaseException as exc:
        why = "failed" if isinstance(exc, Exception) else "interrupted"
        _progress.update(task, description=f"{description} ({why})")
        raise
    done = next(t for t in _progress.tasks if t.id == task)
    _progress.update(task, total=done.total or 1, completed=done.total or 1)


@contextmanager
def show_with(progress: Progress) -> Iterator[None]:
    """Route every :func:`track` inside this block to ``progress``."""
    global _progress
    previous, _progress = _progress, progress
    try:
        yield
    finally:
        _progress = previous
