"""A Dask worker preload for the cross-host test: the first replay task that reaches a worker
started with it kills that worker's process mid-task (as a crashed host would), once per marker
file (``$GDAN_TEST_DIE_ONCE``); the worker's nanny restarts it and later tasks run as usual."""

from __future__ import annotations

import os
from typing import Any

from pipelines.steps import replay_task as task_module

_replay_task = task_module.replay_task


def _dying_once(*args: Any, **kwargs: Any) -> Any:
    try:
        os.close(os.open(os.environ["GDAN_TEST_DIE_ONCE"], os.O_CREAT | os.O_EXCL))
    except FileExistsError:
        return _replay_task(*args, **kwargs)
    os._exit(1)


task_module.replay_task = _dying_once
