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

from bench_pipeline import PeakMemory, tree_memory

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


@needs_proc
def test_both_peaks_see_a_process_holding_300_mib() -> None:
    child = subprocess.Popen([sys.executable, "-c", HOLD, str(PeakMemory.PSS_EVERY_S + 2)],
                             stdout=subprocess.PIPE, text=True)
    try:
        assert child.stdout is not None and child.stdout.readline() == "held\n"
        memory = PeakMemory(child.pid)
        time.sleep(PeakMemory.PSS_EVERY_S + 0.5)
        peak = memory.close()
    finally:
        child.kill()
        child.wait()
    assert peak.rss >= 300 * MiB
    assert peak.pss >= 300 * MiB


@needs_proc
def test_a_peak_between_timed_pss_reads_shows_in_both() -> None:
    """A grandchild that holds 300 MiB for less than the PSS interval, after the first read: the
    RSS sees it, and its growth triggers a PSS read."""
    brief = (f"import subprocess, sys, time; subprocess.run([sys.executable, '-c', {HOLD!r}, '0.5']); "
             "time.sleep(5)")
    parent = subprocess.Popen([sys.executable, "-c", brief], stdout=subprocess.DEVNULL)
    try:
        memory = PeakMemory(parent.pid)
        time.sleep(PeakMemory.PSS_EVERY_S * 0.9)
        peak = memory.close()
    finally:
        parent.kill()
        parent.wait()
    assert peak.rss >= 300 * MiB
    assert peak.pss >= 300 * MiB


def test_without_pss_only_the_rss_is_read() -> None:
    now = tree_memory(os.getpid(), pss=False)
    assert now.rss > 0
    assert now.pss == 0
