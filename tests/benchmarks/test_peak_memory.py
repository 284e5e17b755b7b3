"""The benchmarks' memory sampler (``benchmarks/bench_pipeline.py``): the peaks the scale figures
in docs/performance.md rest on. RSS is read every sample, PSS on a slower schedule (reading it
walks every page table of the tree), and both must still see a process's peak."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))

from bench_pipeline import PeakMemory, TreeMemory, tree_memory

MiB = 2**20
HOLD = """
import sys, time
block = bytearray(300 * 2**20)
for i in range(0, len(block), 4096):
    block[i] = 1
print("held", flush=True)
time.sleep(float(sys.argv[1]))
"""
"""A child that touches 300 MiB, says so, and holds it for argv[1] seconds."""

needs_proc = pytest.mark.skipif(not Path("/proc/self/smaps_rollup").exists(), reason="needs Linux /proc")


def _peak(process: subprocess.Popen[str], seconds: float) -> TreeMemory:
    """The peak :class:`PeakMemory` sees of ``process``'s tree over ``seconds``; then it is killed."""
    try:
        memory = PeakMemory(process.pid)
        time.sleep(seconds)
        return memory.close()
    finally:
        process.kill()
        process.wait()


@needs_proc
def test_both_peaks_see_a_process_holding_300_mib() -> None:
    child = subprocess.Popen([sys.executable, "-c", HOLD, str(PeakMemory.PSS_EVERY_S + 2)],
                             stdout=subprocess.PIPE, text=True)
    assert child.stdout is not None and child.stdout.readline() == "held\n"
    peak = _peak(child, PeakMemory.PSS_EVERY_S + 0.5)
    assert peak.rss >= 300 * MiB
    assert peak.pss >= 300 * MiB


@needs_proc
def test_a_peak_between_timed_pss_reads_shows_in_both() -> None:
    """A grandchild that holds 300 MiB for less than the PSS interval, after the first read: the
    RSS sees it, and its growth triggers PSS reads (the last one may come before the last 10 %
    of the growth)."""
    brief = (f"import subprocess, sys, time; subprocess.run([sys.executable, '-c', {HOLD!r}, '0.5']); "
             "time.sleep(5)")
    parent = subprocess.Popen([sys.executable, "-c", brief], stdout=subprocess.DEVNULL, text=True)
    peak = _peak(parent, PeakMemory.PSS_EVERY_S * 0.9)
    assert peak.rss >= 300 * MiB
    assert peak.pss >= 300 * MiB / PeakMemory.PSS_ON_GROWTH


def test_without_pss_only_the_rss_is_read() -> None:
    now = tree_memory(os.getpid(), pss=False)
    assert now.rss > 0
    assert now.pss == 0
