"""A task for the pool's tests: what a worker has imported when its task starts (a module of its
own: a worker imports a task's function by its module's name)."""

from __future__ import annotations

import sys


def imported(name: str) -> bool:
    """Whether module ``name`` is imported in the process running this."""
    return name in sys.modules
