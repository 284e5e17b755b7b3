"""The benchmarks' memory sampler (``benchmarks/bench_pipeline.py``): the peaks the scale figures
in docs/performance.md rest on. RSS is read every sample, PSS on a slower schedule (reading it
walks every page table of the tree), and both must still see a process's peak.

The processes measured hold their memory until the test lets them go, and the test waits for
the sampler to have taken a sample after the memory was touched, so what the sampler sees does
not depend on how fast the machine is (a loaded machine only makes the test slower)."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))

from bench_pipeline import PeakMemory, tree_memory

MiB = 2**20
HOLD = """
import sys
sys.stdin.readline()
block = bytearray(300 * 2**20)
for i in range(0, len(block), 4096):
    block[i] = 1
print("held", flush=True)
sys.stdin.readline()
"""
"""A child that waits for a line, touches 300 MiB, says so, and holds it until the next line."""

GRANDCHILD = f"import subprocess, sys; subprocess.run([sys.executable, '-c', {HOLD!r}])"
"""A parent whose child (sharing its stdin and stdout) runs :data:`HOLD`."""

LIVENESS_S = 120.0
"""How long a wait may take before the test fails as hung; only a bound on a hang."""

needs_proc = pytest.mark.skipif(not Path("/proc/self/smaps_rollup").exists(), reason="needs Linux /proc")


@contextmanager
def _holder(code: str) -> Iterator[subprocess.Popen[str]]:
    """A process running ``code`` with pipes for stdin and stdout; let go and reaped on exit."""
    process = subprocess.Popen([sys.executable, "-c", code], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                               text=True)
    try:
        yield process
    finally:
        process.kill()
        process.wait()
        if process.stdin is not None:
            process.stdin.close()  # a grandchild still waiting for a line reads the end and exits


def _say(process: subprocess.Popen[str], line: str = "") -> None:
    assert process.stdin is not None
    process.stdin.write(line + "\n")
    process.stdin.flush()


def _wait_for_samples(memory: PeakMemory, count: int) -> None:
    """Until ``memory`` has taken ``count`` samples (a liveness wait: it only bounds a hang)."""
    deadline = time.monotonic() + LIVENESS_S
    while memory.samples < count:
        assert time.monotonic() < deadline, f"the sampler took {memory.samples} of {count} samples"
        time.sleep(0.01)


def _hold(process: subprocess.Popen[str]) -> None:
    """Tell ``process`` to touch its 300 MiB and wait until it has."""
    _say(process)
    assert process.stdout is not None and process.stdout.readline() == "held\n"


@needs_proc
def test_both_peaks_see_a_process_holding_300_mib() -> None:
    """The last sample of :meth:`PeakMemory.close` reads both while the child still holds."""
    with _holder(HOLD) as child:
        memory = PeakMemory(child.pid)
        _hold(child)
        peak = memory.close()
    assert peak.rss >= 300 * MiB
    assert peak.pss >= 300 * MiB


@needs_proc
def test_a_peak_between_timed_pss_reads_shows_in_both() -> None:
    """A grandchild that holds 300 MiB only after the first PSS read and is gone before the last:
    with the PSS schedule's clock stopped, only the RSS's growth triggers a PSS read, and the RSS
    sample after the memory was touched sees it (the last PSS read may come before the last 10 %
    of the growth)."""
    with _holder(GRANDCHILD) as parent:
        memory = PeakMemory(parent.pid, clock=lambda: 0.0)
        _wait_for_samples(memory, 1)  # the first, timed, PSS read: before the 300 MiB
        _hold(parent)
        _wait_for_samples(memory, memory.samples + 2)  # the next sample starts after "held"
        _say(parent)  # let go: the grandchild frees its memory and both exit
        assert parent.wait(LIVENESS_S) == 0
        peak = memory.close()
    assert peak.rss >= 300 * MiB
    assert peak.pss >= 300 * MiB / PeakMemory.PSS_ON_GROWTH


def test_without_pss_only_the_rss_is_read() -> None:
    now = tree_memory(os.getpid(), pss=False)
    assert now.rss > 0
    assert now.pss == 0
