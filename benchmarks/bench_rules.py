"""Speed of the rules engine against its targets (figures go to docs/performance.md "Rules engine").

Run: ``.venv/bin/python benchmarks/bench_rules.py [--quick]``. Single process, one core. Times are
process CPU time (``time.process_time_ns``), not wall time: the machine's two cores are shared, and
CPU time is what one core spends on the call.

- ``readings``: calls/s on random 1–10-card sets drawn from the double deck, cold (both caches
  cleared before every call) and warm (the same sets again: cached);
- ``can_beat``: median µs for a random 27-card hand against a random table reading;
- ``legal_moves``: median ms for a 27-card hand holding both wilds, following and leading.
"""

from __future__ import annotations

import argparse
import platform
import random
import statistics
import time
from collections.abc import Callable
from functools import partial

from replay import DECK, RANKS, Combo, legal_moves, readings
from replay.combos import _INPUT_CACHE, _READINGS_CACHE
from replay.moves import can_beat

TABLES = [
    ("single", "9"),
    ("pair", "K"),
    ("triple", "5"),
    ("full_house", "7"),
    ("straight", "4"),
    ("tube", "9"),
    ("plate", "3"),
    ("bomb", "9"),
    ("straight_flush", "6"),
]


def _table(rng: random.Random) -> Combo:
    t, r = rng.choice(TABLES)
    sizes = {"single": 1, "pair": 2, "triple": 3, "tube": 6, "plate": 6, "bomb": rng.choice((4, 5, 6))}
    size = sizes.get(t, 5)
    return Combo(t, r, size)


def _median_us(fn: Callable[[], object], n: int) -> float:
    times = []
    for _ in range(n):
        t0 = time.process_time_ns()
        fn()
        times.append(time.process_time_ns() - t0)
    return statistics.median(times) / 1000


def bench_readings(rng: random.Random, n: int) -> tuple[float, float]:
    sets = [rng.sample(DECK, rng.randint(1, 10)) for _ in range(n)]
    levels = [rng.choice(RANKS) for _ in range(n)]
    clear_codes, clear_input = _READINGS_CACHE.clear, _INPUT_CACHE.clear
    t0 = time.process_time()
    for cards, level in zip(sets, levels, strict=True):
        clear_codes()
        clear_input()
        readings(cards, level)
    cold = n / (time.process_time() - t0)
    for cards, level in zip(sets, levels, strict=True):
        readings(cards, level)
    t0 = time.process_time()
    for cards, level in zip(sets, levels, strict=True):
        readings(cards, level)
    warm = n / (time.process_time() - t0)
    return cold, warm


def _hand_with_two_wilds(rng: random.Random, level: str) -> list[str]:
    wild = "H" + level
    rest = [c for c in DECK if c != wild]
    return [wild, wild, *rng.sample(rest, 25)]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer repetitions (a smoke run)")
    args = parser.parse_args()
    scale = 10 if args.quick else 1
    rng = random.Random(20261130)
    print(f"python {platform.python_version()} on {platform.machine()} ({platform.processor() or 'cpu'})")

    cold, warm = bench_readings(rng, 200_000 // scale)
    print(f"readings, random 1-10-card sets: cold {cold:,.0f} calls/s, warm (cached) {warm:,.0f} calls/s")

    cases = [(rng.sample(DECK, 27), rng.choice(RANKS), _table(rng)) for _ in range(5_000 // scale)]
    it = iter(cases)
    med = _median_us(lambda: can_beat(*next(it)), len(cases))
    print(f"can_beat, 27-card hand vs random table: median {med:.1f} us")

    follow, lead, lead_again, counts_f, counts_l = [], [], [], [], []
    for _ in range(300 // scale):
        level = rng.choice(RANKS)
        hand = _hand_with_two_wilds(rng, level)
        table = _table(rng)
        follow.append(_median_us(partial(legal_moves, hand, level, table), 1))
        counts_f.append(len(legal_moves(hand, level, table)))
        lead.append(_median_us(partial(legal_moves, hand, level, None), 1))
        lead_again.append(_median_us(partial(legal_moves, hand, level, None), 1))
        counts_l.append(len(legal_moves(hand, level, None)))
    print(
        f"legal_moves, 27 cards with two wilds, following: median {statistics.median(follow) / 1000:.2f} ms "
        f"(median {statistics.median(counts_f):.0f} moves)"
    )
    print(
        f"legal_moves, 27 cards with two wilds, leading: median {statistics.median(lead) / 1000:.2f} ms "
        f"(median {statistics.median(counts_l):.0f} moves); same hand again (moves interned) "
        f"{statistics.median(lead_again) / 1000:.2f} ms"
    )


if __name__ == "__main__":
    main()
