"""The Cython core against the compiled (mypyc) engine without it, side by side in one run:
readings with the caches cleared, ``can_beat`` (a ``BeatProbe`` made and asked once), legal moves
following and leading (the measures of ``bench_rules.py``, same seeded inputs for both).

Run: ``.venv/bin/python benchmarks/bench_native_core.py [--pairs 3] [--quick]`` on a build with
both (``python setup.py build_ext --inplace``). Each engine runs in child processes, alternating
(mypyc, core, core, mypyc, …) so that the shared machine's load weighs on both alike; the mypyc
engine alone is the same build with ``GDAN_NATIVE_CORE=0``. Times are process CPU time. Prints
each pair's figures and the core/mypyc speed-up of each measure (median over the pairs).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import random
import statistics
import subprocess
import sys
from datetime import UTC, datetime
from functools import partial
from typing import TypedDict

ENGINES = {"mypyc": {"GDAN_NATIVE_CORE": "0"}, "core": {}}


class Figures(TypedDict):
    """One child's figures and which engine it ran."""

    compiled: bool
    core: bool
    readings_per_s: float
    can_beat_us: float
    follow_ms: float
    lead_ms: float
    lead_moves: float


def measure(quick: bool) -> Figures:
    """One engine's figures (in a child process): readings cold per second, ``can_beat`` median
    microseconds (a random 27-card hand against a random table), legal moves median milliseconds
    following and leading a 27-card hand holding both wilds (first call per hand)."""
    from bench_rules import _hand_with_two_wilds, _median_us, _table, bench_readings

    from replay import DECK, RANKS, can_beat, combos, legal_moves, moves, native

    scale = 10 if quick else 1
    rng = random.Random(20261207)
    cold, _ = bench_readings(rng, 200_000 // scale)
    questions = [(rng.sample(DECK, 27), rng.choice(RANKS), _table(rng)) for _ in range(5_000 // scale)]
    it = iter(questions)
    can_beat_us = _median_us(lambda: can_beat(*next(it)), len(questions))
    follow, lead, counts = [], [], []
    for _ in range(300 // scale):
        level = rng.choice(RANKS)
        hand = _hand_with_two_wilds(rng, level)
        table = _table(rng)
        follow.append(_median_us(partial(legal_moves, hand, level, table), 1))
        lead.append(_median_us(partial(legal_moves, hand, level, None), 1))
        counts.append(len(legal_moves(hand, level, None)))
    return {
        "compiled": native.is_compiled(),
        "core": combos._CORE is not None and moves._CORE is not None,
        "readings_per_s": cold,
        "can_beat_us": can_beat_us,
        "follow_ms": statistics.median(follow) / 1000,
        "lead_ms": statistics.median(lead) / 1000,
        "lead_moves": statistics.median(counts),
    }


def run_child(engine: str, quick: bool) -> Figures:
    env = {**os.environ, **ENGINES[engine]}
    env.pop("GDAN_PURE_PYTHON", None)
    args = [sys.executable, __file__, "--child", *(["--quick"] if quick else [])]
    done = subprocess.run(args, env=env, capture_output=True, text=True, check=True)
    figures: Figures = json.loads(done.stdout.splitlines()[-1])
    return figures


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pairs", type=int, default=3)
    parser.add_argument("--quick", action="store_true", help="a tenth of the cases (a smoke run)")
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        print(json.dumps(measure(args.quick)))
        return
    load = " ".join(f"{x:.2f}" for x in os.getloadavg())
    print(f"python {platform.python_version()} on {platform.machine()}, {os.cpu_count()} cores, "
          f"{datetime.now(UTC):%Y-%m-%d %H:%M} UTC, load {load}")
    ratios: dict[str, list[float]] = {"readings": [], "can_beat": [], "following": [], "leading": []}
    for pair in range(args.pairs):
        order = ("mypyc", "core") if pair % 2 == 0 else ("core", "mypyc")
        got = {engine: run_child(engine, args.quick) for engine in order}
        a, b = got["mypyc"], got["core"]
        if not (a["compiled"] and b["compiled"] and b["core"] and not a["core"]):
            sys.exit(f"not the engines to compare (need a fresh mypyc build and the core): {got}")
        pair_ratios = {
            "readings": b["readings_per_s"] / a["readings_per_s"],
            "can_beat": a["can_beat_us"] / b["can_beat_us"],
            "following": a["follow_ms"] / b["follow_ms"],
            "leading": a["lead_ms"] / b["lead_ms"],
        }
        for measure_name, ratio in pair_ratios.items():
            ratios[measure_name].append(ratio)
        print(
            f"pair {pair + 1} ({' then '.join(order)}): readings cold {a['readings_per_s']:,.0f} -> "
            f"{b['readings_per_s']:,.0f} /s; can_beat {a['can_beat_us']:.1f} -> {b['can_beat_us']:.1f} us; "
            f"legal_moves following {a['follow_ms']:.3f} -> "
            f"{b['follow_ms']:.3f} ms, leading {a['lead_ms']:.3f} -> {b['lead_ms']:.3f} ms "
            f"({b['lead_moves']:.0f} moves)"
        )
    load = " ".join(f"{x:.2f}" for x in os.getloadavg())
    print(f"core / mypyc speed-up, median of {args.pairs} pairs (load now {load}):")
    for k, v in ratios.items():
        print(f"  {k}: {statistics.median(v):.2f}x  (pairs: {', '.join(f'{x:.2f}' for x in v)})")


if __name__ == "__main__":
    main()
