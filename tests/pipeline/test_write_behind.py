"""The writes a run's process hands to a thread of their own: in order, bounded, errors raised."""

from __future__ import annotations

import threading
from functools import partial

import pytest

from pipelines.storage.write_behind import WriteBehind


def test_writes_run_in_the_order_given_in_another_thread() -> None:
    done: list[tuple[int, str]] = []

    def write(k: int) -> None:
        done.append((k, threading.current_thread().name))

    behind = WriteBehind("test-writes")
    for k in range(100):
        behind.submit(partial(write, k))
    behind.close()
    assert [k for k, _ in done] == list(range(100))
    assert {name for _, name in done} == {"test-writes"}


def test_a_failed_write_is_raised_by_close_and_the_writes_after_it_are_dropped() -> None:
    done: list[int] = []

    def fail() -> None:
        raise OSError(28, "No space left on device")

    behind = WriteBehind("test-writes")
    behind.submit(lambda: done.append(1))
    behind.submit(fail)
    behind.submit(lambda: done.append(3))
    with pytest.raises(OSError, match="No space left"):
        behind.close()
    assert done == [1]


def test_a_failed_write_is_raised_by_the_next_submit() -> None:
    def fail() -> None:
        raise ValueError("cannot cast")

    behind = WriteBehind("test-writes", depth=1)
    behind.submit(fail)
    # The first may wait in the queue while `fail` runs; the second returns once the thread took
    # the first, after `fail` ended: the third raises at the latest.
    with pytest.raises(ValueError, match="cannot cast"):
        for _ in range(3):
            behind.submit(lambda: None)
    with pytest.raises(ValueError, match="cannot cast"):
        behind.close()


def test_at_most_depth_writes_wait() -> None:
    release = threading.Event()
    started = threading.Event()

    def blocked() -> None:
        started.set()
        release.wait()

    behind = WriteBehind("test-writes", depth=1)
    behind.submit(blocked)
    started.wait()
    behind.submit(lambda: None)  # the one write that may wait
    third = threading.Thread(target=behind.submit, args=(lambda: None,))
    third.start()
    third.join(0.5)
    assert third.is_alive(), "a second waiting write was accepted"
    release.set()
    third.join()
    behind.close()
